import Countdown
import TimerModel
import TimerProtocol

/// One notification line for one subscriber: what ``TimerService/takeNotifications()`` hands the
/// daemon to queue on a connection.
public struct EventNotification: Sendable {
    /// The subscription it is for.
    public var subscriber: SubscriptionRegistry.SubscriberID
    /// The connection that subscription came on.
    public var connection: UInt64
    /// The event's sequence number; `nil` for a `timer.gap` line.
    public var seq: UInt64?
    /// The JSON-RPC notification, without the newline.
    public var line: [UInt8]

    /// A notification for one subscriber (timerd's shared mode builds its own from the outbox).
    ///
    /// - Parameters:
    ///   - subscriber: the subscription.
    ///   - connection: its connection.
    ///   - seq: the event's number, `nil` for a gap line.
    ///   - line: the notification line, without the newline.
    package init(subscriber: SubscriptionRegistry.SubscriberID, connection: UInt64, seq: UInt64?, line: [UInt8]) {
        self.subscriber = subscriber
        self.connection = connection
        self.seq = seq
        self.line = line
    }
}

/// Why a subscriber did not get some events (the `reason` of `timer.gap`).
public enum EventGapReason: String, Sendable, Hashable {
    /// They were older than the ring of recent events keeps (``EventRing``): `afterSeq` asked for
    /// events already forgotten.
    case ring
    /// The subscriber read too slowly: its queue of unsent notifications passed its limit and was
    /// dropped (docs/protocol.md, "Events").
    case slow
}

// The notification lines (docs/protocol.md, "Events"), written with the product's one JSON writer,
// keys sorted as in every reply.
extension TimerService {
    /// The members a kind of event adds to the `params` of its `timer.event` notification, beside
    /// `at`, `event`, `seq` and `timer`.
    ///
    /// A new kind of event adds its case here (the `switch` is exhaustive, so the compiler asks):
    /// each member is a key and its value as JSON text. Members are sorted by key when written.
    ///
    /// - Parameter kind: what happened.
    /// - Returns: the extra members, possibly none.
    public static func eventMembers(of kind: TimerEvent.Kind) -> [(key: String, json: [UInt8])] {
        switch kind {
        case .steppedToChild(let child):
            var writer = JSONBytesWriter(capacity: 8)
            writer.integer(Int64(child))
            return [("child", writer.bytes)]
        case .action(let report):
            return [("action", report.jsonObject)]
        case .extended(let seconds):
            // Seconds as applied: negative when time was taken away (clamped to what was left).
            var writer = JSONBytesWriter(capacity: 24)
            if (try? writer.number(seconds)) == nil { return [] }
            return [("by", writer.bytes)]
        case .renamed(let previous):
            var writer = JSONBytesWriter(capacity: 24)
            if let previous { writer.string(previous) } else { writer.null() }
            return [("from", writer.bytes)]
        case .elapsed(let missed):
            var writer = JSONBytesWriter(capacity: 8)
            writer.integer(Int64(missed))
            return [("missed", writer.bytes)]
        case .ringing(let ring):
            var writer = JSONBytesWriter(capacity: 8)
            writer.integer(Int64(ring))
            return [("ring", writer.bytes)]
        case .snoozed(let seconds):
            var writer = JSONBytesWriter(capacity: 24)
            if (try? writer.number(seconds)) == nil { return [] }
            return [("for", writer.bytes)]
        case .started, .paused, .resumed, .finished, .stopped, .missed, .restarted, .removed, .beat, .warning,
            .unanswered:
            return []
        }
    }

