import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import Countdown

/// The wall clock when every test starts.
private let startWall = FixedInstant.engineStart  // 2026-11-29T15:17:33Z

private let day: Double = 86_400

private func makeEngine(historyLimit: Int = 1_000, maximumAge: Double? = 7 * day) -> (TimerEngine, ManualClock) {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: startWall)
    return (TimerEngine(clock: clock, historyLimit: historyLimit, historyMaximumAge: maximumAge), clock)
}

@Suite("Ended timers leave the history by age as well as by count")
struct TimerEngineHistoryAgeTests {
    @Test("The default keeps ended timers 7 days (604,800 s)")
    func defaultAge() {
        let clock = ManualClock(wall: startWall)
        #expect(TimerEngine(clock: clock).historyMaximumAge == 604_800)
        #expect(TimerEngine(clock: clock, historyMaximumAge: -5).historyMaximumAge == 0)
    }

    @Test("An ended timer is dropped once it is older than the limit, when another one ends")
    func trimOnEnd() throws {
        var (engine, clock) = makeEngine(maximumAge: 7 * day)
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(1))  // ended 2026-11-29T15:17:33Z
        clock.advance(bySeconds: 7 * day)  // exactly 7 days: still kept
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(2))
        #expect(engine.list(includeEnded: true).map(\.id) == [1, 2])
        clock.advance(bySeconds: 1)  // 7 days and 1 s after timer 1 ended
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(3))
        #expect(engine.list(includeEnded: true).map(\.id) == [2, 3])
        #expect(engine.snapshot.timers.map(\.id) == [2, 3])
    }

    @Test("fireDueTimers trims by age even when nothing is due (the service runs it before each request)")
    func trimOnFire() throws {
        var (engine, clock) = makeEngine(maximumAge: 3_600)
        _ = try engine.start(durations: [60])  // 1: finishes after 60 s
        _ = try engine.start(durations: [7_200])  // 2: still running when 1 is trimmed
        clock.advance(bySeconds: 60)
        #expect(engine.fireDueTimers().map(\.timer.id) == [1])
        clock.advance(bySeconds: 3_600)
        #expect(engine.fireDueTimers().isEmpty)
        #expect(engine.list(includeEnded: true).map(\.id) == [1, 2])  // exactly 1 h: kept
        clock.advance(bySeconds: 0.001)
        #expect(engine.fireDueTimers().isEmpty)
        #expect(engine.list(includeEnded: true).map(\.id) == [2])  // live timers are never dropped
    }

    @Test("Restore drops ended timers that aged out while the daemon was down")
    func trimOnRestore() throws {
        var (engine, clock) = makeEngine(maximumAge: 7 * day)
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(1))
        clock.advance(bySeconds: 2 * day)
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(2))
        _ = try engine.start(durations: [60])
        _ = try engine.pause(.id(3))
        let saved = engine.snapshot
        clock.advance(bySeconds: 6 * day)  // timer 1 is now 8 days old, timer 2 6 days
        var restored = TimerEngine(clock: clock, historyMaximumAge: 7 * day)
        #expect(restored.restore(saved, sameBoot: true).isEmpty)
        #expect(restored.list(includeEnded: true).map(\.id) == [2, 3])
        #expect(restored.takeChanges().removed == [1])
    }

    @Test("Count and age limits both apply: whichever keeps fewer wins")
    func bothLimits() throws {
        var (engine, clock) = makeEngine(historyLimit: 2, maximumAge: 100)
        for id: UInt64 in 1...3 {
            _ = try engine.start(durations: [60])
            _ = try engine.stop(.id(id))
            clock.advance(bySeconds: 60)
        }
        #expect(engine.list(includeEnded: true).map(\.id) == [2, 3])  // count: 2
        _ = engine.fireDueTimers()
        #expect(engine.list(includeEnded: true).map(\.id) == [3])  // age: timer 2 ended 120 s ago
    }

    @Test("No age limit keeps ended timers for ever (up to the count)")
    func noAgeLimit() throws {
        var (engine, clock) = makeEngine(maximumAge: nil)
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(1))
        clock.advance(bySeconds: 365 * day)
        _ = engine.fireDueTimers()
        #expect(engine.list(includeEnded: true).map(\.id) == [1])
    }

    @Test("takeChanges returns each changed timer once, whole, and the ids dropped")
    func changes() throws {
        var (engine, _) = makeEngine(historyLimit: 0)
        _ = try engine.start(durations: [60], name: "tea")
        _ = try engine.start(durations: [90])
        _ = try engine.pause(.id(2))
        var changes = engine.takeChanges()
        #expect(changes.updated.map(\.id) == [1, 2])
        #expect(changes.updated.map(\.state) == [.running, .paused])
        #expect(changes.removed.isEmpty)
        #expect(changes.nextID == 3)
        #expect(!engine.hasChanges)
        #expect(engine.takeChanges().isEmpty)
        _ = try engine.stop(.id(1))  // history limit 0: dropped at once
        changes = engine.takeChanges()
        #expect(changes.updated.isEmpty)
        #expect(changes.removed == [1])
    }
}
