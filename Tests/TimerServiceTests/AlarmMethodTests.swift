import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// `"ring"` and `"warn"` of `timer.start`, `timer.ack` and `timer.snooze` through the service:
/// exact reply lines and error texts on a manual clock (FixedInstant.engineStart is
/// 2026-11-29T15:17:33Z), with the service's default rule (a ring every 30 s for up to 600 s)
/// and snooze (540 s) unless a test sets others, as timerd does from timerd.conf.
@Suite("Alarms in the service: ring, warn, timer.ack, timer.snooze")
struct AlarmMethodTests {
    private static func service() -> (TimerService, ManualClock) {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        return (TimerService(engine: TimerEngine(clock: clock), quota: 10_000, pid: 4_242), clock)
    }

    private static func send(_ service: inout TimerService, _ line: String, uid: UInt32 = 1_000) -> ServiceOutcome {
        service.handle(line: Array(line.utf8), context: RequestContext(uid: uid, waiter: 1, connection: 1))
    }

    private static func text(_ outcome: ServiceOutcome) -> String {
        outcome.reply.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static func error(_ id: Int, _ code: Int, _ message: String) -> String {
        #"{"error":{"code":"# + String(code) + #","message":"# + message + #"},"id":"# + String(id)
            + #","jsonrpc":"2.0"}"#
    }

    @Test("ring and warn: the reply's alarm member, and the log line that names them")
    func startReply() {
        var (service, _) = Self.service()
        let started = Self.send(
            &service,
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["5m"],"name":"tea","ring":true,"warn":"1m"}}"#
        )
        // 5m from 15:17:33Z ends at 15:22:33Z; the alarm member comes first (sorted keys).
        #expect(
            Self.text(started)
                == #"{"id":1,"jsonrpc":"2.0","result":{"alarm":{"ringCount":0,"ringInterval":30,"ringLimit":600,"#
                + #""snoozeCount":0,"warned":false,"warning":60},"createdAt":"2026-11-29T15:17:33.000Z","#
                + #""duration":300,"elapsed":0,"endsAt":"2026-11-29T15:22:33.000Z","id":"1","name":"tea","#
                + #""progress":{"completedUnitCount":0,"fractionCompleted":0,"isCancelled":false,"isFinished":false,"#
                + #""isIndeterminate":false,"isPaused":false,"totalUnitCount":300000},"remaining":300,"#
                + #""startedAt":"2026-11-29T15:17:33.000Z","state":"running"}}"#)
        #expect(
            started.event
                == #"started timer 1 ("tea"), 5m; warns 1m before the end; rings every 30s for up to 10m"#)
        #expect(started.requiresDurability)
    }

    @Test("the rule and snooze the daemon sets are the ones a new timer and a plain snooze get")
    func configuredRule() {
        var (service, clock) = Self.service()
        service.ringRule = TimerAlarm.Ring(interval: 1, limit: 5)
        service.snoozeSeconds = 2
        _ = Self.send(
            &service, #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[3],"ring":true}}"#)
        // timerd fires at each deadline (its loop's timer); here the test does, at 3 s and 4 s.
        clock.advance(bySeconds: 3)
        _ = service.fireDueTimers()
        clock.advance(bySeconds: 1)
        let status = Self.send(&service, #"{"jsonrpc":"2.0","id":2,"method":"timer.status","params":{"timer":"1"}}"#)
        // Ringing since 3 s: rings at 3 s and 4 s.
        #expect(Self.text(status).contains(#""alarm":{"ringCount":2,"ringInterval":1,"ringLimit":5,"snoozeCount":0}"#))
        #expect(Self.text(status).hasSuffix(#""state":"ringing"}}"#))
        let snoozed = Self.send(&service, #"{"jsonrpc":"2.0","id":3,"method":"timer.snooze","params":{"timer":"1"}}"#)
        #expect(
            Self.text(snoozed).contains(#""remaining":2,"#) && Self.text(snoozed).hasSuffix(#""state":"running"}}"#))
        #expect(snoozed.event == "snoozed timer 1 for 2s" && snoozed.requiresDurability)
    }

    @Test("timer.ack ends a ringing timer as finished and wakes its waiters; snooze with for runs it that long")
    func ackAndSnooze() throws {
        var (service, clock) = Self.service()
        _ = Self.send(
            &service,
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"name":"tea","ring":true}}"#)
        clock.advance(bySeconds: 60)
        let wait = service.handle(
            line: Array(#"{"jsonrpc":"2.0","id":9,"method":"timer.wait","params":{"timer":"tea"}}"#.utf8),
            context: RequestContext(uid: 1_000, waiter: 77, connection: 2))
        // The request fired the end first: the timer rings, and the wait waits on.
        #expect(wait.reply == nil && service.isWaiting(77))
        let snoozed = Self.send(
            &service, #"{"jsonrpc":"2.0","id":2,"method":"timer.snooze","params":{"timer":"tea","for":"5m"}}"#)
        // 60 + 300 s; ends 300 s after 15:18:33Z.
        #expect(Self.text(snoozed).contains(#""duration":360,"#))
        #expect(Self.text(snoozed).contains(#""endsAt":"2026-11-29T15:23:33.000Z""#))
        #expect(snoozed.event == #"snoozed timer 1 ("tea") for 5m"#)
        #expect(service.isWaiting(77))
        clock.advance(bySeconds: 300)
        _ = service.fireDueTimers()
        clock.advance(bySeconds: 10)
        let acked = Self.send(&service, #"{"jsonrpc":"2.0","id":3,"method":"timer.ack","params":{"timer":"tea"}}"#)
        #expect(Self.text(acked).contains(#""alarm":{"outcome":"acknowledged","ringCount":1,"#))
        #expect(Self.text(acked).contains(#""endedAt":"2026-11-29T15:23:43.000Z""#))
        #expect(Self.text(acked).hasSuffix(#""state":"finished"}}"#))
        #expect(acked.event == #"acknowledged timer 1 ("tea")"# && acked.requiresDurability)
        // The wait is answered with the finished timer, under its own id.
        #expect(acked.wakeups.map(\.waiter) == [77])
        let reply = String(decoding: try #require(acked.wakeups.first?.reply), as: UTF8.self)
        #expect(reply.hasPrefix(#"{"id":9,"#) && reply.hasSuffix(#""state":"finished"}}"#))
    }

    @Test("the refusals, word for word")
    func refusals() {
        var (service, _) = Self.service()
        let cases: [(String, String)] = [
            (
                #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"ring":"yes"}}"#,
                Self.error(1, -32602, #""\"ring\" of timer.start must be a boolean, got string""#)
            ),
            (
                #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[60],"warn":true}}"#,
                Self.error(
                    2, -32602,
                    #""\"warn\" of timer.start must be a number of seconds or a duration string such as \"5m\", got boolean""#
                )
            ),
            (
                #"{"jsonrpc":"2.0","id":3,"method":"timer.start","params":{"durations":[60],"warn":-5}}"#,
                Self.error(3, -32602, #""duration must be > 0 and ≤ 366 days, got \"-5\"""#)
            ),
            (
                #"{"jsonrpc":"2.0","id":4,"method":"timer.start","params":{"durations":[60],"warn":"2m"}}"#,
                Self.error(
                    4, -32602,
                    #""the warning (2m) must be shorter than the timer (1m): it comes that long before the end""#)
            ),
            (
                #"{"jsonrpc":"2.0","id":5,"method":"timer.start","params":{"durations":[60],"heartbeat":true,"ring":true}}"#,
                Self.error(
                    5, -32602,
                    #""\"ring\" cannot be combined with \"heartbeat\": a heartbeat timer's end is already its alert, run by its on-finish action""#
                )
            ),
            (
                #"{"jsonrpc":"2.0","id":6,"method":"timer.start","params":{"every":"1h","ring":true,"warn":"5m"}}"#,
                Self.error(
                    6, -32602,
                    #""\"ring\" and \"warn\" cannot be combined with \"every\": a recurring timer goes on to its next elapse by itself; use a one-shot timer (durations or at) to ring until answered""#
                )
            ),
            (
                #"{"jsonrpc":"2.0","id":7,"method":"timer.ack","params":{"timer":"nope"}}"#,
                Self.error(7, -32001, #""no timer named \"nope\"""#)
            ),
            (
                #"{"jsonrpc":"2.0","id":8,"method":"timer.snooze","params":{"timer":"1","for":[1]}}"#,
                Self.error(
                    8, -32602,
                    #""\"for\" of timer.snooze must be a number of seconds or a duration string such as \"9m\", got array""#
                )
            ),
            (
                #"{"jsonrpc":"2.0","id":9,"method":"timer.ack","params":{"timer":"1","for":"5m"}}"#,
                Self.error(9, -32602, #""unknown parameter \"for\" for timer.ack; allowed: timer""#)
            ),
        ]
        for (request, expected) in cases {
            #expect(Self.text(Self.send(&service, request)) == expected, "\(request)")
        }
        #expect(service.engine.liveCount == 0)
        // A running timer is not ringing: ack and snooze are refused with the engine's text (-32002).
        _ = Self.send(&service, #"{"jsonrpc":"2.0","id":10,"method":"timer.start","params":{"durations":[60]}}"#)
        #expect(
            Self.text(Self.send(&service, #"{"jsonrpc":"2.0","id":11,"method":"timer.ack","params":{"timer":"1"}}"#))
                == Self.error(
                    11, -32002,
                    #""cannot ack timer 1: it is running; only a ringing timer (started with --ring) can be acknowledged""#
                ))
        #expect(
            Self.text(Self.send(&service, #"{"jsonrpc":"2.0","id":12,"method":"timer.snooze","params":{"timer":"1"}}"#))
                == Self.error(
                    12, -32002,
                    #""cannot snooze timer 1: it is running; only a ringing timer (started with --ring) can be snoozed""#
                ))
    }

    @Test("a service with a ring refusal answers -32602 with its text; warn alone is still served")
    func ringRefused() {
        var (service, _) = Self.service()
        service.ringRefusal = "ringing timers are not available with the PostgreSQL store"
        let refused = Self.send(
            &service, #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"ring":true}}"#)
        #expect(
            Self.text(refused)
                == Self.error(1, -32602, #""ringing timers are not available with the PostgreSQL store""#))
        let warned = Self.send(
            &service, #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[60],"warn":10}}"#)
        #expect(Self.text(warned).contains(#""alarm":{"ringCount":0,"snoozeCount":0,"warned":false,"warning":10}"#))
    }
}

/// `"warnEach"` of `timer.start` through the service: the exact `timer.event` lines a subscriber
/// gets, on a manual clock (FixedInstant.engineStart is 2026-11-29T15:17:33Z). A group of 25 min
/// and 5 min started then ends its steps at 15:42:33Z and 15:47:33Z; `"warn":"1m"` with
/// `"warnEach":true` warns at 15:41:33Z (1440 s, 360 s left, step 1) and 15:46:33Z (1740 s, 60 s
/// left, step 2).
@Suite("warnEach in the service: a warning event before every step's end")
struct WarnEachMethodTests {
    @Test("25m 5m --warn 1m --warn-each: the start's alarm member, and two warning events, exact lines")
    func eventLines() {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), quota: 10_000, pid: 4_242)
        func send(_ line: String) -> ServiceOutcome {
            service.handle(line: Array(line.utf8), context: RequestContext(uid: 1_000, waiter: 7, connection: 1))
        }
        let subscribed = send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe","params":{"events":["warning"]}}"#)
        #expect(
            subscribed.reply.map { String(decoding: $0, as: UTF8.self) }
                == #"{"id":1,"jsonrpc":"2.0","result":{"seq":0,"subscription":7}}"#)
        let started = send(
            #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":["25m","5m"],"name":"tea","warn":"1m","warnEach":true}}"#
        )
        let reply = started.reply.map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(
            reply.hasPrefix(
                #"{"id":2,"jsonrpc":"2.0","result":{"alarm":{"ringCount":0,"snoozeCount":0,"warnEach":true,"warned":false,"warnedSteps":0,"warning":60},"#
            ), "\(reply)")
        #expect(
            started.event == #"started timer 1 ("tea"), 25m 5m; warns 1m before the end of each step"#)
        let alarm1 =
            #""alarm":{"ringCount":0,"snoozeCount":0,"warnEach":true,"warned":false,"warnedSteps":1,"warning":60}"#
        let alarm2 =
            #""alarm":{"ringCount":0,"snoozeCount":0,"warnEach":true,"warned":true,"warnedSteps":2,"warning":60}"#
        clock.advance(bySeconds: 1440)
        _ = service.takeNotifications()
        _ = service.fireDueTimers()
        let first = service.takeNotifications().map { String(decoding: $0.line, as: UTF8.self) }
        #expect(first.count == 1)
        #expect(
            first.first?.hasPrefix(
                #"{"jsonrpc":"2.0","method":"timer.event","params":{"at":"2026-11-29T15:41:33.000Z","event":"warning","seq":2,"timer":{"#
                    + alarm1) == true, "\(first)")
        #expect(
            first.first?.contains(#""currentChild":0,"#) == true && first.first?.contains(#""remaining":360,"#) == true)
        clock.advance(bySeconds: 300)
        _ = service.fireDueTimers()
        let second = service.takeNotifications().map { String(decoding: $0.line, as: UTF8.self) }
        #expect(second.count == 1)
        #expect(
            second.first?.hasPrefix(
                #"{"jsonrpc":"2.0","method":"timer.event","params":{"at":"2026-11-29T15:46:33.000Z","event":"warning","seq":4,"timer":{"#
                    + alarm2) == true, "\(second)")
        #expect(
            second.first?.contains(#""currentChild":1,"#) == true && second.first?.contains(#""remaining":60,"#) == true
        )
    }

    @Test("warnEach's checks: a boolean, with warn, and a warning shorter than every step")
    func refusals() {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), quota: 10_000, pid: 4_242)
        let cases: [(String, String)] = [
            (
                #"{"durations":[60],"warn":10,"warnEach":1}"#,
                #"\"warnEach\" of timer.start must be a boolean, got number"#
            ),
            (
                #"{"durations":[60,60],"warnEach":true}"#,
                #"\"warnEach\" needs \"warn\": it says how long before each step's end to warn"#
            ),
            (
                #"{"durations":["25m","5m"],"warn":"5m","warnEach":true}"#,
                #"with --warn-each the warning (5m) must be shorter than every step (the shortest is 5m): it comes that long before each step's end"#
            ),
        ]
        for (params, message) in cases {
            let outcome = service.handle(
                line: Array((#"{"jsonrpc":"2.0","id":9,"method":"timer.start","params":"# + params + "}").utf8),
                context: RequestContext(uid: 1_000, waiter: 1, connection: 1))
            let text = outcome.reply.map { String(decoding: $0, as: UTF8.self) } ?? ""
            #expect(
                text == #"{"error":{"code":-32602,"message":""# + message + #""},"id":9,"jsonrpc":"2.0"}"#, "\(text)")
        }
    }
}
