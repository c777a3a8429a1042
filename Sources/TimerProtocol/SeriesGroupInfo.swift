/// The group a recurring series starts at each elapse, as the protocol sends it (the `group` member
/// of a timer's `recurrence`, present only for `timer.start` with `durations` and `on` or `every`;
/// docs/protocol.md, "Recurring timers").
///
/// The JSON keys are the property names, sorted; absent optionals are left out.
public struct SeriesGroupInfo: Sendable, Codable, Hashable {
    /// The steps of one run, in seconds (`loops` already repeated).
    public var durations: [Double]
    /// What an elapse does while the previous run still runs: `skip`, `queue` or `restart`.
    public var overlap: String
    /// Whether a run waits to start when the current one ends (`queue` only).
    public var queued: Bool
    /// The id of the live run (a timer of its own), or `nil` when none runs.
    public var run: String?
    /// How many runs the series started.
    public var runCount: Int
    /// The step (1-based) the live run is at, in `timer.status` and `timer.list` replies; `nil`
    /// without a live run and in events.
    public var runStep: Int?
    /// How many elapses started no run because one still ran.
    public var skippedCount: Int

    /// Creates the wire form; see the properties for each field's meaning.
    public init(
        durations: [Double], overlap: String, queued: Bool, run: String?, runCount: Int, runStep: Int?,
        skippedCount: Int
    ) {
        self.durations = durations
        self.overlap = overlap
        self.queued = queued
        self.run = run
        self.runCount = runCount
        self.runStep = runStep
        self.skippedCount = skippedCount
    }

    /// Writes the value as `JSONEncoder` with sorted keys does.
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite duration.
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        writer.raw(#"{"durations":["#)
        for (index, seconds) in durations.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            try writer.number(seconds)
        }
        writer.raw(#"],"overlap":"#)
        writer.string(overlap)
        writer.raw(#","queued":"#)
        writer.bool(queued)
        if let run {
            writer.raw(#","run":"#)
            writer.string(run)
        }
        writer.raw(#","runCount":"#)
        writer.integer(Int64(runCount))
        if let runStep {
            writer.raw(#","runStep":"#)
            writer.integer(Int64(runStep))
        }
        writer.raw(#","skippedCount":"#)
        writer.integer(Int64(skippedCount))
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

extension SeriesGroupInfo: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "group")
        guard case .array(let items) = try object.required("durations") else {
            throw JSONShapeError("group: \"durations\": expected an array")
        }
        var durations: [Double] = []
        for item in items {
            guard case .number(let seconds) = item else {
                throw JSONShapeError("group: \"durations\": expected numbers")
            }
            durations.append(seconds)
        }
        self.init(
            durations: durations, overlap: try object.string("overlap"), queued: try object.bool("queued"),
            run: try object.optionalString("run"), runCount: try object.integer("runCount"),
            runStep: try object.optionalInteger("runStep"), skippedCount: try object.integer("skippedCount"))
    }
}
