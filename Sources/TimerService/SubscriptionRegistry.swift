import Countdown

/// Who wants to hear about which `TimerEvent`s: the fan-out between the engine's events and the
/// clients. No I/O: the service asks it who receives an event and writes the lines itself.
///
/// A subscription names a scope (one timer, or every timer a requester may see), the event kinds it
/// wants and how long it lasts. `timer.wait` is one case: one timer, its ending kinds
/// (`finished`, `stopped`, `missed`), until the first of them.
///
/// Subscribers of an event are told in the order they subscribed. Adding and removing a
/// subscription are O(1) (hash tables keyed by subscriber and by timer; no list is scanned;
/// amortised for subscriptions to every timer, kept in an ordered array whose removed entries are
/// compacted away once they are half of it), so a client that disconnects with many waits open
/// costs one removal per wait.
///
/// ```swift
/// var registry = SubscriptionRegistry()
/// registry.subscribe(7, to: .timer(3), kinds: TimerEvent.Name.endings, lifetime: .untilFirstEvent)
/// for event in engine.takeEvents() {
///     for delivery in registry.deliveries(for: event) { print(delivery.subscriber, event.kind) }
/// }
/// ```
public struct SubscriptionRegistry: Sendable {
    /// Identifies a subscriber (for the daemon: one pending request or one connection).
    public typealias SubscriberID = UInt64

    /// Which timers a subscription covers.
    public enum Scope: Sendable, Hashable {
        /// One timer, by id.
        case timer(UInt64)
        /// Every timer of `owner`, or of every user when `owner` is `nil` (root).
        case everyTimer(owner: UInt32?)
    }

    /// How long a subscription lasts.
    public enum Lifetime: Sendable, Hashable {
        /// It ends with the first event delivered (a `timer.wait`).
        case untilFirstEvent
        /// It lasts until ``SubscriptionRegistry/unsubscribe(_:)``.
        case untilCancelled
    }

    /// One subscription.
    public struct Subscription: Sendable, Hashable {
        /// Which timers it covers.
        public var scope: Scope
        /// Which kinds of event it wants.
        public var kinds: Set<TimerEvent.Name>
        /// How long it lasts.
        public var lifetime: Lifetime
        /// Its place in subscription order (deliveries are in this order).
        var order: UInt64
    }

    /// What a subscription to every timer needs for matching an event: who, its order, its owner
    /// filter, its kinds as bits (``kindBit(_:)``; 0 once removed), whether it ends with its first
    /// event, and the owner's tag.
    private struct BroadEntry: Sendable {
        var subscriber: SubscriberID
        var order: UInt64
        var owner: UInt32?
        var kindBits: UInt64
        var endsAtFirstEvent: Bool
        var tag: UInt64?
        var isRemoved = false
    }

    /// The bit of `name` among ``TimerEvent/Name/allCases`` (at most 64 kinds; a later one matches
    /// through the last bit and is then checked against the kinds themselves).
    private static func kindBit(_ name: TimerEvent.Name) -> UInt64 {
        let index = TimerEvent.Name.allCases.firstIndex(of: name) ?? 63
        return 1 << UInt64(min(index, 63))
    }

    /// One subscriber to tell about an event.
    public struct Delivery: Sendable, Hashable {
        /// Who.
        public var subscriber: SubscriberID
        /// Whether this delivery ended the subscription (it was ``Lifetime/untilFirstEvent``).
        public var endsSubscription: Bool
        /// The tag given to ``SubscriptionRegistry/subscribe(_:to:kinds:lifetime:tag:)`` (the
        /// service: the subscriber's connection), or `nil`.
        public var tag: UInt64?

        /// A delivery to `subscriber`.
        ///
        /// - Parameters:
        ///   - subscriber: who.
        ///   - endsSubscription: whether it ended the subscription.
        ///   - tag: the subscription's tag, if any.
        public init(subscriber: SubscriberID, endsSubscription: Bool, tag: UInt64? = nil) {
            self.subscriber = subscriber
            self.endsSubscription = endsSubscription
            self.tag = tag
        }
    }

