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
        try commit(EngineChanges(nextID: 3, updated: records), to: store, .synchronous)
        try commit(EngineChanges(nextID: 3, removed: [2]), to: store, .synchronous)
        #expect(throws: StoreError.idReused(2)) {
            try store.commit(
                EngineChanges(nextID: 3, updated: [records[1]]), durability: .synchronous,
                snapshot: { unexpectedSnapshot() }
            )
        }
        #expect(store.contents.snapshot == EngineSnapshot(nextID: 3, timers: [records[0]]))
    }

    @Test("A second live timer of the same owner and name is refused; ending the first in the same commit frees it")
    func nameTaken() throws {
        let store = MemoryStore()
        var records = try twoRecords()
        records[0].name = "tea"
        try commit(EngineChanges(nextID: 2, updated: [records[0]]), to: store, .synchronous)
        records[1].name = "tea"
        #expect(throws: StoreError.nameTaken(owner: 0, name: "tea")) {
            try commit(EngineChanges(nextID: 3, updated: [records[1]]), to: store, .mayBatch)
        }
        #expect(store.contents.snapshot == EngineSnapshot(nextID: 2, timers: [records[0]]))
        var stopped = records[0]
        stopped.state = .stopped
        try commit(EngineChanges(nextID: 3, updated: [stopped, records[1]]), to: store, .synchronous)
        #expect(store.contents.snapshot.timers.map(\.state) == [.stopped, .running])
        #expect(store.contents.snapshot.timers.map(\.name) == ["tea", "tea"])
        // Another owner may use the name; its second live "tea" is refused like the first owner's.
        var other = records[1]
        other.owner = 1000
        other.id = 3
        try commit(EngineChanges(nextID: 4, updated: [other]), to: store, .synchronous)
        var again = other
        again.id = 4
        var twice = other
        twice.id = 5
        #expect(throws: StoreError.nameTaken(owner: 1000, name: "tea")) {
            try commit(EngineChanges(nextID: 6, updated: [again, twice]), to: store, .synchronous)
        }
        #expect(store.contents.nextID == 4)
    }

    @Test("The refusals read as sentences")
    func descriptions() {
        #expect(
            StoreError.nameTaken(owner: 1000, name: "tea").description
                == "uid 1000 already has a live timer named 'tea'; names are unique among one owner's live timers")
        #expect(StoreError.idReused(7).description == "id 7 was already used; a store never hands an id out twice")
    }
}

/// Commits `changes` to `store`, recording an issue if the store evaluates the snapshot (the memory
/// store never needs it).
private func commit(_ changes: EngineChanges, to store: MemoryStore, _ durability: CommitDurability) throws(StoreError)
{
    try store.commit(changes, durability: durability, snapshot: { unexpectedSnapshot() })
}

/// The snapshot closure of a memory store's commit is never evaluated; this records it if it were.
private func unexpectedSnapshot() -> EngineSnapshot {
    Issue.record("the memory store evaluated the snapshot")
    return EngineSnapshot(nextID: 1, timers: [])
}
