import Countdown
import Foundation
import Testing
import TimerStorage

/// Two timers started on a manual clock: ids 1 and 2, unnamed, owner 0.
private func twoRecords() throws -> [TimerRecord] {
    var engine = TimerEngine(clock: ManualClock(wall: storeTestTime))
    for _ in 0..<2 { _ = try engine.start(durations: [60]) }
    return engine.snapshot.timers
}

@Suite("The memory store refuses what a shared store must refuse, and changes nothing then")
struct MemoryStoreTests {
    @Test("An id handed out before is refused, even after its timer was dropped")
    func idReused() throws {
        let store = MemoryStore()
        let records = try twoRecords()
        try store.commit(
            EngineChanges(nextID: 3, updated: records), durability: .synchronous, snapshot: { unexpectedSnapshot() })
        try store.commit(
            EngineChanges(nextID: 3, removed: [2]), durability: .synchronous, snapshot: { unexpectedSnapshot() })
        #expect(throws: StoreError.idReused(2)) {
            try store.commit(
                EngineChanges(nextID: 3, updated: [records[1]]), durability: .synchronous, snapshot: { unexpectedSnapshot() }
            )
        }
        #expect(store.contents.snapshot == EngineSnapshot(nextID: 3, timers: [records[0]]))
    }

    @Test("A second live timer of the same owner and name is refused; ending the first in the same commit frees it")
    func nameTaken() throws {
        let store = MemoryStore()
        var records = try twoRecords()
        records[0].name = "tea"
        try store.commit(
            EngineChanges(nextID: 2, updated: [records[0]]), durability: .synchronous, snapshot: { unexpectedSnapshot() })
        records[1].name = "tea"
        #expect(throws: StoreError.nameTaken(owner: 0, name: "tea")) {
            try store.commit(
                EngineChanges(nextID: 3, updated: [records[1]]), durability: .mayBatch, snapshot: { unexpectedSnapshot() })
        }
        #expect(store.contents.snapshot == EngineSnapshot(nextID: 2, timers: [records[0]]))
        // Another owner may use the name.
        var other = records[1]
        other.owner = 1000
        var stopped = records[0]
        stopped.state = .stopped
        try store.commit(
            EngineChanges(nextID: 3, updated: [stopped, records[1]]), durability: .synchronous,
            snapshot: { unexpectedSnapshot() })
        #expect(store.contents.snapshot.timers.map(\.state) == [.stopped, .running])
        #expect(store.contents.snapshot.timers.map(\.name) == ["tea", "tea"])
        #expect(throws: StoreError.nameTaken(owner: 1000, name: "tea")) {
            var first = other
            first.id = 3
            other.id = 4
            try store.commit(
                EngineChanges(nextID: 5, updated: [first, other]), durability: .synchronous,
                snapshot: { unexpectedSnapshot() })
        }
        #expect(store.contents.nextID == 3)
    }

    @Test("The refusals read as sentences")
    func descriptions() {
        #expect(
            StoreError.nameTaken(owner: 1000, name: "tea").description
                == "uid 1000 already has a live timer named 'tea'; names are unique among one owner's live timers")
        #expect(StoreError.idReused(7).description == "id 7 was already used; a store never hands an id out twice")
    }
}

/// The snapshot closure of a memory store's commit is never evaluated; this records it if it were.
private func unexpectedSnapshot() -> EngineSnapshot {
    Issue.record("the memory store evaluated the snapshot")
    return EngineSnapshot(nextID: 1, timers: [])
}
