import Foundation
import TestSupport
import Testing
import TimerModel

@testable import Countdown

@Suite("TimerEngine keeps each owner's history and counters apart (docs/fairness.md)")
struct TimerEngineFairnessTests {
    private let userA: UInt32 = 1_000
    private let userB: UInt32 = 1_001

    private func makeEngine(historyLimit: Int) -> TimerEngine {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        return TimerEngine(clock: clock, historyLimit: historyLimit)
    }

    /// The attack: with `--history-limit 10`, 12 stops by user B would remove user
    /// A's ended timer if the limit were global. The limit is per owner, so A's one ended timer stays.
    @Test("Another user's ended timers never evict yours")
    func historyIsPerOwner() throws {
        var engine = makeEngine(historyLimit: 10)
        _ = try engine.start(durations: [60], owner: userA)  // id 1
        _ = try engine.stop(.id(1), requester: userA)
        for id: UInt64 in 2...13 {
            _ = try engine.start(durations: [60], owner: userB)
            _ = try engine.stop(.id(id), requester: userB)
        }
        // A's history: timer 1. B's: its 10 most recent, ids 4…13 (2 and 3 dropped by B's own limit).
        #expect(engine.list(includeEnded: true, requester: userA).map(\.id) == [1])
        #expect(engine.list(includeEnded: true, requester: userB).map(\.id) == Array(4...13))
        #expect(engine.list(includeEnded: true).count == 11)
    }

    /// The per-owner limit also holds after a restart (the history is rebuilt per owner).
    @Test("A restored engine trims each owner's history separately")
    func restoredHistoryIsPerOwner() throws {
        var engine = makeEngine(historyLimit: 3)
        _ = try engine.start(durations: [60], owner: userA)  // id 1
        _ = try engine.stop(.id(1), requester: userA)
        for id: UInt64 in 2...4 {
            _ = try engine.start(durations: [60], owner: userB)
            _ = try engine.stop(.id(id), requester: userB)
        }
        var restored = makeEngine(historyLimit: 2)
        _ = restored.restore(engine.snapshot, sameBoot: true)
        #expect(restored.list(includeEnded: true).map(\.id) == [1, 3, 4])
        #expect(restored.endedCount(owner: userA) == 1)
        #expect(restored.endedCount(owner: userB) == 2)
    }

    @Test("Live and running counts per owner follow start, pause, stop and restore")
    func perOwnerCounts() throws {
        var engine = makeEngine(historyLimit: 10)
        _ = try engine.start(durations: [60], owner: userA)  // 1
        _ = try engine.start(durations: [60], owner: userA)  // 2
        _ = try engine.start(durations: [60], owner: userB)  // 3
        _ = try engine.pause(.id(2), requester: userA)
        #expect(engine.liveCount(owner: userA) == 2)
        #expect(engine.runningCount(owner: userA) == 1)
        #expect(engine.liveCount(owner: userB) == 1)
        _ = try engine.stop(.id(3), requester: userB)
        #expect(engine.liveCount(owner: userB) == 0)
        var restored = makeEngine(historyLimit: 10)
        _ = restored.restore(engine.snapshot, sameBoot: true)
        #expect(restored.liveCount(owner: userA) == 2)
        #expect(restored.runningCount(owner: userA) == 1)
        #expect(restored.liveCount == 2)
    }

    /// The quota reads the per-owner counter: B at its quota does not stop A.
    @Test("The live-timer quota is counted per owner")
    func quotaPerOwner() throws {
        var engine = makeEngine(historyLimit: 10)
        for _ in 0..<2 { _ = try engine.start(durations: [60], owner: userB, quota: 2) }
        #expect(throws: CountdownError.quotaExceeded(limit: 2)) {
            _ = try engine.start(durations: [60], owner: self.userB, quota: 2)
        }
        _ = try engine.start(durations: [60], owner: userA, quota: 2)
        _ = try engine.stop(.id(1), requester: userB)
        _ = try engine.start(durations: [60], owner: userB, quota: 2)
        #expect(engine.liveCount == 3)  // A: 1 (id 3), B: 2 (ids 2 and 4)
    }
}
