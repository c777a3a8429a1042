import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension TimerRecord {
    /// A timer's durations in seconds (as given) and in nanoseconds: inline for a plain timer,
    /// arrays only for a group.
    package enum Segments: Sendable, Hashable {
        /// A plain timer: its one duration in seconds (as given) and in nanoseconds.
        case single(seconds: Double, nanoseconds: Int64)
        /// A group: each child's duration in seconds and in nanoseconds, the same count (≥ 1).
        case group(seconds: [Double], nanoseconds: [Int64])

        /// ``single(seconds:nanoseconds:)`` for one duration, else ``group(seconds:nanoseconds:)``.
        ///
        /// - Parameters:
        ///   - durations: seconds, as given.
        ///   - nanoseconds: the same durations in nanoseconds; the same count as `durations`.
        package init(durations: [Double], nanoseconds: [Int64]) {
            if durations.count == 1, nanoseconds.count == 1 {
                self = .single(seconds: durations[0], nanoseconds: nanoseconds[0])
            } else {
                self = .group(seconds: durations, nanoseconds: nanoseconds)
            }
        }

        /// The durations in seconds.
        package var durations: [Double] {
            switch self {
            case .single(let seconds, _): return [seconds]
            case .group(let seconds, _): return seconds
            }
        }

        /// The durations in nanoseconds.
        package var nanoseconds: [Int64] {
            switch self {
            case .single(_, let nanoseconds): return [nanoseconds]
            case .group(_, let nanoseconds): return nanoseconds
            }
        }
    }
}
