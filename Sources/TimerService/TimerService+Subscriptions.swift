import Countdown
import TimerModel
import TimerProtocol

/// A `timer.subscribe` that is open: who it counts against (``WaitLimits``) and where its
/// notifications go.
struct StreamSubscription: Sendable {
    /// The subscriber's uid.
    var uid: UInt32
    /// The connection it came on.
    var connection: UInt64
    /// Whose event numbers it is shown: `nil` (a subscriber that sees every timer, root) the
    /// global numbers, else its own user's (``EventRing/Entry/ownerSeq``).
    var viewer: UInt32?
}

// `timer.subscribe` and `timer.unsubscribe` (docs/protocol.md, "Events"), and the fan-out of the
// engine's events to subscriptions and waits.
extension TimerService {
    /// Runs `timer.subscribe`: registers a subscription under the request's token
    /// (``RequestContext/waiter``), queues the replay that `afterSeq` asks for, and returns the
    /// result `{"seq":N,"subscription":S}`.
    ///
    /// Scope: `timer` absent, `null` or `"all"` is every timer the requester may see (its own; root:
    /// everyone's); an id or a name is that one timer, found as `timer.status` finds it (so another
    /// user's timer is "not found"). `events` filters kinds by their wire names; absent is every kind.
    /// A subscription counts as one pending wait against ``waitLimits``.
    ///
    /// - Throws: ``RPCError`` (`-32602` for bad parameters or an `afterSeq` past the last event,
    ///   `-32004` past a limit), `CountdownError.timerNotFound`.
    mutating func subscribe(_ params: JSONMembers, context: RequestContext) throws -> [UInt8] {
        let method = RPCMethod.timerSubscribe
        try Self.allowOnly(["afterSeq", "events", "timer"], in: params, method: method)
        let scope: SubscriptionRegistry.Scope
        switch params["timer"] {
        case .none, .some(.null), .some(.string("all")):
            scope = .everyTimer(owner: context.requester)
        default:
            let reference = try Self.timerReference(params.filter { $0.key == "timer" }, method)
            scope = .timer(try engine.status(reference, requester: context.requester).id)
        }
        let kinds = try Self.eventKinds(params["events"])
        var afterSeq: UInt64?
        switch params["afterSeq"] {
        case .none, .some(.null): afterSeq = nil
        case .some(.number(let number)) where number >= 0 && number == number.rounded() && number < 9e15:
            afterSeq = UInt64(number)
        case .some(let other): throw Self.typeError("afterSeq", "a whole number ≥ 0", other, method)
        }
        // The requester's own numbering (root's is global): the refusal names only its own count.
        let viewer = context.requester
        let lastSeq = events.lastSeq(viewer: viewer)
        if let afterSeq, afterSeq > lastSeq {
            throw RPCError(
                .invalidParams,
                "afterSeq \(afterSeq) is past the last event (\(lastSeq)): timerd restarted since "
                    + "(numbers start again at 1); subscribe without afterSeq")
        }
        try checkWaitLimits(for: context)
        let subscriber = context.waiter
        subscriptions.subscribe(
            subscriber, to: scope, kinds: kinds, lifetime: .untilCancelled, tag: context.connection)
        streams[subscriber] = StreamSubscription(uid: context.uid, connection: context.connection, viewer: viewer)
        let onConnection = streamsPerConnection[context.connection, default: 0] + 1
        streamsPerConnection[context.connection] = onConnection
        if onConnection == 2 { connectionsWithSeveralStreams += 1 }
        waitsPerConnection[context.connection, default: 0] += 1
        waitsPerUser[context.uid, default: 0] += 1
        if let afterSeq { replay(after: afterSeq, to: subscriber, connection: context.connection, viewer: viewer) }
        var writer = JSONBytesWriter(capacity: 48)
        writer.raw(#"{"seq":"#)
        writer.integer(Int64(clamping: lastSeq))
        writer.raw(#","subscription":"#)
        writer.integer(Int64(clamping: subscriber))
        writer.raw("}")
        return writer.bytes
    }

    /// Runs `timer.unsubscribe`: ends subscription `S` of the requester's connection.
    ///
    /// - Returns: the subscription ended and the result `{"unsubscribed":true}`.
    /// - Throws: ``RPCError`` `-32602` when `subscription` is missing, not a number, or not a
    ///   subscription of this connection.
    mutating func unsubscribe(_ params: JSONMembers, context: RequestContext) throws
        -> (SubscriptionRegistry.SubscriberID, [UInt8])
    {
        let method = RPCMethod.timerUnsubscribe
        try Self.allowOnly(["subscription"], in: params, method: method)
        guard case .some(.number(let number)) = params["subscription"] else {
            if let other = params["subscription"] { throw Self.typeError("subscription", "a number", other, method) }
            throw RPCError(
                .invalidParams, "timer.unsubscribe needs \"subscription\": the number timer.subscribe returned")
        }
        guard number >= 0, number == number.rounded(), number < 9e15,
            let stream = streams[UInt64(number)], stream.connection == context.connection,
            stream.uid == context.uid
        else {
            throw RPCError(
                .invalidParams, "no subscription \(DurationFormatter.number(number)) on this connection")
        }
        let subscriber = UInt64(number)
        cancelSubscription(subscriber)
        return (subscriber, Array(#"{"unsubscribed":true}"#.utf8))
    }

    /// Ends a subscription (its client unsubscribed or went away); nothing when there is none.
    ///
    /// - Parameter subscriber: the subscription's number.
    /// - Complexity: O(1).
    public mutating func cancelSubscription(_ subscriber: SubscriptionRegistry.SubscriberID) {
        guard let stream = streams.removeValue(forKey: subscriber) else { return }
        subscriptions.unsubscribe(subscriber)
        let streamsLeft = streamsPerConnection[stream.connection, default: 1] - 1
        streamsPerConnection[stream.connection] = streamsLeft > 0 ? streamsLeft : nil
        if streamsLeft == 1 { connectionsWithSeveralStreams -= 1 }
        let onConnection = waitsPerConnection[stream.connection, default: 1] - 1
        waitsPerConnection[stream.connection] = onConnection > 0 ? onConnection : nil
        let ofUser = waitsPerUser[stream.uid, default: 1] - 1
        waitsPerUser[stream.uid] = ofUser > 0 ? ofUser : nil
    }

    /// Whether `subscriber` is an open `timer.subscribe`.
    ///
    /// - Parameter subscriber: the token of the request that subscribed.
    public func hasSubscription(_ subscriber: SubscriptionRegistry.SubscriberID) -> Bool {
        streams[subscriber] != nil
    }

    /// The notifications queued since the last call, in order: the daemon writes each on its
    /// connection after the turn's commit.
    ///
    /// - Returns: the notifications; each event's line is shared by all its subscribers.
    /// - Complexity: O(1) (the buffer is handed over).
    public mutating func takeNotifications() -> [EventNotification] {
        guard !notifications.isEmpty else { return [] }
        defer { notifications = [] }
        return notifications
    }

    /// Whether notifications are waiting for ``takeNotifications()``.
    public var hasPendingNotifications: Bool { !notifications.isEmpty }

    /// Takes the engine's events, numbers them into the ring and fans them out through
    /// ``subscriptions``: each pending `timer.wait` whose timer ended gets its reply, each
    /// matching `timer.subscribe` a notification (one per connection per event, however many of
    /// its subscriptions match).
    ///
    /// - Returns: the wait replies to send, in the order the events happened.
    /// - Complexity: O(k log k) per event for its k subscribers, plus one line written per event
    ///   that has any.
    mutating func routeEvents() -> [(waiter: WaiterID, reply: [UInt8])] {
        route(engine.takeEvents())
    }

    /// Numbers and fans out an event that did not come from the engine's own operations (for
    /// example the result of an on-finish action that the daemon ran), exactly as the engine's
    /// events are: into the ring, to matching subscriptions (``takeNotifications()``) and waits.
    /// The engine's pending events go first, so numbers follow the order things happened.
    ///
    /// - Parameter event: what happened; its kind needs a case in ``eventMembers(of:)``.
    /// - Returns: the `timer.wait` replies it ends (none unless its kind is an ending).
    public mutating func publish(_ event: TimerEvent) -> [(waiter: WaiterID, reply: [UInt8])] {
        route(engine.takeEvents() + [event])
    }

    /// Numbers `events` into the ring and fans them out.
    ///
    /// Per (event, subscriber) pair this costs one pass step of the registry's ordered array and
    /// one appended notification sharing the event's one line: the subscriber's connection comes
    /// with the delivery (the registry's tag), a wait is looked up only for a delivery that ends
    /// its subscription (waits are the only ones that do), and the set of connections already
    /// served is kept only while some connection has two subscriptions (docs/performance.md).
    private mutating func route(_ events: [TimerEvent]) -> [(waiter: WaiterID, reply: [UInt8])] {
        var wakeups: [(waiter: WaiterID, reply: [UInt8])] = []
        var deliveries = deliveryBuffer
        deliveryBuffer = []
        defer {
            deliveries.removeAll(keepingCapacity: true)
            deliveryBuffer = deliveries
        }
        for event in events {
            timerCounts.count(event.kind)
            let seq = self.events.append(event)
            deliveries.removeAll(keepingCapacity: true)
            subscriptions.appendDeliveries(for: event, to: &deliveries)
            guard !deliveries.isEmpty else { continue }
            var line: [UInt8]?
            // The owner's own numbering, for its subscribers (root's are global: `line`).
            var ownerLine: [UInt8]?
            // One notification per connection per event: needed only while a connection has two.
            var served: Set<UInt64>?
            if connectionsWithSeveralStreams > 0, deliveries.count > 1 {
                served = Set(minimumCapacity: deliveries.count)
            }
            for delivery in deliveries {
                if delivery.endsSubscription {
                    if let wait = removeWait(delivery.subscriber), let timer = try? json(event.timer) {
                        wakeups.append((delivery.subscriber, Self.resultLine(id: wait.id, resultJSON: timer)))
                    }
                    continue
                }
                let stream = streams[delivery.subscriber]
                guard let connection = delivery.tag ?? stream?.connection else { continue }
                if served != nil, served?.insert(connection).inserted == false { continue }
                if stream?.viewer != nil {
                    if ownerLine == nil {
                        ownerLine = ringLine(seq: seq, isOwnerView: true)
                        if ownerLine == nil { break }
                    }
                    guard let ownerLine else { break }
                    let ownerSeq = self.events.lastSeq(viewer: event.owner)
                    notifications.append(
                        EventNotification(
                            subscriber: delivery.subscriber, connection: connection, seq: ownerSeq, line: ownerLine))
                    continue
                }
                if line == nil {
                    line = ringLine(seq: seq)
                    if line == nil { break }
                }
                guard let line else { break }
                notifications.append(
                    EventNotification(subscriber: delivery.subscriber, connection: connection, seq: seq, line: line))
            }
        }
        return wakeups
    }

    /// Queues for a new subscription the events after `afterSeq` it covers, preceded by a
    /// `timer.gap` (reason `ring`) when some of them are already forgotten.
    private mutating func replay(
        after afterSeq: UInt64, to subscriber: SubscriptionRegistry.SubscriberID, connection: UInt64,
        viewer: UInt32?
    ) {
        let firstSeq = events.firstSeq(viewer: viewer)
        if afterSeq + 1 < firstSeq {
            notifications.append(
                EventNotification(
                    subscriber: subscriber, connection: connection, seq: nil,
                    line: Self.gapLine(fromSeq: afterSeq + 1, toSeq: firstSeq - 1, reason: .ring)))
        }
        let isOwnerView = viewer != nil
        for entry in events.entries(after: afterSeq, viewer: viewer) where subscriptions.covers(subscriber, entry.event)
        {
            guard let line = ringLine(seq: entry.seq, isOwnerView: isOwnerView) else { continue }
            notifications.append(
                EventNotification(
                    subscriber: subscriber, connection: connection, seq: isOwnerView ? entry.ownerSeq : entry.seq,
                    line: line))
        }
    }

    /// The kinds named by `events` (wire names), or every kind when it is absent.
    package static func eventKinds(_ value: JSONValue?) throws -> Set<TimerEvent.Name> {
        let known = TimerEvent.Name.allCases.map(\.rawValue).joined(separator: ", ")
        switch value {
        case .none, .some(.null):
            return Set(TimerEvent.Name.allCases)
        case .some(.array(let items)) where !items.isEmpty:
            var kinds: Set<TimerEvent.Name> = []
            for item in items {
                guard case .string(let text) = item, let kind = TimerEvent.Name(rawValue: text) else {
                    let shown: String
                    if case .string(let text) = item { shown = "\"\(text)\"" } else { shown = "a \(item.typeName)" }
                    throw RPCError(
                        .invalidParams, "unknown event kind \(shown) in \"events\" of timer.subscribe; kinds: \(known)")
                }
                kinds.insert(kind)
            }
            return kinds
        case .some(let other):
            throw RPCError(
                .invalidParams,
                "\"events\" of timer.subscribe must be a non-empty array of kinds (\(known)), got \(other.typeName)")
        }
    }
}
