import Foundation
import Testing
import TimerModel

@testable import Countdown

/// The wall clock when every test starts: 2026-11-29T15:17:33Z.
private let startWall = Date(timeIntervalSince1970: 1_795_965_453)

private let action = TimerAction(
    command: "echo done >> out.txt", notify: true, workingDirectory: "/home/ann",
    environment: [.init("PATH", "/usr/bin:/bin")])

private func makeEngine() -> (engine: TimerEngine, clock: ManualClock) {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: startWall)
    var engine = TimerEngine(clock: clock)
    engine.eventRecording = .buffered
    return (engine, clock)
}

@Suite("TimerEngine on-finish actions: due once on finish or missed, never on stop, recorded in the timer")
struct TimerEngineActionTests {
    @Test("A finish makes exec then notify due once, each recorded as running in the same record write")
    func dueOnFinish() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", owner: 1_000, action: action)
        #expect(engine.takeDueActions().isEmpty)  // nothing before the end
        clock.advance(bySeconds: 60)
        _ = engine.fireDueTimers()
        let due = engine.takeDueActions()
        // One run per kind, exec first (TimerAction.kinds), for the event that happened.
        #expect(due.map(\.kind) == [.exec, .notify])
        #expect(due.allSatisfy { $0.timerID == 1 && $0.trigger == .finished && $0.name == "tea" && $0.duration == 60 })
        #expect(due.first?.action.command == "echo done >> out.txt" && due.first?.owner == 1_000)
        let runs = try #require(engine.action(ofTimer: 1)?.runs)
        #expect(runs.map(\.outcome) == [.running, .running])
        #expect(runs.allSatisfy { $0.startedAt == startWall + 60 })
        // The finish and the runs are one change: the record the store journals carries both.
        #expect(engine.takeChanges().updated.first?.action?.runs.count == 2)
        #expect(engine.takeDueActions().isEmpty)  // taken once
    }

    @Test("A stop runs nothing; a group runs its action once, at its end, not per step")
    func stopAndGroup() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], action: action)
        _ = try engine.stop(.id(1))
        #expect(engine.takeDueActions().isEmpty)
        #expect(engine.action(ofTimer: 1)?.runs == [])
        _ = try engine.start(durations: [10, 20], action: action)
        clock.advance(bySeconds: 10)
        _ = engine.fireDueTimers()  // step to child 2
        #expect(engine.takeDueActions().isEmpty)
        clock.advance(bySeconds: 20)
        _ = engine.fireDueTimers()
        #expect(engine.takeDueActions().map(\.timerID) == [2, 2])
    }

    @Test("A timer that ended while no engine ran gets its action once, with trigger missed")
    func missedOnRestore() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], action: action)
        let saved = engine.snapshot
        clock.advance(bySeconds: 600)
        var restarted = TimerEngine(clock: clock)
        let missed = restarted.restore(saved, sameBoot: true)
        #expect(missed.map(\.timer.id) == [1])
        #expect(restarted.takeDueActions().map(\.trigger) == [.missed, .missed])
        // Restoring what that start-up saved makes nothing due again: the runs are recorded.
        let afterwards = restarted.snapshot
        var third = TimerEngine(clock: clock)
        _ = third.restore(afterwards, sameBoot: true)
        #expect(third.takeDueActions().isEmpty)
    }

    /// The runs a restore makes due for a missed timer are this start-up's, not a stopped
    /// daemon's: the daemon's `interruptUnfinishedActionRuns()` right after the restore leaves them
    /// running, so their outcome is recorded and reported with trigger `missed`. Before, they were
    /// marked interrupted ("was running when timerd stopped") and their outcome was then refused
    /// ("the timer is no longer kept"), with no `action` event.
    @Test("A missed timer's runs survive the interruption pass; their outcome is recorded with trigger missed")
    func missedRunsAreNotInterrupted() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], action: action)
        let saved = engine.snapshot
        clock.advance(bySeconds: 600)
        var restarted = TimerEngine(clock: clock)
        restarted.eventRecording = .buffered
        _ = restarted.restore(saved, sameBoot: true)
        #expect(restarted.interruptUnfinishedActionRuns().isEmpty)
        #expect(restarted.action(ofTimer: 1)?.runs.map(\.outcome) == [.running, .running])
        #expect(restarted.takeDueActions().map(\.trigger) == [.missed, .missed])
        _ = restarted.takeEvents()
        #expect(restarted.recordActionOutcome(timer: 1, kind: .exec, outcome: .exited(0)) != nil)
        let events = restarted.takeEvents()
        #expect(
            events.map(\.kind) == [.action(TimerEvent.ActionReport(kind: .exec, trigger: .missed, outcome: .exited(0)))]
        )
        #expect(restarted.action(ofTimer: 1)?.runs.map(\.outcome) == [.exited(0), .running])
        // A run of an earlier daemon beside a due one: only the earlier one is interrupted.
        let crashed = restarted.snapshot  // notify still running
        clock.advance(bySeconds: 60)
        var third = TimerEngine(clock: clock)
        _ = third.restore(crashed, sameBoot: true)
        #expect(third.interruptUnfinishedActionRuns().map(\.kind) == [.notify])
    }

    @Test("Runs still running in a restored state are marked interrupted and not run again (at most once)")
    func interruptedAfterCrash() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], action: action)
        clock.advance(bySeconds: 60)
        _ = engine.fireDueTimers()
        _ = engine.takeDueActions()
        engine.recordActionOutcome(timer: 1, kind: .exec, outcome: .exited(0))
        let crashed = engine.snapshot  // notify still running when the daemon died
        var restarted = TimerEngine(clock: clock)
        _ = restarted.restore(crashed, sameBoot: true)
        let marked = restarted.interruptUnfinishedActionRuns()
        #expect(marked.map(\.timerID) == [1] && marked.map(\.kind) == [.notify])
        #expect(restarted.action(ofTimer: 1)?.runs.map(\.outcome) == [.exited(0), .interrupted])
        #expect(restarted.takeDueActions().isEmpty)
        #expect(restarted.interruptUnfinishedActionRuns().isEmpty)
    }

    @Test("An outcome is recorded once, dated, and reported as an action event")
    func outcomeEvent() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", owner: 7, action: action)
        clock.advance(bySeconds: 60)
        _ = engine.fireDueTimers()
        _ = engine.takeEvents()
        clock.advance(bySeconds: 2)
        #expect(engine.recordActionOutcome(timer: 1, kind: .exec, outcome: .exited(3))?.id == 1)
        let events = engine.takeEvents()
        let report = TimerEvent.ActionReport(kind: .exec, trigger: .finished, outcome: .exited(3))
        #expect(events.map(\.kind) == [.action(report)])
        #expect(events.first?.owner == 7 && events.first?.date == startWall + 62)
        #expect(events.first?.kind.name == .action)
        let run = try #require(engine.action(ofTimer: 1)?.runs.first)
        #expect(run.outcome == .exited(3) && run.endedAt == startWall + 62)
        // A second result for the same run is refused: it is no longer running.
        #expect(engine.recordActionOutcome(timer: 1, kind: .exec, outcome: .exited(0)) == nil)
        #expect(engine.recordActionOutcome(timer: 99, kind: .exec, outcome: .exited(0)) == nil)
    }

    @Test(
        "Each finish is one event: a timer that finishes again (started anew from its record) acts again, runs kept bounded"
    )
    func eachFinishActsOnce() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1], action: action)
        clock.advance(bySeconds: 1)
        _ = engine.fireDueTimers()
        #expect(engine.takeDueActions().count == 2)
        // A finished timer never finishes again by itself: more time and firing make nothing due.
        clock.advance(bySeconds: 10)
        _ = engine.fireDueTimers()
        #expect(engine.takeDueActions().isEmpty)
        // Restored with 20 earlier finishes' runs and running again (as a restart leaves it): it acts
        // again, and keeps the 16 newest runs (TimerEngine.maximumActionRuns).
        var record = try #require(engine.snapshot.timers.first)
        record.action?.runs = (0..<20).map { _ in
            ActionRun(kind: .exec, trigger: .finished, startedAt: startWall, outcome: .exited(0))
        }
        record.state = .running
        record.accumulatedNanoseconds = 0
        record.runStart = clock.now()
        record.runStartWall = clock.wallNow()
        record.endedAt = nil
        var again = TimerEngine(clock: clock)
        _ = again.restore(EngineSnapshot(nextID: 2, timers: [record]), sameBoot: true)
        clock.advance(bySeconds: 1)
        _ = again.fireDueTimers()
        #expect(again.takeDueActions().map(\.kind) == [.exec, .notify])
        let runs = try #require(again.action(ofTimer: 1)?.runs)
        #expect(runs.count == 16 && runs.suffix(2).map(\.outcome) == [.running, .running])
    }

    @Test("The wire status follows the shell: exit code, 128+signal, 124 time-out, 127 not started")
    func outcomeStatus() {
        // Values from sh(1) (128+N for signal N, 127 command not found) and timeout(1) (124).
        #expect(ActionRun.Outcome.exited(5).status == 5)
        #expect(ActionRun.Outcome.signalled(9).status == 137)
        #expect(ActionRun.Outcome.timedOut.status == 124)
        #expect(ActionRun.Outcome.failedToStart(2).status == 127)
        #expect(ActionRun.Outcome.interrupted.status == nil && ActionRun.Outcome.running.status == nil)
    }
}