    private var subscriptions: [SubscriberID: Subscription] = [:]
    /// The tag of each subscription that has one.
    private var tags: [SubscriberID: UInt64] = [:]
    /// Subscribers of one timer, with their order: removing one is a hash-table removal.
    private var byTimer: [UInt64: [SubscriberID: UInt64]] = [:]
    /// Subscribers of every timer (of an owner) in subscription order, with what
    /// ``deliveries(for:)`` checks of each kept inline: matching an event against them is one pass
    /// over this array, with no hash probe, no hashing of the kind's name and no sort (orders only
    /// grow, so appending keeps the order; with 100 subscribers every event is 100 of them;
    /// docs/performance.md). A removed entry stays as a tombstone (``BroadEntry/isRemoved``)
    /// until tombstones are half of the array, then the array is compacted: removal is amortised O(1).
    private var broad: [BroadEntry] = []
    /// Where each every-timer subscriber is in ``broad``.
    private var broadIndex: [SubscriberID: Int] = [:]
    /// Tombstones in ``broad``.
    private var broadRemoved = 0
    private var nextOrder: UInt64 = 0
    /// How many stored entries the registry has read or written, for tests that check the cost of
    /// an operation by counting instead of timing.
    private(set) var entriesTouched = 0

    /// Creates an empty registry.
    public init() {}

    /// The number of subscriptions.
    public var count: Int { subscriptions.count }

    /// Whether `subscriber` has a subscription.
    ///
    /// - Parameter subscriber: the subscriber.
    public func isSubscribed(_ subscriber: SubscriberID) -> Bool { subscriptions[subscriber] != nil }

    /// Adds a subscription, replacing any that `subscriber` had.
    ///
    /// - Parameters:
    ///   - subscriber: who subscribes.
    ///   - scope: which timers.
    ///   - kinds: which kinds of event.
    ///   - lifetime: how long it lasts.
    ///   - tag: a value handed back with each ``Delivery`` (the service passes the subscriber's
    ///     connection, so the fan-out needs no look-up per subscriber), or `nil`.
    public mutating func subscribe(
        _ subscriber: SubscriberID, to scope: Scope, kinds: Set<TimerEvent.Name>, lifetime: Lifetime,
        tag: UInt64? = nil
    ) {
        unsubscribe(subscriber)
        let order = nextOrder
        nextOrder += 1
        subscriptions[subscriber] = Subscription(scope: scope, kinds: kinds, lifetime: lifetime, order: order)
        if let tag { tags[subscriber] = tag }
        switch scope {
        case .timer(let id): byTimer[id, default: [:]][subscriber] = order
        case .everyTimer(let owner):
            broadIndex[subscriber] = broad.count
            broad.append(
                BroadEntry(
                    subscriber: subscriber, order: order, owner: owner,
                    kindBits: kinds.reduce(0) { $0 | Self.kindBit($1) }, endsAtFirstEvent: lifetime == .untilFirstEvent,
                    tag: tag))
        }
        entriesTouched += 2
    }

    /// Removes `subscriber`'s subscription (its client went away, or it was cancelled).
    ///
    /// - Parameter subscriber: the subscriber.
    /// - Returns: whether it had one.
    /// - Complexity: O(1): two hash-table removals, whatever the number of subscribers.
    @discardableResult
    public mutating func unsubscribe(_ subscriber: SubscriberID) -> Bool {
        guard let subscription = subscriptions.removeValue(forKey: subscriber) else { return false }
        entriesTouched += 1
        switch subscription.scope {
        case .timer(let id):
            byTimer[id]?[subscriber] = nil
            if byTimer[id]?.isEmpty == true { byTimer[id] = nil }
        case .everyTimer:
            if let index = broadIndex.removeValue(forKey: subscriber) {
                broad[index].isRemoved = true
                broad[index].kindBits = 0
                broadRemoved += 1
                if broadRemoved >= 16, broadRemoved * 2 >= broad.count { compactBroad() }
            }
        }
        if !tags.isEmpty { tags[subscriber] = nil }
        entriesTouched += 1
        return true
    }

