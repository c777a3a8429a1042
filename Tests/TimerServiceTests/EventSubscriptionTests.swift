import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// A service on a manual clock at boot 1 s, 2026-11-29T15:17:33Z, keeping `ring` events.
private func makeService(ring: Int = EventRing.defaultCapacity) -> (service: TimerService, clock: ManualClock) {
    let clock = ManualClock(
        boot: BootInstant(nanoseconds: 1_000_000_000), wall: Date(timeIntervalSince1970: 1_795_965_453))
    return (TimerService(engine: TimerEngine(clock: clock), pid: 1, eventRingCapacity: ring), clock)
}

extension TimerService {
    /// Sends `line` as `uid` on `connection` under `waiter`.
    fileprivate mutating func send(
        _ line: String, uid: UInt32 = 1_000, connection: UInt64 = 1, waiter: WaiterID = 1
    ) -> ServiceOutcome {
        handle(line: Array(line.utf8), context: RequestContext(uid: uid, waiter: waiter, connection: connection))
    }

    /// The `(connection, event kind, seq)` of the notifications taken now (a gap: kind `gap`).
    fileprivate mutating func taken() -> [(UInt64, String, UInt64?)] {
        takeNotifications().map { notification in
            let params = JSONValue(parsing: notification.line).flatMap { value -> [String: JSONValue]? in
                guard case .object(let members) = value, case .object(let params)? = members["params"] else {
                    return nil
                }
                return params
            }
            let kind: String
            if case .string(let name)? = params?["event"] { kind = name } else { kind = "gap" }
            return (notification.connection, kind, notification.seq)
        }
    }
}

/// The result object of a reply line.
private func result(_ reply: [UInt8]?) -> JSONValue? {
    guard let reply, case .object(let members)? = JSONValue(parsing: reply) else { return nil }
    return members["result"]
}

/// The error code of a reply line.
private func errorCode(_ reply: [UInt8]?) -> Double? {
    guard let reply, case .object(let members)? = JSONValue(parsing: reply),
        case .object(let error)? = members["error"], case .number(let code)? = error["code"]
    else { return nil }
    return code
}

private let subscribeAll = #"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe"}"#

private func start(_ name: String, _ seconds: Int = 60) -> String {
    #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[\#(seconds)],"name":"\#(name)"}}"#
}

@Suite("timer.subscribe and timer.unsubscribe in the service")
struct EventSubscriptionTests {
    @Test("A subscriber to all hears its own timers' events only; root hears everyone's")
    func isolation() {
        var (service, _) = makeService()
        #expect(result(service.send(subscribeAll, uid: 1_000, connection: 1, waiter: 10).reply) != nil)
        #expect(result(service.send(subscribeAll, uid: 0, connection: 3, waiter: 30).reply) != nil)
        _ = service.send(start("theirs"), uid: 2_000, connection: 2, waiter: 20)
        _ = service.send(start("mine"), uid: 1_000, connection: 4, waiter: 40)
        // Global seq 1 is uid 2000's start: only root's connection 3 hears it; global seq 2 is
        // uid 1000's first event: uid 1000 hears it as its own seq 1 (docs/protocol.md: each user's
        // events are numbered in that user's sequence), root as global 2.
        let taken = service.taken()
        #expect(taken.map(\.0) == [3, 1, 3])
        #expect(taken.map(\.1) == ["started", "started", "started"])
        #expect(taken.map(\.2) == [1, 1, 2])
        let lines = service.events.entries(after: 0).map { ($0.line, $0.ownerLine) }
        #expect(lines.count == 2)
        // The user's line carries its own number; root's the global one.
        #expect(lines[1].1.map { String(decoding: $0, as: UTF8.self).contains(#""seq":1,"#) } == true)
        #expect(lines[1].0.map { String(decoding: $0, as: UTF8.self).contains(#""seq":2,"#) } == true)
    }

