import TestSupport
import Testing

@testable import Countdown

/// The deadline queue against the plainest model of it: a dictionary id → deadline, whose
/// earliest entry (ties by id) is found by sorting. The sifts move a hole instead of swapping
/// (DeadlineQueue.swift); these tests prove the order and the id → position index survive
/// every mix of insert, move earlier, move later, remove and pop.
@Suite("DeadlineQueue: the same answers as a sorted model")
struct DeadlineQueueModelTests {
    /// The model's entries in queue order: deadline, then id (what `DeadlineQueue` documents).
    static func sorted(_ model: [UInt64: Int64]) -> [(deadline: Int64, id: UInt64)] {
        model.map { (deadline: $0.value, id: $0.key) }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
    }

    @Test(
        "Random schedules, reschedules, removes and pops match the model",
        arguments: [(seed: UInt64(1), size: 40), (2, 300), (3, 2_000), (4, 2_000)])
    func matchesModel(seed: UInt64, size: Int) {
        var generator = SplitMix64(seed: seed)
        var queue = DeadlineQueue()
        var model: [UInt64: Int64] = [:]
        // Few distinct deadlines so that ties (broken by id) are common.
        func deadline() -> Int64 { Int64(generator.next() % UInt64(size / 4 + 1)) }
        for step in 0..<(size * 10) {
            let id = 1 + generator.next() % UInt64(size)
            switch generator.next() % 8 {
            case 0...3:  // insert, or move earlier or later when queued
                let at = deadline()
                queue.schedule(id, at: BootInstant(nanoseconds: at))
                model[id] = at
            case 4, 5:
                #expect(queue.remove(id) == (model.removeValue(forKey: id) != nil))
            default:
                let now = deadline()
                let limit = Int(generator.next() % 5) + 1
                let expected = Self.sorted(model).prefix { $0.deadline <= now }.prefix(limit)
                let popped = queue.popDue(at: BootInstant(nanoseconds: now), limit: limit)
                // Expected: the model's entries due at `now`, earliest first, at most `limit`.
                #expect(popped.map(\.id) == expected.map(\.id), "step \(step)")
                #expect(popped.map(\.deadline.nanoseconds) == expected.map(\.deadline), "step \(step)")
                for entry in popped { model[entry.id] = nil }
            }
            #expect(queue.count == model.count)
            let first = Self.sorted(model).first
            #expect(queue.first?.id == first?.id, "step \(step)")
            #expect(queue.first?.deadline.nanoseconds == first?.deadline, "step \(step)")
        }
        // Draining pops everything in the model's order, and every id is then absent.
        let all = queue.popDue(at: BootInstant(nanoseconds: .max))
        #expect(all.map(\.id) == Self.sorted(model).map(\.id))
        for id in model.keys { #expect(!queue.contains(id)) }
        #expect(queue.count == 0)
    }
}
