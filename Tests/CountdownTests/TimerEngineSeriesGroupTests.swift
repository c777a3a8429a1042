import Foundation
import Testing
import TimerModel

@testable import Countdown

// Groups started by a recurring series (`start --on EXPR D1 D2…`): a manual clock drives the engine
// as timerd's loop does (sleep to `nextDeadline`, then `fireDueTimers`). The expression `*:*:0/4`
// elapses at every second divisible by 4; the series starts at 09:00:01Z, so its elapses are
// 09:00:04, :08, :12, :16, :20. A run of 2.5 s + 2.5 s takes 5 s, longer than the 4 s period, so
// each overlap rule decides at :08, :12, … The expected lines below are worked out by hand from
// those instants (each comment gives the reasoning).

/// 2026-11-29T09:00:00Z.
private let nine = Date(timeIntervalSince1970: 1_795_942_800)
private let second: Int64 = 1_000_000_000

/// One event as a line: seconds after 09:00:00 (to the millisecond), the timer id and the kind.
private func line(_ event: TimerEvent) -> String {
    let offset = (event.date.timeIntervalSince(nine) * 1000).rounded() / 1000
    let kind: String
    switch event.kind {
    case .elapsed(let missed): kind = "elapsed missed=\(missed)"
    case .steppedToChild(let index): kind = "step \(index + 1)"
    default: kind = event.kind.name.rawValue
    }
    return "\(offset) #\(event.timer.id) \(kind)"
}

/// Sleeps the loop from deadline to deadline until `seconds` have passed; the events as lines.
private func drive(_ engine: inout TimerEngine, _ clock: ManualClock, forSeconds seconds: Double) -> [String] {
    let end = clock.now().advanced(byNanoseconds: Int64((seconds * 1e9).rounded()))
    var lines: [String] = []
    var wakeups = 0
    while let next = engine.nextDeadline, next <= end, wakeups < 10_000 {
        let now = clock.now()
        if next > now { clock.advance(byNanoseconds: next.nanoseconds(since: now)) }
        wakeups += 1
        _ = engine.fireDueTimers()
        lines += engine.takeEvents().map(line)
    }
    let now = clock.now()
    if end > now { clock.advance(byNanoseconds: end.nanoseconds(since: now)) }
    return lines
}

private func makeEngine() -> (TimerEngine, ManualClock) {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine.addingTimeInterval(1))
    var engine = TimerEngine(clock: clock)
    engine.eventRecording = .buffered
    engine.catchUpSpread = 0
    return (engine, clock)
}

private func series(_ overlap: SeriesGroup.Overlap, durations: [Double] = [2.5, 2.5]) -> TimerEngine.RecurrenceRequest {
    TimerEngine.RecurrenceRequest(
        kind: .calendar(expression: "*:*:0/4", zone: TimeZone(identifier: "UTC")),
        group: SeriesGroup(durations: durations, overlap: overlap))
}

