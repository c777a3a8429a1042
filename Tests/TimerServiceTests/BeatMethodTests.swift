import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// `timer.start` with `"heartbeat": true` and `timer.beat` through the service: exact reply lines
/// on a manual clock, durable like every change, per user, one `beat` event to subscribers, and the
/// errors (their text is the service's own wording, docs/protocol.md).
@Suite("timer.beat and heartbeat timers in the service")
struct BeatMethodTests {
    private static func service() -> (TimerService, ManualClock) {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        return (TimerService(engine: TimerEngine(clock: clock), quota: 10_000, pid: 4_242), clock)
    }

    private static func send(
        _ service: inout TimerService, _ line: String, uid: UInt32 = 1_000, connection: UInt64 = 1
    ) -> ServiceOutcome {
        service.handle(line: Array(line.utf8), context: RequestContext(uid: uid, waiter: 1, connection: connection))
    }

    private static func text(_ outcome: ServiceOutcome) -> String {
        outcome.reply.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static let startBackup =
        #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["5m"],"name":"backup","heartbeat":true}}"#
    private static let beatBackup = #"{"jsonrpc":"2.0","id":2,"method":"timer.beat","params":{"timer":"backup"}}"#

    @Test("start and beat reply with the heartbeat member; the beat's reply has the whole 300 s left")
    func startAndBeat() {
        var (service, clock) = Self.service()
        let started = Self.send(&service, Self.startBackup)
        // FixedInstant.engineStart is 2026-11-29T15:17:33Z; 5m ends at 15:22:33Z.
        #expect(
            Self.text(started)
                == #"{"id":1,"jsonrpc":"2.0","result":{"createdAt":"2026-11-29T15:17:33.000Z","duration":300,"#
                + #""elapsed":0,"endsAt":"2026-11-29T15:22:33.000Z","heartbeat":{"beatCount":0},"id":"1","#
                + #""name":"backup","progress":{"completedUnitCount":0,"fractionCompleted":0,"isCancelled":false,"#
                + #""isFinished":false,"isIndeterminate":false,"isPaused":false,"totalUnitCount":300000},"#
                + #""remaining":300,"startedAt":"2026-11-29T15:17:33.000Z","state":"running"}}"#)
        #expect(started.requiresDurability)
        clock.advance(bySeconds: 120)
        let beaten = Self.send(&service, Self.beatBackup)
        // The beat at 15:19:33Z re-arms 300 s: ends at 15:24:33Z, the start time stays.
        #expect(
            Self.text(beaten)
                == #"{"id":2,"jsonrpc":"2.0","result":{"createdAt":"2026-11-29T15:17:33.000Z","duration":300,"#
                + #""elapsed":0,"endsAt":"2026-11-29T15:24:33.000Z","#
                + #""heartbeat":{"beatCount":1,"lastBeatAt":"2026-11-29T15:19:33.000Z"},"id":"1","#
                + #""name":"backup","progress":{"completedUnitCount":0,"fractionCompleted":0,"isCancelled":false,"#
                + #""isFinished":false,"isIndeterminate":false,"isPaused":false,"totalUnitCount":300000},"#
                + #""remaining":300,"startedAt":"2026-11-29T15:17:33.000Z","state":"running"}}"#)
        #expect(beaten.requiresDurability && beaten.changedState)
        #expect(beaten.event == #"beat timer 1 ("backup")"#)
    }

    @Test("a subscriber hears one beat event with the timer after the beat")
    func beatEvent() throws {
        var (service, clock) = Self.service()
        _ = Self.send(&service, Self.startBackup)
        _ = Self.send(&service, #"{"jsonrpc":"2.0","id":9,"method":"timer.subscribe"}"#, connection: 7)
        _ = service.takeNotifications()
        clock.advance(bySeconds: 1)
        _ = Self.send(&service, Self.beatBackup)
        let lines = service.takeNotifications().map { String(decoding: $0.line, as: UTF8.self) }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line.hasPrefix(#"{"jsonrpc":"2.0","method":"timer.event","params":{"at":"2026-11-29T15:17:34.000Z","#))
        #expect(line.contains(#""event":"beat","seq":2,"#))
        #expect(line.contains(#""heartbeat":{"beatCount":1,"lastBeatAt":"2026-11-29T15:17:34.000Z"}"#))
    }

    @Test(
        "beat errors: another user's timer, an ordinary timer, an ended one, unknown params",
        arguments: [
            (
                #"{"jsonrpc":"2.0","id":3,"method":"timer.beat","params":{"timer":"backup"}}"#, UInt32(1_001),
                #"{"error":{"code":-32001,"message":"no timer named \"backup\""},"id":3,"jsonrpc":"2.0"}"#
            ),
            (
                #"{"jsonrpc":"2.0","id":3,"method":"timer.beat","params":{"timer":"tea"}}"#, 1_000,
                #"{"error":{"code":-32002,"message":"cannot beat timer 2 (\"tea\"): it is not a heartbeat timer; "#
                    + #"beats re-arm timers started with 'timerctl start DURATION --heartbeat' (use extend or "#
                    + #"restart for other timers)"},"id":3,"jsonrpc":"2.0"}"#
            ),
            (
                #"{"jsonrpc":"2.0","id":3,"method":"timer.beat","params":{"timer":"gone"}}"#, 1_000,
                #"{"error":{"code":-32002,"message":"cannot beat timer 3 (\"gone\"): it was stopped; only a running "#
                    + #"or paused heartbeat timer takes a beat; once it has ended, its alert has run: 'timerctl "#
                    + #"restart' watches again"},"id":3,"jsonrpc":"2.0"}"#
            ),
            (
                #"{"jsonrpc":"2.0","id":3,"method":"timer.beat","params":{"timer":"backup","by":5}}"#, 1_000,
                #"{"error":{"code":-32602,"message":"unknown parameter \"by\" for timer.beat; allowed: timer"},"id":3,"#
                    + #""jsonrpc":"2.0"}"#
            ),
        ])
    func beatErrors(request: String, uid: UInt32, expected: String) {
        var (service, _) = Self.service()
        _ = Self.send(&service, Self.startBackup)
        _ = Self.send(
            &service, #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"name":"tea"}}"#)
        _ = Self.send(
            &service,
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"name":"gone","heartbeat":true}}"#
        )
        _ = Self.send(&service, #"{"jsonrpc":"2.0","id":1,"method":"timer.stop","params":{"timer":"gone"}}"#)
        let outcome = Self.send(&service, request, uid: uid)
        #expect(Self.text(outcome) == expected)
        #expect(!outcome.changedState && !outcome.requiresDurability)
    }

    @Test(
        "a heartbeat start takes one duration, no at/on/every, and a boolean",
        arguments: [
            (
                #"{"durations":[60,60],"heartbeat":true}"#,
                #"{"error":{"code":-32602,"message":"a heartbeat timer takes exactly one DURATION, the longest "#
                    + #"silence between beats; got 2 durations"},"id":1,"jsonrpc":"2.0"}"#
            ),
            (
                #"{"at":"2026-11-29T16:00:00Z","heartbeat":true}"#,
                #"{"error":{"code":-32602,"message":"a heartbeat timer takes exactly one DURATION, the longest "#
                    + #"silence between beats; got \"at\""},"id":1,"jsonrpc":"2.0"}"#
            ),
            (
                #"{"durations":[60],"heartbeat":"yes"}"#,
                #"{"error":{"code":-32602,"message":"\"heartbeat\" of timer.start must be a boolean, got string"},"#
                    + #""id":1,"jsonrpc":"2.0"}"#
            ),
        ])
    func startErrors(params: String, expected: String) {
        var (service, _) = Self.service()
        let outcome = Self.send(&service, #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":\#(params)}"#)
        #expect(Self.text(outcome) == expected)
        #expect(service.engine.liveCount == 0)
    }

    @Test("\"heartbeat\": false and null start an ordinary timer, which has no heartbeat member")
    func falseIsOrdinary() {
        var (service, _) = Self.service()
        for value in ["false", "null"] {
            let outcome = Self.send(
                &service,
                #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"heartbeat":\#(value)}}"#)
            #expect(Self.text(outcome).contains(#""result":{"#) && !Self.text(outcome).contains("heartbeat"))
        }
    }
}
