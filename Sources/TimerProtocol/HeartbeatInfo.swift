import TimerModel

/// A heartbeat timer's beats as the protocol sends them (the `heartbeat` member of a timer, present
/// only for timers started with `--heartbeat`; docs/protocol.md, "timer.beat").
///
/// The JSON keys are the property names, sorted; an absent ``lastBeatAt`` is left out:
/// `{"beatCount":3,"lastBeatAt":"2026-12-01T09:00:00.000Z"}`.
public struct HeartbeatInfo: Sendable, Codable, Hashable {
    /// Beats since the timer started or was last restarted (0 before the first).
    public var beatCount: Int
    /// When the latest beat came (ISO 8601, UTC, milliseconds), on the wall clock; `nil` before the first.
    public var lastBeatAt: String?

    /// Creates the wire form; see the properties for each field's meaning.
    ///
    /// - Parameters:
    ///   - beatCount: beats counted, ≥ 0.
    ///   - lastBeatAt: the latest beat's instant as ISO 8601 text, or `nil`.
    public init(beatCount: Int, lastBeatAt: String?) {
        self.beatCount = beatCount
        self.lastBeatAt = lastBeatAt
    }

    /// Writes the value as `JSONEncoder` with sorted keys encodes it.
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.raw(#"{"beatCount":"#)
        writer.integer(Int64(beatCount))
        if let lastBeatAt {
            writer.raw(#","lastBeatAt":"#)
            writer.string(lastBeatAt)
        }
        writer.bytes.append(UInt8(ascii: "}"))
    }
}

extension HeartbeatInfo: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "heartbeat")
        self.init(beatCount: try object.integer("beatCount"), lastBeatAt: try object.optionalString("lastBeatAt"))
    }
}
