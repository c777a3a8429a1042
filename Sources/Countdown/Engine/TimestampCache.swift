#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The last ISO 8601 timestamp formatted, handed out again for an instant in the same millisecond.
///
/// A new timer's reply carries `createdAt` and `startedAt`, the same instant, and an engine under
/// load starts hundreds of timers within one millisecond: one formatted string (one heap
/// allocation, it is longer than a small string) then serves them all (docs/performance.md).
/// The output is exactly ``ISO8601/string(from:)``'s.
struct TimestampCache: Sendable {
    private var milliseconds: Int64 = -1
    private var text = ""

    /// The ISO 8601 form of `date`, as ``ISO8601/string(from:)`` writes it.
    ///
    /// - Parameter date: the instant.
    /// - Returns: `2026-11-29T15:17:33.120Z`: the instant rounded to the millisecond, in UTC.
    mutating func string(from date: Date) -> String {
        let rounded = (date.timeIntervalSince1970 * 1_000).rounded()
        guard rounded >= 0, rounded < 253_402_300_800_000 else { return ISO8601.string(from: date) }
        let key = Int64(rounded)
        if key != milliseconds {
            milliseconds = key
            text = ISO8601.fastString(milliseconds: key)
        }
        return text
    }
}
