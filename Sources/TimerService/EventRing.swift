import Countdown

/// The most recent events, numbered: what `timer.subscribe` with `afterSeq` replays to a client
/// that reconnects (docs/protocol.md, "Events").
///
/// Every event the engine reports gets the next sequence number (1, 2, 3 … for the life of the
/// daemon process; they start again at 1 when timerd starts) and the next number among its timer
/// owner's events (``Entry/ownerSeq``), and goes into the ring, whether or not anyone is
/// subscribed. A user who sees only its own timers is shown its own numbers; root the global ones. The ring keeps the last ``capacity`` events (4,096 by default; about
/// 1 KiB each for a plain timer once its line is written, so about 4 MiB, more for large groups);
/// older ones are forgotten, and a client that asks
/// for them gets a `timer.gap` notification (reason `ring`) naming the numbers it cannot have.
///
/// An event's notification line is written once, when it is first delivered or replayed, and
/// kept with it (``setLine(_:forSeq:isOwnerView:)``), so a thousand subscribers cost one JSON rendering.
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
        /// Its number among the events of its timer's owner (the event's `owner`): 1 for that
        /// user's first event. A user who does not see every timer sees this number, so the
        /// numbers it gets say nothing of other users' events.
        public var ownerSeq: UInt64 = 0
        /// Its line numbered ``ownerSeq`` once written, else `nil`.
        public var ownerLine: [UInt8]?
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
    /// The last number given among each user's events (``Entry/ownerSeq``).
    private var lastOwnerSeqs: [UInt32: UInt64] = [:]

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
        let ownerSeq = lastOwnerSeqs[event.owner, default: 0] + 1
        lastOwnerSeqs[event.owner] = ownerSeq
        let entry = Entry(seq: lastSeq, event: event, line: nil, ownerSeq: ownerSeq)
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
    ///   - isOwnerView: whether the line carries the owner's number (``Entry/ownerSeq``) rather
    ///     than `seq`.
    public mutating func setLine(_ line: [UInt8], forSeq seq: UInt64, isOwnerView: Bool = false) {
        guard let index = index(of: seq) else { return }
        if isOwnerView { storage[index].ownerLine = line } else { storage[index].line = line }
    }

    /// The last number `viewer` has been given: ``lastSeq`` for a viewer of every timer (`nil`),
    /// else the last of that user's own numbers (0 before its first event).
    ///
    /// - Parameter viewer: the user whose numbering counts, or `nil` for the global one.
    public func lastSeq(viewer: UInt32?) -> UInt64 {
        guard let viewer else { return lastSeq }
        return lastOwnerSeqs[viewer, default: 0]
    }

    /// The oldest number kept in `viewer`'s numbering (its last + 1 when none is kept).
    ///
    /// - Parameter viewer: the user whose numbering counts, or `nil` for the global one.
    /// - Complexity: O(n) in the events kept for a user; O(1) for the global numbering.
    public func firstSeq(viewer: UInt32?) -> UInt64 {
        guard let viewer else { return firstSeq }
        var first = lastSeq(viewer: viewer) + 1
        for entry in storage where entry.event.owner == viewer { first = min(first, entry.ownerSeq) }
        return first
    }

    /// The events kept after number `seq` of `viewer`'s numbering, oldest first: every event after
    /// it for the global numbering (`nil`), else that user's own events after it.
    ///
    /// - Parameters:
    ///   - seq: the last number the client has in that numbering; 0 for every event kept.
    ///   - viewer: the user whose numbering counts, or `nil` for the global one.
    /// - Returns: the entries, oldest first.
    /// - Complexity: O(n) in the events kept for a user; O(k) for the k returned otherwise.
    public func entries(after seq: UInt64, viewer: UInt32?) -> [Entry] {
        guard let viewer else { return entries(after: seq) }
        guard seq < lastSeq(viewer: viewer) else { return [] }
        return entries(after: 0).filter { $0.event.owner == viewer && $0.ownerSeq > seq }
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
