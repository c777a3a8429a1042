/// The engine's timers by id: a dense slab of records plus a small id → slot index.
///
/// A `[UInt64: TimerRecord]` dictionary keeps each ~150-byte record inline in its hash table, which
/// is a power of two at most three-quarters full: with a million timers, two million buckets and
/// over 300 MB. Here the records sit in one array (freed slots are reused) and only the 12-byte
/// id → slot pairs are hashed (docs/performance.md).
struct RecordTable: Sendable, Sequence {
    private var slab: [TimerRecord?] = []
    private var slots: [UInt64: Int32] = [:]
    private var freeSlots: [Int32] = []
    /// Ids written since the last ``forgetChanges()`` (insert, update or removal), so an owner that
    /// persists the engine can journal just what changed in one turn (``TimerEngine/takeChanges()``).
    private(set) var changedIDs: Set<UInt64> = []

    init() {}

    /// The number of records held.
    var count: Int { slots.count }

    /// The record with `id`; setting `nil` removes it.
    ///
    /// - Complexity: O(1) on average.
    subscript(id: UInt64) -> TimerRecord? {
        get {
            guard let slot = slots[id] else { return nil }
            return slab[Int(slot)]
        }
        set {
            changedIDs.insert(id)
            if let slot = slots[id] {
                slab[Int(slot)] = newValue
                if newValue == nil {
                    slots[id] = nil
                    freeSlots.append(slot)
                }
            } else if let newValue {
                if let slot = freeSlots.popLast() {
                    slab[Int(slot)] = newValue
                    slots[id] = slot
                } else {
                    precondition(slab.count < Int(Int32.max), "RecordTable: more than 2^31 timers")
                    slots[id] = Int32(slab.count)
                    slab.append(newValue)
                }
            }
        }
    }

    /// Every record, in no particular order.
    var values: RecordTable { self }

    /// Empties the change set.
    mutating func forgetChanges() {
        changedIDs.removeAll(keepingCapacity: true)
    }

    /// Iterates over the records held, in slab order.
    struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[TimerRecord?]>

        mutating func next() -> TimerRecord? {
            while let slot = base.next() {
                if let record = slot { return record }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(base: slab.makeIterator()) }

    var underestimatedCount: Int { slots.count }
}
