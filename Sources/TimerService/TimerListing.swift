import Countdown
import TimerProtocol

/// A `timer.list` reply that is written a part at a time, so that a long listing never sits whole
/// in memory and one client's listing cannot hold the loop (docs/fairness.md).
///
/// The service returns one (``ServiceOutcome/listing``) when a listing has more than
/// ``TimerService/streamingThreshold`` timers; the daemon then calls
/// ``TimerService/writeListing(_:into:upTo:)`` whenever the client's socket has drained, until
/// ``isFinished``. The bytes, put together, are exactly one reply line with its newline, as a
/// reply built at once would be, except that each timer is as it is when its part is written
/// (a timer dropped from the history meanwhile is left out).
public struct TimerListing: Sendable {
    /// The request's id.
    public let id: RPCID
    /// The timers to write, ascending.
    let ids: [UInt64]
    /// How many of `ids` are written.
    var position = 0
    /// Whether the reply's opening (`{"id":…,"jsonrpc":"2.0","result":[`) is written.
    var hasStarted = false
    /// Whether a timer is written (the next one is preceded by a comma).
    var hasWrittenTimer = false
    /// Whether the whole line, newline included, is written.
    public private(set) var isFinished = false

    /// A listing of `ids` answering request `id`.
    ///
    /// - Parameters:
    ///   - id: the request's id.
    ///   - ids: the timers, ascending.
    public init(id: RPCID, ids: [UInt64]) {
        self.id = id
        self.ids = ids
    }

    /// The number of timers still to write.
    public var remaining: Int { ids.count - position }

    mutating func markFinished() { isFinished = true }
}

extension TimerService {
    /// Listings of more timers than this are streamed (``TimerListing``); shorter ones are
    /// answered in one line. 256 timers are about 130 KiB of JSON.
    public static let streamingThreshold = 256

    /// Appends the next part of `listing` to `bytes`: timers until `bytes` holds `budget` bytes or
    /// more, and the closing `]}` and newline after the last.
    ///
    /// - Parameters:
    ///   - listing: the listing; ``TimerListing/isFinished`` once the newline is written.
    ///   - bytes: where the part goes.
    ///   - budget: the size to stop at, in bytes (at least one timer is written per call).
    /// - Complexity: O(k) for the k timers written.
    public mutating func writeListing(_ listing: inout TimerListing, into bytes: inout [UInt8], upTo budget: Int) {
        Self.writeListing(&listing, into: &bytes, upTo: budget) { id, writer in
            guard let snapshot = engine.snapshot(ofTimer: id) else { return false }
            // The engine makes no NaN or infinite figure; a failure would only shorten the listing.
            try? TimerInfo(snapshot, timestamps: &timestamps).write(to: &writer)
            return true
        }
    }

    /// Appends the next part of `listing` to `bytes` as ``writeListing(_:into:upTo:)`` does, with
    /// each timer written by `writeTimer`: a backend whose timers are not in this service's engine
    /// (shared mode's database) streams its listings with the same framing.
    ///
    /// - Parameters:
    ///   - listing: the listing; ``TimerListing/isFinished`` once the newline is written.
    ///   - bytes: where the part goes.
    ///   - budget: the size to stop at, in bytes (at least one timer is written per call).
    ///   - writeTimer: writes timer `id`'s JSON object to the writer and returns `true`, or
    ///     returns `false` for a timer that is gone (left out).
    /// - Complexity: O(k) for the k timers written, plus what `writeTimer` costs.
    package static func writeListing(
        _ listing: inout TimerListing, into bytes: inout [UInt8], upTo budget: Int,
        writeTimer: (_ id: UInt64, _ writer: inout JSONBytesWriter) -> Bool
    ) {
        guard !listing.isFinished else { return }
        var writer = JSONBytesWriter(capacity: budget + 1_024)
        if !listing.hasStarted {
            writer.raw(#"{"id":"#)
            listing.id.write(to: &writer)
            writer.raw(#","jsonrpc":"2.0","result":["#)
        }
        listing.hasStarted = true
        var wroteThisCall = false
        while listing.position < listing.ids.count, !wroteThisCall || writer.bytes.count < budget {
            let id = listing.ids[listing.position]
            listing.position += 1
            let mark = writer.bytes.count
            if listing.hasWrittenTimer { writer.bytes.append(UInt8(ascii: ",")) }
            guard writeTimer(id, &writer) else {
                writer.bytes.removeSubrange(mark...)
                continue
            }
            listing.hasWrittenTimer = true
            wroteThisCall = true
        }
        if listing.position == listing.ids.count {
            writer.raw("]}\n")
            listing.markFinished()
        }
        bytes += writer.bytes
    }
}