@Suite("TimerRecord's size")
struct TimerRecordLayoutTests {
    @Test("A record is 64 bytes, and 64 in the record table's optional slot")
    func size() {
        // TimerRecord.swift's layout comment: id 8, owner 4, state 1,
        // missed 1, wall slot tag 1 (+1 padding), accumulated 8, runStart 8, total nanoseconds 8,
        // createdAt 8, the wall slot 8, the spill reference 8 = 64 (extensions live in the
        // spill, not inline). The record table keeps `TimerRecord?`: the tag fits in
        // the spare values of `state`, so a slot is 64 bytes too.
        #expect(MemoryLayout<TimerRecord>.size == 64)
        #expect(MemoryLayout<TimerRecord>.stride == 64)
        #expect(MemoryLayout<TimerRecord?>.stride == 64)
    }

    @Test("The out-of-line values of a named or restarted timer take 72 bytes")
    func spillSize() {
        // TimerRecord.Rare: name 16, segments 17 (a two-case payload of 16 bytes and its tag),
        // padded to 24, three instants as bit patterns 24, extensions 8 = 72 (it was 96 with
        // `Date?` instants); the box adds the 16-byte object header: an 88-byte object.
        #expect(MemoryLayout<TimerRecord.Rare>.size == 72)
    }
}
