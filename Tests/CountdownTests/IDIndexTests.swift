import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import Countdown

@Suite("IDIndex: an id-indexed array with a dictionary for outliers")
struct IDIndexTests {
    @Test("Random inserts, updates and removals match a dictionary (seeded)", arguments: Array(UInt64(1)...40))
    func matchesDictionary(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var index = IDIndex()
        var model: [UInt64: Int32] = [:]
        var known: [UInt64] = []
        var nextID: UInt64 = 1 + seed * 1_000_000
        for step in 0..<60_000 {
            let id: UInt64
            switch generator.next() % 10 {
            case 0...3:  // the next new id, as the engine hands them out
                id = nextID
                nextID += 1 + (generator.next() % 50 == 0 ? generator.next() % 5_000 : 0)
            case 4: id = generator.next()  // anywhere
            case 5: id = generator.next() % 64  // far below
            default:
                // An existing id, picked from insertion order: a Dictionary's key order changes from
                // run to run (per-process hash seed), which would make the sequence irreproducible.
                let candidate = known.isEmpty ? nextID : known[Int(generator.next() % UInt64(known.count))]
                id = model[candidate] != nil ? candidate : nextID
            }
            if generator.next() % 3 == 0 {
                #expect(index.removeValue(forKey: id) == model.removeValue(forKey: id), "seed \(seed), step \(step)")
            } else {
                let value = Int32(generator.next() % 1_000_000)
                index.set(id, to: value)
                if model.updateValue(value, forKey: id) == nil { known.append(id) }
            }
            if step % 997 == 0 {
                #expect(index.count == model.count, "seed \(seed), step \(step)")
                for (key, value) in model { #expect(index[key] == value, "seed \(seed), step \(step), id \(key)") }
                #expect(index.entries.count == model.count)
            }
            #expect(index[id] == model[id], "seed \(seed), step \(step), id \(id)")
        }
    }

    @Test("Draining every id and starting far above leaves no stale entries")
    func drainAndJump() {
        var index = IDIndex()
        for id in UInt64(1)...5_000 { index.set(id, to: Int32(id)) }
        for id in UInt64(1)...5_000 { #expect(index.removeValue(forKey: id) == Int32(id)) }
        #expect(index.count == 0)
        for id in UInt64(10_000_000)...10_005_000 { index.set(id, to: 7) }
        #expect(index.count == 5_001)
        #expect(index[10_002_000] == 7)
        #expect(index[2_000] == nil)
        index.set(UInt64.max, to: 1)
        #expect(index[UInt64.max] == 1)
        #expect(index.count == 5_002)
    }
}
