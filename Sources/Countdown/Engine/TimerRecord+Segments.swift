import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension TimerRecord {
    /// A timer's durations in seconds (as given) and in nanoseconds: inline for a plain timer,
    /// arrays only for a group.
    enum Segments: Sendable, Hashable {
        case single(seconds: Double, nanoseconds: Int64)
        case group(seconds: [Double], nanoseconds: [Int64])

        init(durations: [Double], nanoseconds: [Int64]) {
            if durations.count == 1, nanoseconds.count == 1 {
                self = .single(seconds: durations[0], nanoseconds: nanoseconds[0])
            } else {
                self = .group(seconds: durations, nanoseconds: nanoseconds)
            }
        }

        var durations: [Double] {
            switch self {
            case .single(let seconds, _): return [seconds]
            case .group(let seconds, _): return seconds
            }
        }

        var nanoseconds: [Int64] {
            switch self {
            case .single(_, let nanoseconds): return [nanoseconds]
            case .group(_, let nanoseconds): return nanoseconds
            }
        }
    }
}

// The persisted form is unchanged: the keys and values the synthesized conformance wrote before
// the durations were stored inline.
extension TimerRecord: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, name, durations, segmentNanoseconds, state, accumulatedNanoseconds, runStart, runStartWall
        case createdAt, startedAt, endedAt, missed, owner, wallDeadline
    }

    /// Reads a record in the state file's format.
    ///
    /// - Throws: `DecodingError` when a required key is missing or has the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(UInt64.self, forKey: .id),
            name: try container.decodeIfPresent(String.self, forKey: .name),
            durations: try container.decode([Double].self, forKey: .durations),
            segmentNanoseconds: try container.decode([Int64].self, forKey: .segmentNanoseconds),
            state: try container.decode(TimerState.self, forKey: .state),
            accumulatedNanoseconds: try container.decode(Int64.self, forKey: .accumulatedNanoseconds),
            runStart: try container.decodeIfPresent(BootInstant.self, forKey: .runStart),
            runStartWall: try container.decodeIfPresent(Date.self, forKey: .runStartWall),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            startedAt: try container.decode(Date.self, forKey: .startedAt),
            endedAt: try container.decodeIfPresent(Date.self, forKey: .endedAt),
            missed: try container.decode(Bool.self, forKey: .missed),
            owner: try container.decode(UInt32.self, forKey: .owner),
            wallDeadline: try container.decodeIfPresent(Date.self, forKey: .wallDeadline))
    }

    /// Writes the record in the state file's format.
    ///
    /// - Throws: the encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(durations, forKey: .durations)
        try container.encode(segmentNanoseconds, forKey: .segmentNanoseconds)
        try container.encode(state, forKey: .state)
        try container.encode(accumulatedNanoseconds, forKey: .accumulatedNanoseconds)
        try container.encodeIfPresent(runStart, forKey: .runStart)
        try container.encodeIfPresent(runStartWall, forKey: .runStartWall)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encodeIfPresent(endedAt, forKey: .endedAt)
        try container.encode(missed, forKey: .missed)
        try container.encode(owner, forKey: .owner)
        try container.encodeIfPresent(wallDeadline, forKey: .wallDeadline)
    }
}
