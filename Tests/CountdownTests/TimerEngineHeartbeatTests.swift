import Foundation
import Testing
import TimerModel

@testable import Countdown

/// The wall clock when every test starts: 2026-11-29T15:17:33Z.
private let startWall = Date(timeIntervalSince1970: 1_795_965_453)

/// A fresh engine recording events, on a manual clock 1 s after boot at `startWall`.
private func makeEngine() -> (engine: TimerEngine, clock: ManualClock) {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: startWall)
    var engine = TimerEngine(clock: clock)
    engine.eventRecording = .buffered
    return (engine, clock)
}

/// Expected values are worked out by hand from the duration and the clock's advances: a 300 s
/// heartbeat timer beaten 200 s after its start has 300 s left and ends at start + 200 + 300 s, on the
/// boot-time clock 1 s (the boot offset) + 500 s.
@Suite("TimerEngine heartbeat timers: beat re-arms the whole duration from now")
struct TimerEngineHeartbeatTests {
    @Test("a beat re-arms the remaining time and the deadline to the whole duration from now")
    func beatRearms() throws {
        var (engine, clock) = makeEngine()
        let started = try engine.start(heartbeat: 300, name: "backup", owner: 1_000)
        #expect(started.heartbeat == TimerHeartbeat(beatCount: 0, lastBeatAt: nil))
        #expect(started.endsAt == startWall + 300)
        _ = engine.takeChanges()
        _ = engine.takeEvents()
        clock.advance(bySeconds: 200)
        let beaten = try engine.beat(.name("backup"), requester: 1_000)
        #expect(beaten.state == .running && beaten.remaining == 300 && beaten.elapsed == 0 && beaten.duration == 300)
        #expect(beaten.endsAt == startWall + 500)
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 501_000_000_000))
        #expect(beaten.heartbeat == TimerHeartbeat(beatCount: 1, lastBeatAt: startWall + 200))
        // A beat keeps what restart resets: the start time.
        #expect(beaten.startedAt == startWall && beaten.createdAt == startWall)
        #expect(engine.takeEvents().map(\.kind) == [.beat])
        // One changed record to journal, with the new anchor and the count.
        let changes = engine.takeChanges()
        #expect(changes.updated.count == 1)
        #expect(changes.updated.first?.runStartWall == startWall + 200)
        #expect(changes.updated.first?.accumulatedNanoseconds == 0)
        #expect(changes.updated.first?.heartbeat?.beatCount == 1)
    }

    @Test("beats keep it running past its duration; when they stop, it finishes one duration after the last")
    func beatsThenSilence() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(heartbeat: 3, name: "svc")
        for _ in 0..<5 {
            clock.advance(bySeconds: 1)
            _ = try engine.beat(.name("svc"))
            #expect(engine.fireDueTimers().isEmpty)
        }
        // Last beat at 5 s: due at 8 s. At 7.999 s nothing; at 8 s it finishes.
        clock.advance(bySeconds: 2.999)
        #expect(engine.fireDueTimers().isEmpty)
        #expect(try engine.status(.name("svc")).remaining == 0.001)
        clock.advance(bySeconds: 0.001)
        let finished = engine.fireDueTimers()
        #expect(finished.map(\.timer.id) == [1])
        #expect(finished.first?.timer.heartbeat?.beatCount == 5)
        #expect(finished.first?.timer.endedAt == startWall + 8)
    }

    @Test("a beat 1 ns before the deadline re-arms; one at the deadline is too late, even before the firing")
    func beatAtTheDeadline() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(heartbeat: 3, name: "svc")
        clock.advance(byNanoseconds: 2_999_999_999)
        #expect(try engine.beat(.name("svc")).remaining == 3)
        // Due at 2.999999999 s + 3 s after the start (15:17:38.999999999Z, written to the nearest
        // millisecond as ISO8601.string does); exactly then, with no firing in between.
        clock.advance(bySeconds: 3)
        #expect(
            throws: CountdownError.beatTooLate(timer: "timer 1 (\"svc\")", end: "2026-11-29T15:17:39.000Z")
        ) { try engine.beat(.name("svc")) }
        #expect(
            CountdownError.beatTooLate(timer: "timer 1 (\"svc\")", end: "2026-11-29T15:17:39.000Z").description
                == "cannot beat timer 1 (\"svc\"): the beat came after its end (2026-11-29T15:17:39.000Z); it "
                + "finishes now and its alert runs: 'timerctl restart' watches again")
        // The refused beat changed nothing: the firing finishes it, one beat counted.
        let finished = engine.fireDueTimers()
        #expect(finished.map(\.timer.state) == [.finished])
        #expect(finished.first?.timer.heartbeat?.beatCount == 1)
    }

    @Test("a beat resumes a paused heartbeat timer with its whole duration")
    func beatResumesPaused() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(heartbeat: 60, name: "svc")
        clock.advance(bySeconds: 50)
        _ = try engine.pause(.name("svc"))
        #expect(engine.runningCount == 0)
        clock.advance(bySeconds: 1_000)
        _ = engine.takeEvents()
        let beaten = try engine.beat(.name("svc"))
        #expect(beaten.state == .running && beaten.remaining == 60)
        #expect(beaten.endsAt == startWall + 1_110)
        #expect(engine.runningCount == 1 && engine.liveCount == 1)
        #expect(engine.takeEvents().map(\.kind) == [.beat])
        clock.advance(bySeconds: 60)
        #expect(engine.fireDueTimers().map(\.timer.state) == [.finished])
    }

    @Test("a finished or stopped heartbeat timer refuses a beat, as does an ordinary timer")
    func refusals() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(heartbeat: 10, name: "late")
        _ = try engine.start(heartbeat: 10, name: "off")
        _ = try engine.start(durations: [10], name: "tea")
        _ = try engine.stop(.name("off"))
        clock.advance(bySeconds: 10)
        _ = engine.fireDueTimers()
        #expect(
            throws: CountdownError.invalidTransition(timer: "timer 1 (\"late\")", state: .finished, operation: .beat)
        ) { try engine.beat(.id(1)) }
        #expect(
            throws: CountdownError.invalidTransition(timer: "timer 2 (\"off\")", state: .stopped, operation: .beat)
        ) { try engine.beat(.id(2)) }
        #expect(throws: CountdownError.notAHeartbeat(timer: "timer 3 (\"tea\")")) { try engine.beat(.id(3)) }
        // The messages a person reads (CountdownError.description).
        #expect(
            CountdownError.invalidTransition(timer: "timer 1 (\"late\")", state: .finished, operation: .beat)
                .description
                == "cannot beat timer 1 (\"late\"): it has finished; only a running or paused heartbeat timer "
                + "takes a beat; once it has ended, its alert has run: 'timerctl restart' watches again")
        #expect(
            CountdownError.notAHeartbeat(timer: "timer 3 (\"tea\")").description
                == "cannot beat timer 3 (\"tea\"): it is not a heartbeat timer; beats re-arm timers started with "
                + "'timerctl start DURATION --heartbeat' (use extend or restart for other timers)")
    }

    @Test("another user's heartbeat timer is reported missing")
    func perUser() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(heartbeat: 10, name: "svc", owner: 1_000)
        #expect(throws: CountdownError.timerNotFound(.name("svc"))) {
            try engine.beat(.name("svc"), requester: 1_001)
        }
        #expect(try engine.beat(.name("svc"), requester: nil).heartbeat?.beatCount == 1)
    }

    @Test("restart counts beats afresh and resets the start; a beat never does")
    func restartResetsBeats() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(heartbeat: 10, name: "svc")
        clock.advance(bySeconds: 4)
        _ = try engine.beat(.name("svc"))
        clock.advance(bySeconds: 20)
        _ = engine.fireDueTimers()
        let restarted = try engine.restart(.name("svc"))
        #expect(restarted.heartbeat == TimerHeartbeat(beatCount: 0, lastBeatAt: nil))
        #expect(restarted.startedAt == startWall + 24 && restarted.remaining == 10)
    }

    @Test("a restore on the same boot keeps the beat's deadline, and after a reboot its wall-clock anchor")
    func restoreKeepsBeat() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(heartbeat: 300, name: "svc")
        clock.advance(bySeconds: 200)
        _ = try engine.beat(.name("svc"))
        let snapshot = engine.snapshot
        // Same boot, back 30 s after the beat: 270 s left, due at boot 1 s + 500 s.
        let same = ManualClock(boot: BootInstant(nanoseconds: 231_000_000_000), wall: startWall + 230)
        var restored = TimerEngine(clock: same)
        #expect(restored.restore(snapshot, sameBoot: true).isEmpty)
        #expect(try restored.status(.name("svc")).remaining == 270)
        #expect(
            try restored.status(.name("svc")).heartbeat == TimerHeartbeat(beatCount: 1, lastBeatAt: startWall + 200))
        #expect(restored.nextDeadline == BootInstant(nanoseconds: 501_000_000_000))
        // A reboot 100 s after the beat (a new boot clock at 10 s): the wall clock says 200 s left.
        let rebooted = ManualClock(boot: BootInstant(nanoseconds: 10_000_000_000), wall: startWall + 300)
        var after = TimerEngine(clock: rebooted)
        #expect(after.restore(snapshot, sameBoot: false).isEmpty)
        #expect(try after.status(.name("svc")).remaining == 200)
        #expect(try after.status(.name("svc")).endsAt == startWall + 500)
    }
}