    /// The `timer.event` notification of `event`, numbered `seq`:
    /// `{"jsonrpc":"2.0","method":"timer.event","params":{"at":…,"event":…,"seq":…,"timer":{…}}}`.
    ///
    /// - Parameters:
    ///   - event: what happened.
    ///   - seq: its sequence number.
    /// - Returns: the line, without the newline.
    /// - Throws: `JSONBytesWriter.NonFiniteNumber` for a NaN or infinite figure (the engine makes none).
    /// - Complexity: O(n) in the size of the timer object.
    mutating func notificationLine(for event: TimerEvent, seq: UInt64) throws -> [UInt8] {
        var members = Self.eventMembers(of: event.kind)
        var text = JSONBytesWriter(capacity: 48)
        text.string(timestamps.string(from: event.date))
        members.append(("at", text.bytes))
        text = JSONBytesWriter(capacity: 16)
        text.string(event.kind.name.rawValue)
        members.append(("event", text.bytes))
        text = JSONBytesWriter(capacity: 24)
        text.integer(Int64(clamping: seq))
        members.append(("seq", text.bytes))
        members.append(("timer", try json(event.timer)))
        return Self.notificationLine(members: members)
    }

    /// The `timer.event` notification line with `members` (each already JSON) as its params, in key
    /// order, as JSONEncoder with sorted keys writes them; shared by the one-host service and the
    /// shared (PostgreSQL) host, so both send the same bytes.
    ///
    /// - Parameter members: the params' members: keys and their JSON values, in any order.
    /// - Returns: the line, without the newline.
    /// - Complexity: O(m log m + n) for m members of n bytes in all.
    package static func notificationLine(members: [(key: String, json: [UInt8])]) -> [UInt8] {
        let members = members.sorted { $0.key < $1.key }
        var writer = JSONBytesWriter(capacity: members.reduce(80) { $0 + $1.key.utf8.count + $1.json.count + 4 })
        writer.raw(#"{"jsonrpc":"2.0","method":"timer.event","params":{"#)
        for (index, member) in members.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            writer.string(member.key)
            writer.bytes.append(UInt8(ascii: ":"))
            writer.bytes += member.json
        }
        writer.raw("}}")
        return writer.bytes
    }

    /// The `timer.gap` notification: events `fromSeq` … `toSeq` (inclusive) were lost to this
    /// subscriber: `{"jsonrpc":"2.0","method":"timer.gap","params":{"fromSeq":A,"reason":…,"toSeq":B}}`.
    ///
    /// - Parameters:
    ///   - fromSeq: the first number lost.
    ///   - toSeq: the last number lost (at least `fromSeq`).
    ///   - reason: why.
    /// - Returns: the line, without the newline.
    public static func gapLine(fromSeq: UInt64, toSeq: UInt64, reason: EventGapReason) -> [UInt8] {
        var writer = JSONBytesWriter(capacity: 112)
        writer.raw(#"{"jsonrpc":"2.0","method":"timer.gap","params":{"fromSeq":"#)
        writer.integer(Int64(clamping: fromSeq))
        writer.raw(#","reason":"#)
        writer.string(reason.rawValue)
        writer.raw(#","toSeq":"#)
        writer.integer(Int64(clamping: toSeq))
        writer.raw("}}")
        return writer.bytes
    }

    /// The line of ring entry `seq`, written once per numbering and kept in the ring.
    ///
    /// - Parameters:
    ///   - seq: a number the ring still keeps.
    ///   - isOwnerView: whether the line carries the owner's own number
    ///     (``EventRing/Entry/ownerSeq``, what a user who sees only its timers is shown) rather
    ///     than the global one.
    /// - Returns: the line, or `nil` when it is forgotten (or cannot be written).
    mutating func ringLine(seq: UInt64, isOwnerView: Bool = false) -> [UInt8]? {
        guard let entry = events.entry(seq: seq) else { return nil }
        if let line = isOwnerView ? entry.ownerLine : entry.line { return line }
        guard let line = try? notificationLine(for: entry.event, seq: isOwnerView ? entry.ownerSeq : seq) else {
            return nil
        }
        events.setLine(line, forSeq: seq, isOwnerView: isOwnerView)
        return line
    }
}
