import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The last two ISO 8601 timestamps formatted, handed out again for an instant in the same millisecond.
///
/// A new timer's reply carries `createdAt` and `startedAt`, the same instant, and an engine under
/// load starts hundreds of timers within one millisecond: one formatted string (one heap
/// allocation, it is longer than a small string) then serves them all (docs/performance.md).
/// Two entries, the least recently used replaced: a reply's other instant (a start's `endsAt`, a
/// stop's `createdAt`) differs for every timer, and with one entry it evicted the shared one, so
/// each reply formatted (and allocated) two strings instead of one.
/// The output is exactly `ISO8601.string(from:)`'s.
struct TimestampCache: Sendable {
    private var recentMilliseconds: Int64 = -1
    private var recentText = ""
    private var olderMilliseconds: Int64 = -1
    private var olderText = ""

    /// Creates an empty cache.
    init() {}

    /// The ISO 8601 form of `date`, as `ISO8601.string(from:)` writes it.
    ///
    /// - Parameter date: the instant.
    /// - Returns: `2026-11-29T15:17:33.120Z`: the instant rounded to the millisecond, in UTC.
    mutating func string(from date: Date) -> String {
        let rounded = (date.timeIntervalSince1970 * 1_000).rounded()
        guard rounded >= 0, rounded < 253_402_300_800_000 else { return ISO8601.string(from: date) }
        let key = Int64(rounded)
        if key == recentMilliseconds { return recentText }
        if key == olderMilliseconds {
            swap(&recentMilliseconds, &olderMilliseconds)
            swap(&recentText, &olderText)
            return recentText
        }
        olderMilliseconds = recentMilliseconds
        olderText = recentText
        recentMilliseconds = key
        recentText = ISO8601.fastString(milliseconds: key)
        return recentText
    }
}
