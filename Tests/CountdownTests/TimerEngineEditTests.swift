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

/// Expected values below are worked out by hand from the durations and the clock advances in
/// each test (e.g. a 25 min = 1,500 s timer, 600 s in, extended by 300 s, has 1,200 s left).
@Suite("TimerEngine edits: extend, skip, rename, restart, remove")
struct TimerEngineEditTests {
    @Test("extend adds to a running timer and moves its end; the change is journaled and reported")
    func extendRunning() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1_500], name: "tea")
        _ = engine.takeChanges()
        _ = engine.takeEvents()
        clock.advance(bySeconds: 600)
        let timer = try engine.extend(.name("tea"), bySeconds: 300)
        #expect(timer.remaining == 1_200 && timer.duration == 1_800 && timer.state == .running)
        #expect(timer.endsAt == startWall + 1_800)
        #expect(engine.takeEvents().map(\.kind) == [.extended(by: 300)])
        #expect(engine.takeChanges().updated.map(\.durations) == [[1_800]])
        // The deadline moved: at the old end (1,500 s) nothing fires, at 1,800 s it finishes.
        clock.advance(bySeconds: 900)
        #expect(engine.fireDueTimers().isEmpty)
        clock.advance(bySeconds: 300)
        #expect(engine.fireDueTimers().map(\.timer.id) == [1])
    }

    @Test("subtracting less than is left shortens; as much or more finishes at once, even paused")
    func extendNegative() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1_500])
        clock.advance(bySeconds: 600)
        let shorter = try engine.extend(.id(1), bySeconds: -300)
        #expect(shorter.remaining == 600 && shorter.duration == 1_200)
        _ = try engine.pause(.id(1))
        _ = engine.takeEvents()
        let ended = try engine.extend(.id(1), bySeconds: -3_600)
        // Clamped to the 600 s left: the step ends now, its duration stays 1,200 s.
        #expect(ended.state == .finished && ended.remaining == 0 && ended.duration == 1_200)
        #expect(engine.takeEvents().map(\.kind) == [.extended(by: -600), .finished])
        #expect(engine.liveCount == 0 && engine.nextDeadline == nil)
    }

    @Test("a group's extension goes to its current step; clamping a paused group steps to the next, paused")
    func extendGroup() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1_500, 300], name: "pomodoro")
        clock.advance(bySeconds: 100)
        let longer = try engine.extend(.name("pomodoro"), bySeconds: 60)
        #expect(longer.children.map(\.duration) == [1_560, 300])
        _ = try engine.pause(.name("pomodoro"))
        _ = engine.takeEvents()
        let next = try engine.extend(.name("pomodoro"), bySeconds: -5_000)
        // Step 1 had 1,460 s left; it ends, step 2 (0-based child 1) is current, still paused.
        #expect(next.state == .paused && next.currentChild == 1 && next.remaining == 300)
        #expect(engine.takeEvents().map(\.kind) == [.extended(by: -1_460), .steppedToChild(1)])
    }

    @Test("extend refuses ended timers, sums over 366 days, and another user's timer")
    func extendRefusals() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", owner: 1_000)
        _ = try engine.start(durations: [300 * 86_400, 60], owner: 1_000)
        #expect(throws: CountdownError.timerNotFound(.name("tea"))) {
            try engine.extend(.name("tea"), bySeconds: 60, requester: 1_001)
        }
        // 300 days + 60 s + 70 days = 370 days and 60 s, more than 366 days.
        #expect(throws: CountdownError.groupTooLong(370 * 86_400 + 60)) {
            try engine.extend(.id(2), bySeconds: 70 * 86_400)
        }
        #expect(throws: CountdownError.durationOutOfRange("367d")) {
            try engine.extend(.id(1), bySeconds: 367 * 86_400)
        }
        _ = try engine.stop(.id(1))
        #expect(
            throws: CountdownError.invalidTransition(timer: "timer 1 (\"tea\")", state: .stopped, operation: .extend)
        ) { try engine.extend(.id(1), bySeconds: 60) }
    }

    @Test("skip ends a group's step now (the end comes earlier); the last step finishes; a plain timer is refused")
    func skip() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1_500, 300, 600])
        _ = try engine.start(durations: [60], name: "tea")
        _ = engine.takeEvents()
        clock.advance(bySeconds: 100)
        let second = try engine.skip(.id(1))
        // 100 s in, step 1 skipped: step 2 runs from now, 300 + 600 s left.
        #expect(second.currentChild == 1 && second.remaining == 900 && second.endsAt == startWall + 1_000)
        _ = try engine.skip(.id(1))
        let finished = try engine.skip(.id(1))
        #expect(finished.state == .finished)
        #expect(engine.takeEvents().map(\.kind) == [.steppedToChild(1), .steppedToChild(2), .finished])
        expectThrows(
            .notAGroup(timer: "timer 2 (\"tea\")"),
            "cannot skip timer 2 (\"tea\"): it is a single timer, not a group; skip ends the current step of a group "
                + "(stop ends a single timer)"
        ) { _ = try engine.skip(.name("tea")) }
    }

    @Test("rename frees the old name, takes the new one, and refuses a name in use or an invalid one")
    func rename() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea")
        _ = try engine.start(durations: [60], name: "coffee")
        _ = engine.takeEvents()
        let renamed = try engine.rename(.name("tea"), to: "green tea")
        #expect(renamed.name == "green tea" && renamed.id == 1)
        #expect(engine.takeEvents().map(\.kind) == [.renamed(from: "tea")])
        #expect(throws: CountdownError.nameInUse("coffee", id: "2")) { try engine.rename(.id(1), to: "coffee") }
        #expect(throws: CountdownError.invalidName("42")) { try engine.rename(.id(1), to: "42") }
        // "tea" is free again, "green tea" finds timer 1.
        #expect(try engine.start(durations: [60], name: "tea").id == 3)
        #expect(try engine.status(.name("green tea")).id == 1)
    }

    @Test("restart keeps the id; an ended timer comes back only with its name free and under the quota")
    func restart() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1_500, 300], name: "pomodoro")
        clock.advance(bySeconds: 1_000)
        _ = try engine.stop(.id(1))
        clock.advance(bySeconds: 10)
        _ = engine.takeEvents()
        let again = try engine.restart(.name("pomodoro"))
        #expect(again.id == 1 && again.state == .running && again.remaining == 1_800 && again.currentChild == 0)
        #expect(again.startedAt == startWall + 1_010 && again.endedAt == nil)
        #expect(engine.takeEvents().map(\.kind) == [.restarted])
        #expect(engine.liveCount == 1 && engine.endedCount(owner: 0) == 0)
        _ = try engine.stop(.id(1))
        _ = try engine.start(durations: [60], name: "pomodoro")
        #expect(throws: CountdownError.nameInUse("pomodoro", id: "2")) { try engine.restart(.id(1)) }
        _ = try engine.rename(.id(2), to: "other")
        #expect(throws: CountdownError.quotaExceeded(limit: 1)) { try engine.restart(.id(1), quota: 1) }
    }

    @Test("remove drops an ended timer (journaled as removed) and refuses a live one; --all-ended is per owner")
    func remove() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", owner: 1_000)
        _ = try engine.start(durations: [60], owner: 1_000)
        _ = try engine.start(durations: [60], owner: 1_001)
        expectThrows(
            .invalidTransition(timer: "timer 1 (\"tea\")", state: .running, operation: .remove),
            "cannot remove timer 1 (\"tea\"): it is running; only ended (finished or stopped) timers can be "
                + "removed; stop it first"
        ) { _ = try engine.remove(.name("tea")) }
        for id: UInt64 in [1, 2, 3] { _ = try engine.stop(.id(id)) }
        _ = engine.takeChanges()
        _ = engine.takeEvents()
        #expect(try engine.remove(.name("tea"), requester: 1_000).id == 1)
        #expect(engine.takeChanges().removed == [1])
        #expect(engine.removeEnded(owner: 1_001).map(\.id) == [3])
        #expect(engine.takeEvents().map(\.kind) == [.removed, .removed])
        #expect(engine.list(includeEnded: true).map(\.id) == [2])
        #expect(engine.endedCount(owner: 1_000) == 1 && engine.endedCount(owner: 1_001) == 0)
    }
}

/// Runs `body` and requires it to throw `expected` whose message is `message`.
private func expectThrows(
    _ expected: CountdownError, _ message: String, _ body: () throws -> Void
) {
    #expect(expected.description == message)
    #expect(throws: expected) { try body() }
}
