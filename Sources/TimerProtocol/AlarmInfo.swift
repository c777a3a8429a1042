/// An alarm's rule and state as the protocol sends them (the `alarm` member of a timer, present
/// only for timers started with `--ring` or `--warn`; docs/protocol.md, "Alarms").
///
/// The JSON keys are the property names, sorted; absent optionals are left out:
/// `{"ringCount":2,"ringInterval":30,"ringLimit":600,"snoozeCount":0}` for a timer ringing its
/// second ring, `{"ringCount":0,"snoozeCount":0,"warned":false,"warning":300}` for one that only warns.
public struct AlarmInfo: Sendable, Codable, Hashable {
    /// How the last ringing ended, `acknowledged` or `unanswered`; absent while it rings or before.
    public var outcome: String?
    /// Rings sent since the ringing began (0 before the end; after a snooze, 0 again until the next
    /// end; once ended, the last ringing's count).
    public var ringCount: Int
    /// Seconds between two rings; absent for a timer that does not ring.
    public var ringInterval: Double?
    /// Seconds after the first ring at which an unanswered ringing stops; absent without ring.
    public var ringLimit: Double?
    /// How many times the timer was snoozed.
    public var snoozeCount: Int
    /// Whether the warning was sent; absent without a warning.
    public var warned: Bool?
    /// Seconds before the end at which the warning comes; absent without a warning.
    public var warning: Double?
    /// `true` when the warning comes before the end of every step of a group (`--warn-each`);
    /// absent otherwise.
    public var warnEach: Bool?
    /// With ``warnEach``: how many steps' warnings were sent or passed (0 to the step count);
    /// absent otherwise.
    public var warnedSteps: Int?

    /// Creates the wire form; see the properties for each field's meaning.
    ///
    /// - Parameters:
    ///   - outcome: `acknowledged`, `unanswered` or `nil`.
    ///   - ringCount: rings sent, ≥ 0.
    ///   - ringInterval: seconds, or `nil` without ring.
    ///   - ringLimit: seconds, or `nil` without ring.
    ///   - snoozeCount: snoozes, ≥ 0.
    ///   - warned: whether the warning was sent, or `nil` without a warning.
    ///   - warning: seconds, or `nil` without a warning.
    ///   - warnEach: `true` with `--warn-each`, else `nil` (the default).
    ///   - warnedSteps: steps warned, with `warnEach`, else `nil` (the default).
    public init(
        outcome: String?, ringCount: Int, ringInterval: Double?, ringLimit: Double?, snoozeCount: Int, warned: Bool?,
        warning: Double?, warnEach: Bool? = nil, warnedSteps: Int? = nil
    ) {
        self.warnEach = warnEach
        self.warnedSteps = warnedSteps
        self.outcome = outcome
        self.ringCount = ringCount
        self.ringInterval = ringInterval
        self.ringLimit = ringLimit
        self.snoozeCount = snoozeCount
        self.warned = warned
        self.warning = warning
    }

    /// Writes the value as `JSONEncoder` with sorted keys encodes it.
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite figure.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        writer.raw("{")
        if let outcome {
            writer.raw(#""outcome":"#)
            writer.string(outcome)
            writer.raw(",")
        }
        writer.raw(#""ringCount":"#)
        writer.integer(Int64(ringCount))
        if let ringInterval {
            writer.raw(#","ringInterval":"#)
            try writer.number(ringInterval)
        }
        if let ringLimit {
            writer.raw(#","ringLimit":"#)
            try writer.number(ringLimit)
        }
        writer.raw(#","snoozeCount":"#)
        writer.integer(Int64(snoozeCount))
        if let warnEach { writer.raw(warnEach ? #","warnEach":true"# : #","warnEach":false"#) }
        if let warned { writer.raw(warned ? #","warned":true"# : #","warned":false"#) }
        if let warnedSteps {
            writer.raw(#","warnedSteps":"#)
            writer.integer(Int64(warnedSteps))
        }
        if let warning {
            writer.raw(#","warning":"#)
            try writer.number(warning)
        }
        writer.raw("}")
    }
}

extension AlarmInfo: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "alarm")
        self.init(
            outcome: try object.optionalString("outcome"), ringCount: try object.integer("ringCount"),
            ringInterval: try object.optional("ringInterval").map { _ throws(JSONShapeError) in
                try object.double("ringInterval")
            },
            ringLimit: try object.optional("ringLimit").map { _ throws(JSONShapeError) in try object.double("ringLimit")
            },
            snoozeCount: try object.integer("snoozeCount"), warned: try object.optionalBool("warned"),
            warning: try object.optional("warning").map { _ throws(JSONShapeError) in try object.double("warning") },
            warnEach: try object.optionalBool("warnEach"), warnedSteps: try object.optionalInteger("warnedSteps"))
    }
}
