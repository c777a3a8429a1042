import Countdown

/// The most recent events, numbered: what `timer.subscribe` with `afterSeq` replays to a client
/// that reconnects (docs/protocol.md, "Events").
///
/// Every event the engine reports gets the next sequence number (1, 2, 3 … for the life of the
/// daemon process; they start again at 1 when timerd starts) and goes into the ring, whether or not
/// anyone is subscribed. The ring keeps the last ``capacity`` events (4,096 by default; about
/// 1 KiB each for a plain timer once its line is written, so about 4 MiB, more for large groups);
/// older ones are forgotten, and a client that asks
/// for them gets a `timer.gap` notification (reason `ring`) naming the numbers it cannot have.
///
/// An event's notification line is written once, when it is first delivered or replayed, and
/// kept with it (``setLine(_:forSeq:)``), so a thousand subscribers cost one JSON rendering.
///
/// ```swift
/// var ring = EventRing(capacity: 2)
/// ring.append(started)   // seq 1
/// ring.append(paused)    // seq 2
/// ring.append(resumed)   // seq 3; seq 1 is forgotten
/// ring.firstSeq          // 2
/// ring.entries(after: 1).map(\.seq)   // [2, 3]
/// ```
public struct EventRing: Sendable {
    /// One numbered event.
    public struct Entry: Sendable {
        /// Its sequence number (1 for the daemon's first event).
        public var seq: UInt64
        /// What happened.
        public var event: TimerEvent
        /// Its `timer.event` line once written (without the newline), else `nil`.
        public var line: [UInt8]?
    }

    /// The default number of events kept: 4,096.
    public static let defaultCapacity = 4_096

    /// The most events kept; at least 1.
    public let capacity: Int
    private var storage: [Entry] = []
    /// Where the oldest entry is in `storage` once it is full.
    private var start = 0
    /// The last sequence number given, 0 before the first event.
    public private(set) var lastSeq: UInt64 = 0

    /// Creates an empty ring.
    ///
    /// - Parameter capacity: the most events kept (at least 1; default ``defaultCapacity``).
    public init(capacity: Int = defaultCapacity) {
        self.capacity = max(1, capacity)
    }

    /// The number of events kept.
    public var count: Int { storage.count }

    /// The sequence number of the oldest event kept (``lastSeq`` + 1 while the ring is empty).
    public var firstSeq: UInt64 { lastSeq + 1 - UInt64(storage.count) }

    /// Numbers `event` and keeps it, forgetting the oldest event when the ring is full.
    ///
    /// - Parameter event: what happened.
    /// - Returns: its sequence number.
    /// - Complexity: O(1).
    @discardableResult
    public mutating func append(_ event: TimerEvent) -> UInt64 {
        lastSeq += 1
        let entry = Entry(seq: lastSeq, event: event, line: nil)
        if storage.count < capacity {
            storage.append(entry)
        } else {
            storage[start] = entry
            start = (start + 1) % capacity
        }
        return lastSeq
    }

    /// The entry numbered `seq`, if it is still kept.
    ///
    /// - Parameter seq: a sequence number.
    /// - Returns: the entry, or `nil` when it is forgotten or not yet given.
    public func entry(seq: UInt64) -> Entry? {
        guard let index = index(of: seq) else { return nil }
        return storage[index]
    }

    /// Keeps the notification line written for event `seq` (nothing when it is forgotten).
    ///
    /// - Parameters:
    ///   - line: the `timer.event` line, without the newline.
    ///   - seq: its event's number.
    public mutating func setLine(_ line: [UInt8], forSeq seq: UInt64) {
        guard let index = index(of: seq) else { return }
        storage[index].line = line
    }

    /// The events kept after `seq`, oldest first.
    ///
    /// - Parameter seq: the last number the client has; 0 for every event kept.
    /// - Returns: the entries numbered `seq + 1` … ``lastSeq`` that are still kept.
    /// - Complexity: O(k) for the k entries returned.
    public func entries(after seq: UInt64) -> [Entry] {
        guard seq < lastSeq else { return [] }
        let from = max(seq + 1, firstSeq)
        return (from...lastSeq).compactMap { entry(seq: $0) }
    }

    private func index(of seq: UInt64) -> Int? {
        guard seq >= firstSeq, seq <= lastSeq, !storage.isEmpty else { return nil }
        return (start + Int(seq - firstSeq)) % storage.count
    }
}
