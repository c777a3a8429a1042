import TestSupport
import Testing

@testable import Countdown

/// `OwnerTable` remembers the slot of the owner last written and moves the last entry into a
/// removed one's slot: these tests compare it, after every operation, with
/// the `[UInt32: OwnerTimers]` dictionary it replaced, so a stale remembered slot or a wrong move
/// would show up as a different entry.
@Suite("OwnerTable: the same entries as a dictionary")
struct OwnerTableTests {
    /// The fields of an entry, comparable.
    static func fields(_ entry: OwnerTimers?) -> [Int]? {
        entry.map { [$0.ids.count, $0.ids.last.map(Int.init) ?? -1, $0.droppedCount, $0.pausedCount, $0.liveCount] }
    }

    @Test("Random updates, in-place changes, sets and removals match the dictionary", arguments: [1, 2, 3] as [UInt64])
    func matchesDictionary(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var table = OwnerTable()
        var model: [UInt32: OwnerTimers] = [:]
        var nextID: UInt64 = 1
        for step in 0..<20_000 {
            // Few owners, so that the remembered slot is hit, missed, removed and moved often.
            let owner = UInt32(generator.next() % 6)
            switch generator.next() % 10 {
            case 0...3:  // a start: append an id, count it live (creates the entry when absent)
                let id = nextID
                nextID += 1
                table.update(owner) { entry in
                    entry.ids.append(id)
                    entry.liveCount += 1
                }
                model[owner, default: OwnerTimers()].ids.append(id)
                model[owner, default: OwnerTimers()].liveCount += 1
            case 4, 5:  // an end: only when the owner has an entry
                table.updateIfPresent(owner) { $0.liveCount -= 1 }
                model[owner]?.liveCount -= 1
            case 6:
                table.update(owner) { $0.pausedCount += 1 }
                model[owner, default: OwnerTimers()].pausedCount += 1
            case 7, 8:
                #expect(Self.fields(table.removeValue(forKey: owner)) == Self.fields(model.removeValue(forKey: owner)))
            default:
                if generator.next() % 50 == 0 {
                    table.removeAll()
                    model = [:]
                } else {
                    var entry = OwnerTimers()
                    entry.droppedCount = Int(generator.next() % 4)
                    table.set(entry, for: owner)
                    model[owner] = entry
                }
            }
            // Expected: the dictionary's entry for every uid (held or not), and its count and keys.
            for uid in UInt32(0)..<6 {
                #expect(Self.fields(table[uid]) == Self.fields(model[uid]), "step \(step), uid \(uid)")
            }
            #expect(table.count == model.count)
            #expect(table.keys.sorted() == model.keys.sorted())
        }
    }
}
