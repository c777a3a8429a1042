/// The result of `timer.runs`: a timer's kept on-finish action runs, oldest first (docs/protocol.md).
public struct ActionRunsResult: Sendable, Hashable, Codable {
    /// The timer's id, as text (`"3"`).
    public var id: String
    /// The timer's name, or `nil` for an unnamed timer.
    public var name: String?
    /// The runs the timer keeps (at most 16), oldest first.
    public var runs: [ActionRunInfo]

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - id: the timer's id as text.
    ///   - name: its name, or `nil`.
    ///   - runs: its runs, oldest first.
    public init(id: String, name: String?, runs: [ActionRunInfo]) {
        self.id = id
        self.name = name
        self.runs = runs
    }
}

/// One on-finish action run in a `timer.runs` result.
public struct ActionRunInfo: Sendable, Hashable, Codable {
    /// When it ended (ISO 8601, UTC, milliseconds), or `nil` while it runs or when it was interrupted.
    public var endedAt: String?
    /// Its exit status (0…255; 128 + N when killed by signal N, 124 timed out, 127 could not
    /// start), or `nil` while it runs or when it was interrupted.
    public var exitStatus: Int?
    /// `exec`, `notify` or `sound`.
    public var kind: String
    /// `running`, `exited`, `signalled`, `timed-out`, `failed-to-start` or `interrupted`.
    public var outcome: String
    /// What it wrote to stdout and stderr (at most 65 536 bytes, invalid UTF-8 replaced by U+FFFD),
    /// or `nil` when timerd does not know it (a run of before timerd's last start, or one still running).
    public var output: String?
    /// `true` when the run wrote more than ``output`` holds; `nil` otherwise.
    public var outputTruncated: Bool?
    /// When it started (ISO 8601, UTC, milliseconds).
    public var startedAt: String
    /// `finished`, `missed` or `elapsed`.
    public var trigger: String

    /// Creates a run.
    ///
    /// - Parameters:
    ///   - kind: `exec`, `notify` or `sound`.
    ///   - trigger: `finished`, `missed` or `elapsed`.
    ///   - startedAt: ISO 8601 start.
    ///   - endedAt: ISO 8601 end, or `nil`.
    ///   - outcome: how it ended.
    ///   - exitStatus: its exit status, or `nil`.
    ///   - output: its captured output, or `nil`.
    ///   - outputTruncated: `true` when output was cut, else `nil`.
    public init(
        kind: String, trigger: String, startedAt: String, endedAt: String?, outcome: String, exitStatus: Int?,
        output: String? = nil, outputTruncated: Bool? = nil
    ) {
        self.kind = kind
        self.trigger = trigger
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.exitStatus = exitStatus
        self.output = output
        self.outputTruncated = outputTruncated
    }
}

extension ActionRunInfo: JSONWritable {
    /// Writes the run with sorted keys; absent members are left out.
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.raw("{")
        if let endedAt {
            writer.raw(#""endedAt":"#)
            writer.string(endedAt)
            writer.raw(",")
        }
        if let exitStatus {
            writer.raw(#""exitStatus":"#)
            writer.integer(Int64(exitStatus))
            writer.raw(",")
        }
        writer.raw(#""kind":"#)
        writer.string(kind)
        writer.raw(#","outcome":"#)
        writer.string(outcome)
        if let output {
            writer.raw(#","output":"#)
            writer.string(output)
        }
        if let outputTruncated {
            writer.raw(#","outputTruncated":"#)
            writer.bool(outputTruncated)
        }
        writer.raw(#","startedAt":"#)
        writer.string(startedAt)
        writer.raw(#","trigger":"#)
        writer.string(trigger)
        writer.raw("}")
    }
}

extension ActionRunsResult: JSONWritable {
    /// Writes `{"id":…,"name":…,"runs":[…]}`, `name` left out for an unnamed timer.
    ///
    /// - Parameter writer: the writer to append to.
    package func write(to writer: inout JSONBytesWriter) {
        writer.raw(#"{"id":"#)
        writer.string(id)
        if let name {
            writer.raw(#","name":"#)
            writer.string(name)
        }
        writer.raw(#","runs":["#)
        for (index, run) in runs.enumerated() {
            if index > 0 { writer.raw(",") }
            run.write(to: &writer)
        }
        writer.raw("]}")
    }
}

extension ActionRunInfo: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "action run")
        self.init(
            kind: try object.string("kind"), trigger: try object.string("trigger"),
            startedAt: try object.string("startedAt"), endedAt: try object.optionalString("endedAt"),
            outcome: try object.string("outcome"), exitStatus: try object.optionalInteger("exitStatus"),
            output: try object.optionalString("output"), outputTruncated: try object.optionalBool("outputTruncated"))
    }
}

extension ActionRunsResult: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "timer.runs result")
        guard case .array(let items) = try object.required("runs") else {
            throw JSONShapeError("\"runs\": expected an array")
        }
        var runs: [ActionRunInfo] = []
        for item in items { runs.append(try ActionRunInfo(json: item)) }
        self.init(id: try object.string("id"), name: try object.optionalString("name"), runs: runs)
    }
}
