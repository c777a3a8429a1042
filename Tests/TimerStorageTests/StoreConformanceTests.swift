import Countdown
import Foundation
import Testing
import TimerStorage

/// One suite every ``TimerStore`` passes: the file store and the memory store alike. The expected
/// state is always the engine's own ``TimerEngine/snapshot`` at the last commit: a store gives back
/// exactly what it was given.
@Suite("Every store keeps what it was given (conformance)")
struct StoreConformanceTests {
    @Test("A first start finds nothing saved, and needs no wake-up", arguments: StoreKind.allCases)
    func firstStart(kind: StoreKind) throws {
        let fixture = try kind.makeFixture()
        try fixture.session { store in
            let (_, loaded) = try boot(store, clock: ManualClock(wall: storeTestTime))
            #expect(loaded.isEmpty)
            #expect(loaded.snapshot == EngineSnapshot(nextID: 1, timers: []))
            #expect(loaded.notes == [])
            #expect(store.nextWake(now: 1_000_000_000) == nil)
        }
    }

    @Test("Starts, stops, pauses and groups survive a restart without close", arguments: StoreKind.allCases)
    func roundTrip(kind: StoreKind) throws {
        let fixture = try kind.makeFixture()
        let clock = ManualClock(wall: storeTestTime)
        var expected = EngineSnapshot(nextID: 0, timers: [])
        try fixture.session { store in
            var engine = try boot(store, clock: clock).0
            _ = try engine.start(durations: [300], name: "tea")
            _ = try engine.start(durations: [60, 120], name: "steps")
            _ = try engine.start(durations: [90])
            try engine.commit(to: store)
            clock.advance(bySeconds: 10)
            _ = try engine.pause(.id(3))
            _ = try engine.stop(.id(1))
            try engine.commit(to: store)
            expected = engine.snapshot
        }
        try fixture.session { store in
            let loaded = try store.load()
            #expect(loaded.snapshot == expected)
            #expect(loaded.isSameBoot)
            #expect(!loaded.isEmpty)
            #expect(loaded.notes == [])
            // What the session above did: 1 stopped, 2 a running group, 3 paused after 10 s.
            #expect(loaded.snapshot.timers.map(\.state) == [.stopped, .running, .paused])
            #expect(loaded.snapshot.timers.map(\.durations) == [[300], [60, 120], [90]])
            #expect(loaded.snapshot.timers.map(\.name) == ["tea", "steps", nil])
            #expect(loaded.snapshot.timers[2].accumulatedNanoseconds == 10_000_000_000)
            #expect(loaded.snapshot.nextID == 4)
        }
    }

    @Test(
        "Ids are never handed out again after a restart, even of timers dropped from the history",
        arguments: StoreKind.allCases)
    func idsNeverReused(kind: StoreKind) throws {
        let fixture = try kind.makeFixture()
        let clock = ManualClock(wall: storeTestTime)
        try fixture.session { store in
            var engine = try boot(store, clock: clock, historyLimit: 0).0
            for _ in 0..<3 { _ = try engine.start(durations: [60]) }
            try engine.commit(to: store)
            _ = try engine.stop(.id(3))  // history limit 0: dropped at once
            try engine.commit(to: store)
        }
        var expected = EngineSnapshot(nextID: 0, timers: [])
        try fixture.session { store in
            let (booted, loaded) = try boot(store, clock: clock, historyLimit: 0)
            var engine = booted
            #expect(loaded.snapshot.timers.map(\.id) == [1, 2])
            #expect(loaded.snapshot.nextID == 4)  // 1…3 were handed out
            _ = try engine.start(durations: [60])
            try engine.commit(to: store)
            #expect(engine.snapshot.timers.map(\.id) == [1, 2, 4])
            expected = engine.snapshot
            try store.close(engine.snapshot)
        }
        try fixture.session { store in
            let loaded = try store.load()
            #expect(loaded.snapshot == expected)
            #expect(loaded.snapshot.nextID == 5)
            try store.close(loaded.snapshot)
        }
    }

    @Test("Compaction keeps every timer", arguments: StoreKind.allCases)
    func compactionKeepsEverything(kind: StoreKind) throws {
        let fixture = try kind.makeFixture()
        let clock = ManualClock(wall: storeTestTime)
        var expected = EngineSnapshot(nextID: 0, timers: [])
        var compactions = 0
        try fixture.session { store in
            var engine = try boot(store, clock: clock).0
            for turn in 1...6 {
                _ = try engine.start(durations: [Double(turn * 60)], name: "t\(turn)")
                try engine.commit(to: store)
                let snapshot = engine.snapshot
                if try store.compactIfDue(isQuiet: true, snapshot: { snapshot }) { compactions += 1 }
            }
            expected = engine.snapshot
        }
        // The file store's journal limit is 4 records and each turn writes 2 (the timer and the
        // moved next id), so it compacts every second turn; memory has nothing to compact.
        #expect(compactions == (kind == .file ? 3 : 0))
        try fixture.session { store in
            let loaded = try store.load()
            #expect(loaded.snapshot == expected)
            #expect(loaded.snapshot.timers.map(\.name) == ["t1", "t2", "t3", "t4", "t5", "t6"])
        }
    }

    @Test("A batched commit is kept by the next synchronous one", arguments: StoreKind.allCases)
    func durabilityLevels(kind: StoreKind) throws {
        let fixture = try kind.makeFixture()
        let clock = ManualClock(wall: storeTestTime)
        var expected = EngineSnapshot(nextID: 0, timers: [])
        try fixture.session { store in
            var engine = try boot(store, clock: clock).0
            _ = try engine.start(durations: [1])
            _ = try engine.start(durations: [60])
            try engine.commit(to: store, .synchronous)
            clock.advance(bySeconds: 2)
            #expect(engine.fireDueTimers().count == 1)  // timer 1 finishes on its own
            try engine.commit(to: store, .mayBatch)
            _ = try engine.pause(.id(2))
            try engine.commit(to: store, .synchronous)
            expected = engine.snapshot
        }
        try fixture.session { store in
            let loaded = try store.load()
            #expect(loaded.snapshot == expected)
            #expect(loaded.snapshot.timers.map(\.state) == [.finished, .paused])
        }
    }

    @Test("close saves what was never committed, and a closed store loads again", arguments: StoreKind.allCases)
    func close(kind: StoreKind) throws {
        let fixture = try kind.makeFixture()
        let clock = ManualClock(wall: storeTestTime)
        var expected = EngineSnapshot(nextID: 0, timers: [])
        try fixture.session { store in
            var engine = try boot(store, clock: clock).0
            _ = try engine.start(durations: [60], name: "committed")
            try engine.commit(to: store)
            _ = try engine.start(durations: [90], name: "only-at-close")
            _ = try engine.pause(.id(1))
            try store.close(engine.snapshot)
            expected = engine.snapshot
            #expect(try store.load().snapshot == expected)
            try store.close(expected)
        }
        try fixture.session { store in
            let loaded = try store.load()
            #expect(loaded.snapshot == expected)
            #expect(loaded.snapshot.timers.map(\.state) == [.paused, .running])
        }
    }
}
