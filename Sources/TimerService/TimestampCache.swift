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
    /// `recentText` as a JSON string literal's UTF-8 bytes, quotes included (ISO 8601 text needs no escapes).
    private var recentQuoted: [UInt8] = []
    private var olderMilliseconds: Int64 = -1
    private var olderText = ""
    private var olderQuoted: [UInt8] = []

    /// Creates an empty cache.
    init() {}

    /// The ISO 8601 form of `date`, as `ISO8601.string(from:)` writes it.
    ///
    /// - Parameter date: the instant.
    /// - Returns: `2026-11-29T15:17:33.120Z`: the instant floored to the millisecond, in UTC.
    mutating func string(from date: Date) -> String {
        let rounded = ISO8601.flooredMilliseconds(of: date)
        guard rounded >= 0, rounded < 253_402_300_800_000 else { return ISO8601.string(from: date) }
        let key = Int64(rounded)
        if key == recentMilliseconds { return recentText }
        if key == olderMilliseconds {
            swap(&recentMilliseconds, &olderMilliseconds)
            swap(&recentText, &olderText)
            swap(&recentQuoted, &olderQuoted)
            return recentText
        }
        olderMilliseconds = recentMilliseconds
        olderText = recentText
        olderQuoted = recentQuoted
        recentMilliseconds = key
        recentText = ISO8601.fastString(milliseconds: key)
        recentQuoted = []
        return recentText
    }

    /// The ISO 8601 form of `date` as a JSON string, quotes included: the bytes
    /// `JSONBytesWriter.string(string(from: date))` appends, without scanning them for escapes
    /// (ISO 8601 text has no quote, backslash or control character).
    ///
    /// - Parameter date: the instant.
    /// - Returns: `"2026-11-29T15:17:33.120Z"` with its quotes, UTF-8.
    mutating func quoted(from date: Date) -> [UInt8] {
        let text = string(from: date)
        let rounded = ISO8601.flooredMilliseconds(of: date)
        // Instants the cache does not hold (out of the fast formatter's range) are quoted afresh.
        guard rounded >= 0, rounded < 253_402_300_800_000, Int64(rounded) == recentMilliseconds else {
            return [UInt8(ascii: "\"")] + Array(text.utf8) + [UInt8(ascii: "\"")]
        }
        if recentQuoted.isEmpty {
            recentQuoted.reserveCapacity(text.utf8.count + 2)
            recentQuoted.append(UInt8(ascii: "\""))
            recentQuoted.append(contentsOf: text.utf8)
            recentQuoted.append(UInt8(ascii: "\""))
        }
        return recentQuoted
    }
}