    /// Drops the tombstones of ``broad`` and renumbers ``broadIndex``: O(n), once per n/2 removals.
    private mutating func compactBroad() {
        broad.removeAll { $0.isRemoved }
        broadRemoved = 0
        for (index, entry) in broad.enumerated() { broadIndex[entry.subscriber] = index }
    }

    /// Whether `subscriber`'s subscription covers `event` (its scope and its kinds): what a replay
    /// of past events asks (``EventRing``).
    ///
    /// - Parameters:
    ///   - subscriber: the subscriber.
    ///   - event: a past event.
    /// - Returns: `false` when `subscriber` has no subscription.
    public func covers(_ subscriber: SubscriberID, _ event: TimerEvent) -> Bool {
        guard let subscription = subscriptions[subscriber], subscription.kinds.contains(event.kind.name) else {
            return false
        }
        switch subscription.scope {
        case .timer(let id): return id == event.timer.id
        case .everyTimer(let owner): return owner == nil || owner == event.owner
        }
    }

    /// The subscribers to tell about `event`, in subscription order; subscriptions that end with it
    /// are removed.
    ///
    /// - Parameter event: what happened.
    /// - Returns: who receives it.
    /// - Complexity: O(b + t log t) for the b subscriptions to every timer and the t of the timer.
    public mutating func deliveries(for event: TimerEvent) -> [Delivery] {
        var result: [Delivery] = []
        appendDeliveries(for: event, to: &result)
        return result
    }

    /// Appends to `result` the subscribers to tell about `event`, in subscription order (as
    /// ``deliveries(for:)``, into a buffer the caller reuses from event to event).
    ///
    /// - Parameters:
    ///   - event: what happened.
    ///   - result: where the deliveries are appended.
    /// - Complexity: O(b + t log t) for the b subscriptions to every timer and the t of the timer:
    ///   the every-timer ones are already in order (one pass, no sort), the one-timer ones are
    ///   sorted and merged in.
    package mutating func appendDeliveries(for event: TimerEvent, to result: inout [Delivery]) {
        let name = event.kind.name
        let bit = Self.kindBit(name)
        // A kind past the 63rd shares the last bit with others: check the kinds themselves then.
        let bitIsExact = bit != 1 << 63
        let first = result.count
        var ones: [(order: UInt64, delivery: Delivery)] = []
        if let subscribers = byTimer[event.timer.id] {
            for (subscriber, order) in subscribers {
                entriesTouched += 1
                guard let subscription = subscriptions[subscriber], subscription.kinds.contains(name) else { continue }
                let delivery = Delivery(
                    subscriber: subscriber, endsSubscription: subscription.lifetime == .untilFirstEvent,
                    tag: tags.isEmpty ? nil : tags[subscriber])
                ones.append((order, delivery))
            }
            if ones.count > 1 { ones.sort { $0.order < $1.order } }
        }
        var next = 0
        var endsAny = !ones.isEmpty
        entriesTouched += broad.count
        for index in broad.indices {
            let entry = broad[index]
            guard entry.kindBits & bit != 0, entry.owner == nil || entry.owner == event.owner else { continue }
            if !bitIsExact, subscriptions[entry.subscriber]?.kinds.contains(name) != true { continue }
            while next < ones.count, ones[next].order < entry.order {
                result.append(ones[next].delivery)
                next += 1
            }
            endsAny = endsAny || entry.endsAtFirstEvent
            result.append(
                Delivery(subscriber: entry.subscriber, endsSubscription: entry.endsAtFirstEvent, tag: entry.tag))
        }
        while next < ones.count {
            result.append(ones[next].delivery)
            next += 1
        }
        // Ended subscriptions go after the pass (a removal may compact ``broad``).
        guard endsAny else { return }
        for index in first..<result.count where result[index].endsSubscription {
            unsubscribe(result[index].subscriber)
        }
    }
}

extension TimerEvent.Name {
    /// The kinds that end a timer: what `timer.wait` waits for.
    public static let endings: Set<TimerEvent.Name> = [.finished, .stopped, .missed, .unanswered]
}
