import Foundation
import TestSupport
import Testing
import TimerModel

@testable import Countdown

/// The per-request and per-tick paths touch O(1) records, whatever other users hold.
/// Counted with a ``RecordProbe`` (every read, write and scanned slot of the record table), not timed.
@Suite("Per-request and per-tick costs do not grow with other users' timers")
struct EngineCountersTests {
    private let bulkUser: UInt32 = 1_000
    private let otherUser: UInt32 = 2_000

    private func makeEngine(historyLimit: Int = 1_000) -> (TimerEngine, ManualClock) {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        return (TimerEngine(clock: clock, historyLimit: historyLimit), clock)
    }

    /// 100,000 timers of one user, then one start by another user under a quota and one status
    /// summary. A quota check that scanned every record would make 100,000 visits, and a
    /// status line that listed them all 100,000 visits plus a sort; the start writes its own
    /// record (1 visit) and the summary reads the one record at the head of the deadline queue
    /// (1 visit: every bulk timer has the same deadline, so the walk stops at the second entry
    /// without reading it).
    @Test("With 100,000 timers of one user, another user's start and the status summary visit 1 record each")
    func hotPathsVisitOneRecord() throws {
        var (engine, _) = makeEngine()
        engine.eventRecording = .buffered  // as the daemon's service runs it
        for _ in 0..<100_000 { _ = try engine.start(durations: [3_600], owner: bulkUser) }
        let probe = RecordProbe()
        engine.recordProbe = probe

        let started = try engine.start(durations: [60], owner: otherUser, quota: 10_000)
        #expect(started.id == 100_001)
        #expect(probe.count == 1)

        probe.reset()
        let summary = engine.statusSummary()
        #expect(summary == EngineStatusSummary(running: 100_001, paused: 0, nextEndSeconds: 60))
        #expect(probe.count == 1)

        // The other user's listing reads its own record only; counters for daemon.stats read none.
        probe.reset()
        #expect(engine.list(requester: otherUser).map(\.id) == [100_001])
        #expect(engine.runningCount(owner: otherUser) == 1)
        #expect(engine.liveCount(owner: bulkUser) == 100_000)
        #expect(probe.count == 1)

        // A stop by the other user: resolve (1 read), requireState (1 read), end (1 read, 1 write).
        probe.reset()
        _ = try engine.stop(.id(100_001), requester: otherUser)
        #expect(probe.count == 4)
    }

    /// A running group wakes at each child's end, so the walk reads past it to the first plain
    /// timer whose end comes earlier than the group's: 2 records here, not the 3 timers.
    @Test("The next end of a status summary is the earliest end, not the earliest wake of a group")
    func nextEndSkipsGroupSteps() throws {
        var (engine, clock) = makeEngine()
        engine.eventRecording = .buffered
        _ = try engine.start(durations: [10, 500], owner: bulkUser)  // wakes at 10 s, ends at 510 s
        _ = try engine.start(durations: [100], owner: bulkUser)  // ends at 100 s
        _ = try engine.start(durations: [200], owner: otherUser)  // ends at 200 s
        _ = try engine.pause(.id(3), requester: otherUser)
        clock.advance(bySeconds: 4)
        let probe = RecordProbe()
        engine.recordProbe = probe
        #expect(engine.statusSummary() == EngineStatusSummary(running: 2, paused: 1, nextEndSeconds: 96))
        #expect(probe.count == 2)
    }

    /// The counters against a full scan after 3,000 random operations by 5 users (seed 11), with
    /// a small history so that trimming (by count and by age) runs often, and a restore midway.
    @Test("Counters and per-owner lists match a full scan after random operations (seed 11)")
    func countersMatchScan() throws {
        var (engine, clock) = makeEngine(historyLimit: 7)
        engine.historyMaximumAge = 120
        var random = SplitMix64(seed: 11)
        for step in 0..<3_000 {
            let owner = UInt32(1_000 + random.next() % 5)
            let id = 1 + random.next() % max(1, engine.snapshot.nextID)
            // Cases 6-9: the edits (restart, remove, extend, skip), which move records
            // between live and ended and in and out of the table.
            switch random.next() % 10 {
            case 0, 1:
                let durations = (0...(random.next() % 2)).map { _ in Double(1 + random.next() % 90) }
                _ = try? engine.start(durations: durations, owner: owner)
            case 2: _ = try? engine.pause(.id(id), requester: owner)
            case 3: _ = try? engine.resume(.id(id), requester: owner)
            case 4: _ = try? engine.stop(.id(id), requester: nil)
            case 6: _ = try? engine.restart(.id(id), requester: owner, quota: 10_000)
            case 7: _ = try? engine.remove(.id(id), requester: owner)
            case 8:
                let seconds = Double(Int(random.next() % 120) - 60)
                _ = try? engine.extend(.id(id), bySeconds: seconds == 0 ? 1 : seconds, requester: owner)
            case 9: _ = try? engine.skip(.id(id), requester: owner)
            default:
                clock.advance(bySeconds: Double(random.next() % 30))
                _ = engine.fireDueTimers()
            }
            if step == 1_500 {
                var restored = TimerEngine(clock: clock, historyLimit: 7)
                restored.historyMaximumAge = 120
                _ = restored.restore(engine.snapshot, sameBoot: true)
                engine = restored
            }
            let all = engine.snapshot.timers
            let live = all.filter(\.state.isLive)
            let running = live.filter { $0.state == .running }
            let summary = engine.statusSummary()
            #expect(summary.running == running.count && summary.paused == live.count - running.count)
            let nextEnd = running.compactMap(\.deadline).min().map { Double($0.nanoseconds(since: clock.now())) / 1e9 }
            #expect(summary.nextEndSeconds == nextEnd.map { max(0, $0) })
            for user: UInt32 in 1_000..<1_005 {
                let own = all.filter { $0.owner == user }
                #expect(engine.list(includeEnded: true, requester: user).map(\.id) == own.map(\.id))
                #expect(engine.list(requester: user).map(\.id) == own.filter(\.state.isLive).map(\.id))
                #expect(engine.pausedCount(owner: user) == own.filter { $0.state == .paused }.count)
                #expect(engine.runningCount(owner: user) == own.filter { $0.state == .running }.count)
            }
        }
    }
}