@Suite("TimerEngine: groups started by a series (--on EXPR D1 D2…, --overlap)")
struct TimerEngineSeriesGroupTests {
    @Test("skip: an elapse during a run starts nothing; the next free elapse starts the next run")
    func skip() throws {
        var (engine, clock) = makeEngine()
        let started = try engine.start(recurring: series(.skip), name: "standup")
        #expect(started.id == 1)
        #expect(started.recurrence?.group == SeriesGroup(durations: [2.5, 2.5], overlap: .skip))
        _ = engine.takeEvents()
        let lines = drive(&engine, clock, forSeconds: 20)
        // :04 run #2 (to :09, its step 2 at :06.5); :08 #2 still runs: skipped; :12 run #3 (to
        // :17); :16 skipped; :20 run #4.
        #expect(
            lines == [
                "4.0 #1 elapsed missed=0", "4.0 #2 started", "6.5 #2 step 2", "8.0 #1 elapsed missed=0",
                "9.0 #2 finished", "12.0 #1 elapsed missed=0", "12.0 #3 started", "14.5 #3 step 2",
                "16.0 #1 elapsed missed=0", "17.0 #3 finished", "20.0 #1 elapsed missed=0", "20.0 #4 started",
            ])
        // At :21 run #4 is 1 s into its first step of 2.5 s.
        let status = try engine.status(.name("standup"))
        #expect(status.recurrence?.group?.run == 4)
        #expect(status.recurrence?.group?.runCount == 3)
        #expect(status.recurrence?.group?.skippedCount == 2)
        #expect(status.recurrence?.runStep == 1)
        let run = try engine.status(.id(4))
        #expect(run.name == nil)
        #expect(run.children.map(\.duration) == [2.5, 2.5])
        #expect(run.remaining == 4)
    }

    @Test("queue: an elapse during a run queues one run, started when the current one ends")
    func queue() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(recurring: series(.queue), name: "standup")
        _ = engine.takeEvents()
        let lines = drive(&engine, clock, forSeconds: 20)
        // :04 run #2 (to :09); :08 queued; :09 #2 ends, #3 starts (to :14); :12 queued; :14 #4
        // (to :19); :16 queued; :19 #5 (to :24); :20 queued again.
        #expect(
            lines == [
                "4.0 #1 elapsed missed=0", "4.0 #2 started", "6.5 #2 step 2", "8.0 #1 elapsed missed=0",
                "9.0 #2 finished", "9.0 #3 started", "11.5 #3 step 2", "12.0 #1 elapsed missed=0", "14.0 #3 finished",
                "14.0 #4 started", "16.0 #1 elapsed missed=0", "16.5 #4 step 2", "19.0 #4 finished", "19.0 #5 started",
                "20.0 #1 elapsed missed=0",
            ])
        let group = try #require(try engine.status(.name("standup")).recurrence?.group)
        #expect(group.run == 5)
        #expect(group.queued)
        #expect(group.runCount == 4)
        #expect(group.skippedCount == 0)
    }

    @Test("queue: at most one run waits; elapses meanwhile are counted as skipped")
    func queueHoldsOne() throws {
        var (engine, clock) = makeEngine()
        // A run of 10 s: :04 run #2 (to :14); :08 queued; :12 skipped (one waits already); :14 #3.
        _ = try engine.start(recurring: series(.queue, durations: [5, 5]), name: "standup")
        _ = engine.takeEvents()
        let lines = drive(&engine, clock, forSeconds: 14)
        #expect(
            lines == [
                "4.0 #1 elapsed missed=0", "4.0 #2 started", "8.0 #1 elapsed missed=0", "9.0 #2 step 2",
                "12.0 #1 elapsed missed=0", "14.0 #2 finished", "14.0 #3 started",
            ])
        let group = try #require(try engine.status(.name("standup")).recurrence?.group)
        #expect(group.run == 3)
        #expect(!group.queued)
        #expect(group.skippedCount == 1)
    }

    @Test("restart: an elapse during a run stops it and starts a new one from step 1")
    func restart() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(recurring: series(.restart), name: "standup")
        _ = engine.takeEvents()
        let lines = drive(&engine, clock, forSeconds: 10)
        // :04 run #2; :08 #2 stopped (in its step 2), #3 started; :12 is after :11, not reached.
        #expect(
            lines == [
                "4.0 #1 elapsed missed=0", "4.0 #2 started", "6.5 #2 step 2", "8.0 #1 elapsed missed=0",
                "8.0 #2 stopped", "8.0 #3 started", "10.5 #3 step 2",
            ])
        #expect(try engine.status(.id(2)).state == .stopped)
        #expect(try engine.status(.name("standup")).recurrence?.group?.run == 3)
    }

    @Test("skip on the series skips its run's step; stop of the run keeps the series; stop of the series stops its run")
    func operations() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(recurring: series(.skip), name: "standup")
        _ = drive(&engine, clock, forSeconds: 4)  // :05: run #2 is 1 s into step 1
        _ = engine.takeEvents()
        let skipped = try engine.skip(.name("standup"))
        #expect(skipped.id == 2)
        #expect(skipped.currentChild == 1)
        #expect(try engine.status(.name("standup")).recurrence?.runStep == 2)
        _ = try engine.stop(.id(2))
        #expect(try engine.status(.name("standup")).state == .running)
        #expect(try engine.status(.name("standup")).recurrence?.group?.run == nil)
        #expect(throws: CountdownError.noRunInProgress(timer: "timer 1 (\"standup\")")) {
            try engine.skip(.name("standup"))
        }
        _ = engine.takeEvents()
        // :08 run #3 starts; stopping the series at :09 stops it too.
        #expect(drive(&engine, clock, forSeconds: 4) == ["8.0 #1 elapsed missed=0", "8.0 #3 started"])
        _ = try engine.stop(.name("standup"))
        #expect(engine.takeEvents().map(line) == ["9.0 #1 stopped", "9.0 #3 stopped"])
        #expect(engine.liveCount == 0)
    }

    @Test(
        "Restored in the middle of a run: the run goes on, the series does not start a second one for the same elapse")
    func restoreMidRun() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(recurring: series(.skip), name: "standup")
        _ = drive(&engine, clock, forSeconds: 4)  // :05: run #2 runs (to :09)
        let saved = engine.snapshot
        // The daemon is down for 2 s: back at :07, same boot.
        clock.advance(bySeconds: 2)
        var restored = TimerEngine(clock: clock)
        restored.eventRecording = .buffered
        restored.catchUpSpread = 0
        #expect(restored.restore(saved, sameBoot: true).isEmpty)
        let group = try #require(try restored.status(.name("standup")).recurrence?.group)
        #expect(group.run == 2)
        #expect(group.runCount == 1)
        // :08 skipped (run #2 runs to :09); :12 starts run #3.
        #expect(
            drive(&restored, clock, forSeconds: 5) == [
                "8.0 #1 elapsed missed=0", "9.0 #2 finished", "12.0 #1 elapsed missed=0", "12.0 #3 started",
            ])
    }

    @Test("An elapse passed while down rings at restore after every record is back: restart stops the restored run")
    func restoreCatchUpRestarts() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(recurring: series(.restart, durations: [5, 5]), name: "standup")
        _ = drive(&engine, clock, forSeconds: 4)  // :05: run #2 runs (to :14)
        let saved = engine.snapshot
        // Down for 4 s: back at :09, same boot; the elapse of :08 passed meanwhile.
        clock.advance(bySeconds: 4)
        var restored = TimerEngine(clock: clock)
        restored.eventRecording = .buffered
        restored.catchUpSpread = 0
        #expect(restored.restore(saved, sameBoot: true).isEmpty)
        // The catch-up (spread 0: at once) stands for :08 (missed 1), dated at it; run #2, restored
        // from the store (a higher id than the series), is stopped and run #3 starts.
        #expect(
            restored.takeEvents().map(line) == ["8.0 #1 elapsed missed=1", "9.0 #2 stopped", "9.0 #3 started"])
        let group = try #require(try restored.status(.name("standup")).recurrence?.group)
        #expect(group.run == 3 && group.runCount == 2)
        #expect(restored.liveCount == 2)
    }

    @Test("A run that ended while down starts the queued run at restore")
    func restoreQueued() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(recurring: series(.queue), name: "standup")
        _ = drive(&engine, clock, forSeconds: 7)  // :04 run #2 (to :09); :08 queued; now :08
        #expect(try engine.status(.name("standup")).recurrence?.group?.queued == true)
        let saved = engine.snapshot
        // Down for 2.5 s: back at :10.5; run #2's end (:09) passed meanwhile, no elapse did.
        clock.advance(bySeconds: 2.5)
        var restored = TimerEngine(clock: clock)
        restored.eventRecording = .buffered
        restored.catchUpSpread = 0
        let missed = restored.restore(saved, sameBoot: true)
        // Run #2 is finished as missed at its end (docs/time.md); the queued run #3 starts at restore.
        #expect(missed.map(\.timer.id) == [2])
        #expect(restored.takeEvents().map(line) == ["9.0 #2 missed", "10.5 #3 started"])
        let group = try #require(try restored.status(.name("standup")).recurrence?.group)
        #expect(group.run == 3 && !group.queued && group.runCount == 2)
    }

    @Test("A group too big for a timer is refused when the series starts")
    func refusedGroup() {
        var (engine, _) = makeEngine()
        #expect(throws: CountdownError.groupSizeOutOfRange(101)) {
            try engine.start(recurring: series(.skip, durations: Array(repeating: 1, count: 101)))
        }
        #expect(engine.liveCount == 0)
    }
}
