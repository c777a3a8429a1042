import Foundation
import TestSupport
import Testing
import TimerModel

@testable import Countdown

@Suite("RecordTable: records in fixed chunks, found by id")
struct RecordTableTests {
    /// A record told apart by its id and owner (the fields the table stores it under and returns).
    static func record(_ id: UInt64, owner: UInt32) -> TimerRecord {
        TimerRecord(
            id: id, name: nil, durations: [60], segmentNanoseconds: [60_000_000_000], state: .running,
            accumulatedNanoseconds: 0, runStart: BootInstant(nanoseconds: 1), runStartWall: nil,
            createdAt: Date(timeIntervalSinceReferenceDate: 0), startedAt: Date(timeIntervalSinceReferenceDate: 0),
            endedAt: nil, missed: false, owner: owner, wallDeadline: nil)
    }

    // The model is a plain dictionary: whatever the table holds must be exactly what it holds,
    // across many 4,096-record chunks (30,000 inserts reach slot 8 × 4,096 and more) and with freed
    // slots reused in between.
    @Test(
        "Random inserts (subscript or insertNew), replacements and removals match a dictionary (seeded)",
        arguments: Array(UInt64(1)...8))
    func matchesDictionary(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var table = RecordTable()
        var model: [UInt64: UInt32] = [:]
        var known: [UInt64] = []
        var nextID: UInt64 = 1
        for step in 0..<60_000 {
            let roll = generator.next() % 10
            if roll < 5 || known.isEmpty {
                let owner = UInt32(truncatingIfNeeded: generator.next() % 1_000)
                // insertNew (the start's path) or the subscript: the same result.
                if generator.next() & 1 == 0 {
                    table.insertNew(Self.record(nextID, owner: owner))
                } else {
                    table[nextID] = Self.record(nextID, owner: owner)
                }
                model[nextID] = owner
                known.append(nextID)
                nextID += 1
            } else {
                let id = known[Int(generator.next() % UInt64(known.count))]
                if roll < 8 {
                    table[id] = nil
                    model[id] = nil
                } else {
                    let owner = UInt32(truncatingIfNeeded: generator.next() % 1_000) + 5_000
                    // insertNew of an id not above the highest falls back to a replacement
                    // (or a re-insertion of a removed id): never a second slot for one id.
                    if generator.next() & 1 == 0 {
                        table.insertNew(Self.record(id, owner: owner))
                    } else {
                        table[id] = Self.record(id, owner: owner)
                    }
                    model[id] = owner
                }
            }
            if step % 4_999 == 0 {
                #expect(table.count == model.count, "seed \(seed), step \(step)")
                var seen: [UInt64: UInt32] = [:]
                for record in table { seen[record.id] = record.owner }
                #expect(seen == model, "seed \(seed), step \(step)")
            }
        }
        #expect(table.count == model.count)
        for id in known { #expect(table[id]?.owner == model[id], "seed \(seed), id \(id)") }
        #expect(table[nextID] == nil)
    }

    @Test("Iteration is in slot order: ids inserted 1…10,000 come back in that order, then reused slots")
    func iterationOrder() {
        var table = RecordTable()
        for id in UInt64(1)...10_000 { table[id] = Self.record(id, owner: 1) }
        // 10,000 records fill two chunks and part of a third; a table without removals hands out
        // slots 0, 1, 2… in insertion order.
        #expect(table.map(\.id) == Array(UInt64(1)...10_000))
        // Freeing slots 4,095 and 4,096 (ids 4,096 and 4,097, on both sides of the first chunk
        // boundary) and inserting two new ids reuses them, last freed first (slot 4,096, then 4,095).
        table[4_096] = nil
        table[4_097] = nil
        table[20_001] = Self.record(20_001, owner: 2)
        table[20_002] = Self.record(20_002, owner: 2)
        let ids = table.map(\.id)
        #expect(ids.count == 10_000)
        #expect(Array(ids[4_094...4_097]) == [4_095, 20_002, 20_001, 4_098])
    }
}
