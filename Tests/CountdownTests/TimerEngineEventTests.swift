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

/// The events taken from `engine`, as (kind, timer id) pairs.
private func kinds(_ engine: inout TimerEngine) -> [(TimerEvent.Kind, UInt64)] {
    engine.takeEvents().map { ($0.kind, $0.timer.id) }
}

@Suite("TimerEngine events")
struct TimerEngineEventTests {
    @Test("start, pause, resume and finish are reported in order, each once")
    func lifecycle() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [90], name: "tea")
        clock.advance(bySeconds: 10)
        _ = try engine.pause(.name("tea"))
        clock.advance(bySeconds: 5)
        _ = try engine.resume(.name("tea"))
        let early = engine.takeEvents()
        // Expected: the three operations just performed, in that order, on timer 1 owned by uid 0.
        #expect(early.map(\.kind) == [.started, .paused, .resumed])
        #expect(early.map(\.timer.id) == [1, 1, 1] && early.allSatisfy { $0.owner == 0 })
        // Dated by the wall clock when each happened: start, +10 s, +15 s.
        #expect(early.map(\.date) == [startWall, startWall + 10, startWall + 15])
        #expect(engine.takeEvents().isEmpty)  // taking empties the buffer
        clock.advance(bySeconds: 80)  // 90 s counted: the deadline
        _ = engine.fireDueTimers()
        let finished = engine.takeEvents()
        #expect(finished.map(\.kind) == [.finished])
        #expect(finished.first?.timer.state == .finished)
    }

    @Test("stop is reported as stopped; a timer that was never due reports no finish")
    func stop() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(1))
        clock.advance(bySeconds: 120)
        _ = engine.fireDueTimers()
        let events = kinds(&engine)
        #expect(events.map(\.0) == [.started, .stopped])
    }

    @Test("A group reports each step to the next child when it happens, then its finish")
    func groupSteps() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [10, 20, 30])
        _ = engine.takeEvents()
        // The engine wakes at the end of child 0 (10 s after the start at boot 1 s), not at the group's end.
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 11_000_000_000))
        clock.advance(bySeconds: 10)
        #expect(engine.fireDueTimers().isEmpty)
        let first = engine.takeEvents()
        #expect(first.map(\.kind) == [.steppedToChild(1)])
        #expect(first.first?.timer.currentChild == 1)
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 31_000_000_000))  // 10 + 20 s after the start
        // Oversleeping past child 1 and the group's end reports the step to child 2, then the finish.
        clock.advance(bySeconds: 55)
        #expect(engine.fireDueTimers().map(\.timer.id) == [1])
        let rest = engine.takeEvents()
        #expect(rest.map(\.kind) == [.steppedToChild(2), .finished])
        // Child 2 began 30 s after the start; the finish is dated at the deadline, 60 s after it.
        #expect(rest.map(\.date) == [startWall + 30, startWall + 60])
        #expect(engine.liveCount == 0)
    }

    @Test("A paused group does not step; after resume it steps at the child's end")
    func pausedGroup() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [10, 10])
        clock.advance(bySeconds: 5)
        _ = try engine.pause(.id(1))
        clock.advance(bySeconds: 100)
        _ = engine.fireDueTimers()
        _ = try engine.resume(.id(1))
        clock.advance(bySeconds: 5)
        _ = engine.fireDueTimers()
        #expect(kinds(&engine).map(\.0) == [.started, .paused, .resumed, .steppedToChild(1)])
    }

    @Test("A timer whose end passed while nothing ran is reported as missed on restore")
    func missed() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60])
        _ = try engine.start(durations: [600])
        let snapshot = engine.snapshot
        // Back on the same boot 120 s later: timer 1 (60 s) passed its end, timer 2 (600 s) did not.
        let later = ManualClock(boot: BootInstant(nanoseconds: 121_000_000_000), wall: startWall + 120)
        var restored = TimerEngine(clock: later)
        restored.eventRecording = .buffered
        let endings = restored.restore(snapshot, sameBoot: true)
        #expect(endings.map(\.timer.id) == [1])
        let events = restored.takeEvents()
        #expect(events.map(\.kind) == [.missed] && events.map(\.timer.id) == [1])
        #expect(events.first?.timer.missed == true)
    }

    @Test("With events discarded (the default) nothing is kept and groups wake only at their end")
    func discarded() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: startWall)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [10, 20])
        #expect(engine.takeEvents().isEmpty)
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 31_000_000_000))
        // Switching to buffered reschedules the running group at its current child's end.
        engine.eventRecording = .buffered
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 11_000_000_000))
    }
}