    /// A user's numbers say nothing of other users' events: uid 1000 sees 1, 2, 3 for its three
    /// events among uid 2000's twenty; its `afterSeq` refusal names its own last number (3), not
    /// the global count (23); its replay and ring gap are in its own numbers; root's stay global.
    @Test("Each user's events are numbered in that user's own sequence; root's view is global")
    func perUserNumbers() {
        var (service, _) = makeService(ring: 10)
        for index in 1...23 {
            let uid: UInt32 = index % 8 == 0 ? 1_000 : 2_000  // uid 1000: global 8, 16 …
            _ = service.send(start("t\(index)"), uid: uid, connection: 2, waiter: WaiterID(index))
        }
        // uid 1000 has global events 8 and 16 (own 1, 2); one more makes its own 3 (global 24).
        _ = service.send(start("mine"), uid: 1_000, connection: 2, waiter: 99)
        _ = service.taken()
        let subscribed = service.send(subscribeAll, uid: 1_000, connection: 1, waiter: 100).reply
        #expect(result(subscribed) == .object(["seq": .number(3), "subscription": .number(100)]))
        let rootSubscribed = service.send(subscribeAll, uid: 0, connection: 3, waiter: 101).reply
        #expect(result(rootSubscribed) == .object(["seq": .number(24), "subscription": .number(101)]))
        let past = service.send(
            #"{"jsonrpc":"2.0","id":10,"method":"timer.subscribe","params":{"afterSeq":4}}"#, uid: 1_000,
            connection: 1, waiter: 102
        ).reply
        #expect(
            past.map { String(decoding: $0, as: UTF8.self) }
                == #"{"error":{"code":-32602,"message":"afterSeq 4 is past the last event (3): timerd restarted since (numbers start again at 1); subscribe without afterSeq"},"id":10,"jsonrpc":"2.0"}"#
        )
        // The ring of 10 keeps global 15…24: uid 1000's own 2 (global 16) and 3 (global 24); its
        // own 1 (global 8) is forgotten: afterSeq 0 gets a gap 1…1, then 2 and 3.
        _ = service.send(
            #"{"jsonrpc":"2.0","id":11,"method":"timer.subscribe","params":{"afterSeq":0}}"#, uid: 1_000,
            connection: 4, waiter: 103)
        let replay = service.taken()
        #expect(replay.map(\.1) == ["gap", "started", "started"])
        #expect(replay.map(\.2) == [nil, 2, 3])
        #expect(
            service.events.firstSeq(viewer: 1_000) == 2 && service.events.lastSeq(viewer: 1_000) == 3
                && service.events.lastSeq(viewer: nil) == 24)
    }

    @Test("Another user's timer cannot be subscribed to: it is not found (-32001)")
    func foreignTimer() {
        var (service, _) = makeService()
        _ = service.send(start("theirs"), uid: 2_000, connection: 2)
        let reply = service.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe","params":{"timer":"theirs"}}"#, uid: 1_000,
            waiter: 5
        ).reply
        #expect(errorCode(reply) == -32001)
        #expect(!service.hasSubscription(5))
    }

    @Test("One timer and a kind filter: a group's step and finish, nothing of other timers")
    func oneTimerFiltered() {
        var (service, clock) = makeService()
        _ = service.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[10,5],"name":"g"}}"#, waiter: 1)
        _ = service.send(start("other"), waiter: 2)
        let subscribed = service.send(
            #"{"jsonrpc":"2.0","id":3,"method":"timer.subscribe","params":{"timer":"g","events":["step","finished"]}}"#,
            waiter: 3)
        // Two starts came first, so the result's seq is 2 and the subscription is the request's token.
        #expect(
            result(subscribed.reply) == .object(["seq": .number(2), "subscription": .number(3)]))
        #expect(subscribed.newSubscription == 3)
        _ = service.send(#"{"jsonrpc":"2.0","id":4,"method":"timer.pause","params":{"timer":"g"}}"#, waiter: 4)
        _ = service.send(#"{"jsonrpc":"2.0","id":5,"method":"timer.resume","params":{"timer":"g"}}"#, waiter: 5)
        clock.advance(bySeconds: 15)
        _ = service.fireDueTimers()
        // seq 3 pause and 4 resume are not asked for; 5 is g's step at 10 s, 6 its finish at 15 s
        // ("other" runs 60 s).
        let taken = service.taken()
        #expect(taken.map(\.1) == ["step", "finished"])
        #expect(taken.map(\.2) == [5, 6])
    }

    @Test("afterSeq replays what the subscription covers, after a ring gap for what is forgotten")
    func replayAndGap() {
        var (service, _) = makeService(ring: 3)
        for index in 1...5 { _ = service.send(start("t\(index)"), waiter: WaiterID(index)) }
        _ = service.taken()  // nobody was subscribed
        let reply = service.send(
            #"{"jsonrpc":"2.0","id":9,"method":"timer.subscribe","params":{"afterSeq":1}}"#, waiter: 9
        ).reply
        #expect(result(reply) == .object(["seq": .number(5), "subscription": .number(9)]))
        // Ring of 3 keeps 3…5; the client has 1, so 2 is lost (a gap 2…2), then 3, 4, 5.
        let taken = service.taken()
        #expect(taken.map(\.1) == ["gap", "started", "started", "started"])
        #expect(taken.map(\.2) == [nil, 3, 4, 5])
        #expect(
            service.takeNotifications().isEmpty
                && TimerService.gapLine(fromSeq: 2, toSeq: 2, reason: .ring)
                    == Array(
                        #"{"jsonrpc":"2.0","method":"timer.gap","params":{"fromSeq":2,"reason":"ring","toSeq":2}}"#.utf8
                    )
        )
        // afterSeq past the last event: the daemon restarted since.
        let past = service.send(
            #"{"jsonrpc":"2.0","id":10,"method":"timer.subscribe","params":{"afterSeq":6}}"#, waiter: 10
        ).reply
        #expect(errorCode(past) == -32602)
    }

    @Test("A connection hears each event once however many of its subscriptions cover it")
    func oncePerConnection() {
        var (service, _) = makeService()
        _ = service.send(subscribeAll, connection: 1, waiter: 1)
        _ = service.send(start("tea"), connection: 2, waiter: 2)
        _ = service.taken()
        _ = service.send(
            #"{"jsonrpc":"2.0","id":3,"method":"timer.subscribe","params":{"timer":"tea"}}"#, connection: 1, waiter: 3)
        _ = service.send(#"{"jsonrpc":"2.0","id":4,"method":"timer.stop","params":{"timer":"tea"}}"#, waiter: 4)
        #expect(service.taken().map(\.0) == [1])
    }

    @Test("unsubscribe ends a subscription of this connection only; it frees its wait slot")
    func unsubscribe() {
        var (service, _) = makeService()
        service.waitLimits = WaitLimits(perConnection: 1, perUser: 10)
        _ = service.send(subscribeAll, connection: 1, waiter: 7)
        // The subscription holds the connection's one slot.
        #expect(errorCode(service.send(subscribeAll, connection: 1, waiter: 8).reply) == -32004)
        let foreign = service.send(
            #"{"jsonrpc":"2.0","id":2,"method":"timer.unsubscribe","params":{"subscription":7}}"#, connection: 2)
        #expect(errorCode(foreign.reply) == -32602 && service.hasSubscription(7))
        let own = service.send(
            #"{"jsonrpc":"2.0","id":3,"method":"timer.unsubscribe","params":{"subscription":7}}"#, connection: 1)
        #expect(result(own.reply) == .object(["unsubscribed": .bool(true)]) && own.endedSubscription == 7)
        #expect(!service.hasSubscription(7) && service.pendingWaitCount(uid: 1_000) == 0)
        _ = service.send(start("tea"), connection: 2)
        #expect(service.takeNotifications().isEmpty)
    }

    @Test("publish numbers an event from outside the engine and fans it out like the engine's own")
    func publish() throws {
        var (service, _) = makeService()
        _ = service.send(subscribeAll, uid: 1_000, connection: 1, waiter: 1)
        _ = service.send(start("tea"), uid: 1_000, connection: 2, waiter: 2)
        _ = service.taken()
        let snapshot = try service.engine.status(.id(1), requester: nil)
        // 2026-11-29T15:17:33Z, the service's wall clock.
        let wall = Date(timeIntervalSince1970: 1_795_965_453)
        _ = service.publish(TimerEvent(kind: .missed, owner: 1_000, date: wall, timer: snapshot))
        _ = service.publish(TimerEvent(kind: .missed, owner: 2_000, date: wall, timer: snapshot))
        // seq 2 reaches uid 1000's subscription; seq 3, of another owner, only the ring.
        let taken = service.taken()
        #expect(taken.map(\.1) == ["missed"] && taken.map(\.2) == [2])
        #expect(service.events.lastSeq == 3)
    }

    @Test("Bad params are refused with -32602 and name what is allowed")
    func badParams() {
        var (service, _) = makeService()
        for params in [
            #"{"events":[]}"#, #"{"events":["begun"]}"#, #"{"events":"started"}"#, #"{"afterSeq":-1}"#,
            #"{"afterSeq":1.5}"#, #"{"timer":true}"#, #"{"when":"now"}"#,
        ] {
            let reply = service.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe","params":"# + params + "}")
                .reply
            #expect(errorCode(reply) == -32602, "\(params)")
        }
        #expect(!service.hasSubscription(1))
    }

    @Test("A step notification carries child; keys are sorted as in every reply")
    func stepLine() throws {
        var (service, clock) = makeService()
        _ = service.send(subscribeAll, waiter: 1)
        _ = service.send(
            #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[10,5]}}"#, waiter: 2)
        clock.advance(bySeconds: 10)
        _ = service.fireDueTimers()
        let lines = service.takeNotifications().map { String(decoding: $0.line, as: UTF8.self) }
        try #require(lines.count == 2)
        // 2026-11-29T15:17:33Z + 10 s: when child 1 began.
        #expect(
            lines[1].hasPrefix(
                #"{"jsonrpc":"2.0","method":"timer.event","params":{"at":"2026-11-29T15:17:43.000Z","child":1,"event":"step","seq":2,"timer":{"children":["#
            ))
    }
}
