import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol
import TimerService

/// The two clocks, driven by hand: countdowns run on the boot-time clock (suspend counts, wall-clock
/// steps do not), timers with an absolute end follow the wall clock (a step forward past the end
/// fires at once, a step backward never fires early).
@Suite("Clocks: suspend and wall-clock steps")
struct ClockTests {
    // 2026-11-29T09:00:00Z
    static let nine = Date(timeIntervalSince1970: 1_795_942_800)

    private func makeEngine() -> (TimerEngine, ManualClock) {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5_000_000_000), wall: Self.nine)
        return (TimerEngine(clock: clock), clock)
    }

    @Test("a 25-minute countdown with 10 minutes of suspend ends 25 minutes after it started")
    func suspendCounts() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1_500], name: "tea")
        clock.advance(bySeconds: 600)
        clock.suspend(forNanoseconds: 600_000_000_000)
        #expect(try engine.status(.name("tea")).remaining == 300)
        clock.advance(bySeconds: 299.999)
        #expect(engine.fireDueTimers().isEmpty)
        clock.advance(bySeconds: 0.001)
        let ended = engine.fireDueTimers()
        #expect(ended.map(\.timer.name) == ["tea"])
        #expect(ended.first?.timer.endedAt.map { ISO8601.string(from: $0) } == "2026-11-29T09:25:00.000Z")
    }

    @Test("a wall-clock step moves no countdown")
    func countdownIgnoresWallSteps() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "egg")
        clock.stepWallClock(bySeconds: 3_600)
        #expect(engine.wallClockChanged() == 0)
        #expect(try engine.status(.name("egg")).remaining == 60)
        clock.stepWallClock(bySeconds: -7_200)
        #expect(engine.wallClockChanged() == 0)
        #expect(engine.fireDueTimers().isEmpty)
        #expect(try engine.status(.name("egg")).remaining == 60)
    }

    @Test("--at: a step forward past the end fires it once, at once")
    func stepForwardFires() throws {
        var (engine, clock) = makeEngine()
        // 2026-11-29T10:00:00Z, an hour ahead.
        let started = try engine.start(at: Self.nine.addingTimeInterval(3_600), name: "meeting")
        #expect(started.remaining == 3_600)
        #expect(started.endsAt.map { ISO8601.string(from: $0) } == "2026-11-29T10:00:00.000Z")
        clock.advance(bySeconds: 600)
        clock.stepWallClock(bySeconds: 3_600)  // NTP step: now 10:10 on the wall, deadline passed
        #expect(engine.fireDueTimers().isEmpty)  // nothing knows yet
        #expect(engine.wallClockChanged() == 1)
        let ended = engine.fireDueTimers()
        #expect(ended.map(\.timer.name) == ["meeting"])
        #expect(ended.first?.timer.state == .finished)
        #expect(engine.fireDueTimers().isEmpty)
        #expect(engine.wallClockChanged() == 0)
    }

    @Test("--at: a step backward postpones the end and never fires early")
    func stepBackwardNeverEarly() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(at: Self.nine.addingTimeInterval(600), name: "call")  // 09:10
        clock.advance(bySeconds: 300)
        clock.stepWallClock(bySeconds: -3_600)  // wall now 08:05
        #expect(engine.wallClockChanged() == 1)
        #expect(try engine.status(.name("call")).remaining == 3_900)
        clock.advance(bySeconds: 300)  // the original boot-time deadline passes
        #expect(engine.fireDueTimers().isEmpty)
        clock.advance(bySeconds: 3_599.999)
        #expect(engine.fireDueTimers().isEmpty)
        clock.advance(bySeconds: 0.001)  // wall 09:10:00
        #expect(engine.fireDueTimers().map(\.timer.name) == ["call"])
    }

    @Test("--at: a suspend across the end finishes it right after resume")
    func suspendAcrossDeadline() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(at: Self.nine.addingTimeInterval(60), name: "alarm")
        clock.suspend(forNanoseconds: 120_000_000_000)
        #expect(engine.wallClockChanged() == 1)  // the kernel cancels the timerfd on resume too
        #expect(engine.fireDueTimers().map(\.timer.name) == ["alarm"])
    }

    @Test("--at: pausing turns it into a countdown of what was left")
    func pauseDetachesFromWallClock() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(at: Self.nine.addingTimeInterval(600), name: "x")
        clock.advance(bySeconds: 100)
        _ = try engine.pause(.name("x"))
        clock.advance(bySeconds: 50)
        let resumed = try engine.resume(.name("x"))
        #expect(resumed.remaining == 500)
        #expect(resumed.endsAt.map { ISO8601.string(from: $0) } == "2026-11-29T09:10:50.000Z")
        clock.stepWallClock(bySeconds: 1_000)
        #expect(engine.wallClockChanged() == 0)
    }

    @Test(
        "--at outside the next 366 days is refused with both instants",
        arguments: [-1.0, 0.0, Double(366 * 86_400 + 1)])
    func outOfRange(_ offset: Double) {
        var (engine, _) = makeEngine()
        let deadline = Self.nine.addingTimeInterval(offset)
        #expect(
            throws: CountdownError.deadlineOutOfRange(
                ISO8601.string(from: deadline), now: "2026-11-29T09:00:00.000Z")
        ) { try engine.start(at: deadline) }
    }

    @Test("an --at timer survives a restart on another boot and still ends at its instant")
    func restoreAfterReboot() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(at: Self.nine.addingTimeInterval(3_600), name: "x")
        let saved = engine.snapshot
        // Reboot: the boot-time clock starts again near zero; 20 minutes of wall time passed.
        let rebooted = ManualClock(
            boot: BootInstant(nanoseconds: 30_000_000_000), wall: Self.nine.addingTimeInterval(1_200))
        var restored = TimerEngine(clock: rebooted)
        #expect(restored.restore(saved, sameBoot: false).isEmpty)
        #expect(try restored.status(.name("x")).remaining == 2_400)
        _ = clock
    }

    @Test("timer.start with \"at\" over the protocol")
    func protocolAt() throws {
        let (engine, _) = makeEngine()
        var service = TimerService(engine: engine, pid: 1)
        let ok = service.handle(
            line: Array(
                #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"at":"2026-11-29T10:30:00+01:00"}}"#.utf8),
            context: RequestContext(uid: 1_000, waiter: 1))
        let reply = String(decoding: try #require(ok.reply), as: UTF8.self)
        #expect(reply.contains(#""remaining":1800"#))
        #expect(reply.contains(#""endsAt":"2026-11-29T09:30:00.000Z""#))
        let both = service.handle(
            line: Array(
                #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"at":"2026-11-29T10:30:00Z","durations":[5]}}"#
                    .utf8),
            context: RequestContext(uid: 1_000, waiter: 2))
        #expect(
            String(decoding: try #require(both.reply), as: UTF8.self)
                == #"{"error":{"code":-32602,"message":"timer.start takes either \"durations\" or \"at\", not both"},"id":2,"jsonrpc":"2.0"}"#
        )
        let local = service.handle(
            line: Array(#"{"jsonrpc":"2.0","id":3,"method":"timer.start","params":{"at":"2026-11-29T10:30"}}"#.utf8),
            context: RequestContext(uid: 1_000, waiter: 3))
        #expect(
            String(decoding: try #require(local.reply), as: UTF8.self)
                == #"{"error":{"code":-32602,"message":"\"at\" must be an ISO 8601 date-time with Z or an offset, such as \"2026-12-01T09:00:00+01:00\", or a local time with \"timeZone\", got \"2026-11-29T10:30\""},"id":3,"jsonrpc":"2.0"}"#
        )
    }

    @Test("a local \"at\" goes to the installed resolver with its zone, interval and now; its answer is returned")
    func protocolLocalAt() throws {
        let (engine, _) = makeEngine()
        var service = TimerService(engine: engine, pid: 1)
        let noResolver = service.handle(
            line: Array(
                #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"at":"10:30","timeZone":"UTC"}}"#.utf8),
            context: RequestContext(uid: 1_000, waiter: 1))
        #expect(
            String(decoding: try #require(noResolver.reply), as: UTF8.self)
                == #"{"error":{"code":-32602,"message":"this service does not resolve local times; send \"at\" with an offset"},"id":1,"jsonrpc":"2.0"}"#
        )
        service.localTimeResolver = { text, zone, interval, now in
            #expect(text == "10:37")
            #expect(zone == "Europe/Paris")
            #expect(interval == 15)
            #expect(now == Self.nine)
            // 10:30 in Paris on 2026-11-29 is 09:30Z.
            return LocalTimeResolution(
                date: Self.nine.addingTimeInterval(1_800), localTime: "2026-11-29T10:30:00+01:00",
                timeZone: zone, adjustment: "exact")
        }
        let local = service.handle(
            line: Array(
                #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"at":"10:37","timeZone":"Europe/Paris","minuteInterval":15}}"#
                    .utf8),
            context: RequestContext(uid: 1_000, waiter: 2))
        let reply = String(decoding: try #require(local.reply), as: UTF8.self)
        #expect(reply.contains(#""remaining":1800"#))
        #expect(
            reply.contains(
                #""resolvedAt":{"adjustment":"exact","localTime":"2026-11-29T10:30:00+01:00","timeZone":"Europe/Paris"}"#
            ))
        let offsetWithZone = service.handle(
            line: Array(
                #"{"jsonrpc":"2.0","id":3,"method":"timer.start","params":{"at":"2026-11-29T10:30:00Z","timeZone":"UTC"}}"#
                    .utf8),
            context: RequestContext(uid: 1_000, waiter: 3))
        #expect(
            String(decoding: try #require(offsetWithZone.reply), as: UTF8.self)
                == #"{"error":{"code":-32602,"message":"\"timeZone\" applies to a local time; \"at\" \"2026-11-29T10:30:00Z\" has its own offset"},"id":3,"jsonrpc":"2.0"}"#
        )
    }
}

@Suite("ISO 8601 end times are read strictly")
struct StrictISO8601Tests {
    @Test(
        "impossible dates and times are refused, real ones read",
        arguments: [
            ("2026-12-01T09:00:00+01:00", true), ("2026-12-01T08:00:00Z", true), ("2026-12-01T08:00:00.250Z", true),
            ("2028-02-29T00:00:00Z", true), ("2026-02-29T00:00:00Z", false), ("2026-02-30T09:00:00Z", false),
            ("2026-04-31T09:00:00Z", false), ("2026-12-01T24:00:00Z", false), ("2026-12-01T09:60:00Z", false),
            ("2026-12-01T09:00:60Z", false), ("2026-13-01T09:00:00Z", false), ("2026-12-01T09:00:00+24:00", false),
            ("2026-12-01T09:00:00", false), ("2026-12-01 09:00:00Z", false), ("2100-02-29T00:00:00Z", false),
            ("2000-02-29T00:00:00Z", true),
        ])
    func strict(_ text: String, _ valid: Bool) {
        #expect((ISO8601.date(from: text) != nil) == valid, "\(text)")
    }
}
