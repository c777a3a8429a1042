/// The engine's timers by id: a dense slab of records plus a small id → slot index.
///
/// A `[UInt64: TimerRecord]` dictionary keeps each ~150-byte record inline in its hash table, which
/// is a power of two at most three-quarters full: with a million timers, two million buckets and
/// over 300 MB. Here the records sit in one array (freed slots are reused), found through an
/// ``IDIndex`` (id → slot): an array indexed by id, since ids only grow (docs/performance.md).
///
/// The slab is a list of fixed-size chunks (4,096 records, allocated at their full size once), not
/// one growing array: growing one array of a million 120-byte records by doubling copies every
/// record again at each doubling and faults in the new pages twice, which was over a third of
/// ``TimerEngine/start`` at a million timers (`perf`, docs/performance.md). A chunk never moves.
struct RecordTable: Sendable, Sequence {
    /// Records per chunk: a power of two (slot = chunk × size + offset).
    private static let chunkShift = 12
    private static let chunkSize = 1 << chunkShift
    private static let chunkMask = chunkSize - 1
    private var chunks: [[TimerRecord?]] = []
    /// Slots handed out so far (used or free): the next new slot.
    private var slotCount = 0
    private var slots = IDIndex()
    private var freeSlots: [Int32] = []
    /// The highest id ever stored (removed ones included): a higher id is certainly not held.
    private var highestID: UInt64 = 0
    /// Ids written since the last ``forgetChanges()`` (insert, update or removal), in the order
    /// written and possibly repeated, so an owner that persists the engine can journal just what
    /// changed in one turn (``TimerEngine/takeChanges()``). An array, not a set: appending costs no
    /// hash probe, which a start would otherwise pay on top of the id → slot one
    /// (docs/performance.md); duplicates are folded whenever the log doubles, so it stays within
    /// twice the number of distinct ids (plus 1,024) even when nobody takes the changes.
    private var changeLog: [UInt64] = []
    private var changeLogLimit = Self.minimumChangeLogLimit
    private static let minimumChangeLogLimit = 1_024
    /// Counts every read, write and scanned slot when set (tests only; ``RecordProbe``).
    var probe: RecordProbe?

    init() {}

    /// The number of records held.
    var count: Int { slots.count }

    /// Whether any id was written since the last ``forgetChanges()``.
    var hasChanges: Bool { !changeLog.isEmpty }

    /// The ids written since the last ``forgetChanges()``, each once, ascending.
    ///
    /// - Complexity: O(k log k) for k writes.
    var changedIDs: [UInt64] { Self.sortedUnique(changeLog) }

    /// The record with `id`; setting `nil` removes it.
    ///
    /// - Complexity: O(1) amortised: one ``IDIndex`` access.
    subscript(id: UInt64) -> TimerRecord? {
        get {
            probe?.visit()
            guard let slot = slots[id] else { return nil }
            return chunks[Int(slot) >> Self.chunkShift][Int(slot) & Self.chunkMask]
        }
        set {
            probe?.visit()
            noteChange(id)
            guard let newValue else {
                if let slot = slots.removeValue(forKey: id) {
                    chunks[Int(slot) >> Self.chunkShift][Int(slot) & Self.chunkMask] = nil
                    freeSlots.append(slot)
                }
                return
            }
            place(newValue, id: id)
        }
    }

    /// Inserts or replaces `record` without marking it changed: for ``TimerEngine/restore(_:sameBoot:)``,
    /// whose records the store already holds as they are (journaling a million unchanged records
    /// at start-up, then compacting the journal they overflowed, was half of exec to `READY=1`;
    /// docs/performance.md).
    ///
    /// - Parameter record: the record, stored under its id.
    mutating func insertUnchanged(_ record: TimerRecord) {
        probe?.visit()
        place(record, id: record.id)
    }

    /// Inserts a record, marked changed: the same as `self[record.id] = record`, but an id above
    /// every id held so far (a start: ids only grow) is not looked up first (one
    /// ``IDIndex`` probe and one record copy less per start).
    ///
    /// - Parameter record: the record, stored under its id.
    mutating func insertNew(_ record: consuming TimerRecord) {
        let id = record.id
        guard id > highestID else {
            self[id] = record
            return
        }
        probe?.visit()
        noteChange(id)
        highestID = id
        placeInNewSlot(record, id: id)
    }

    private mutating func place(_ record: TimerRecord, id: UInt64) {
        highestID = Swift.max(highestID, id)
        if let slot = slots[id] {
            chunks[Int(slot) >> Self.chunkShift][Int(slot) & Self.chunkMask] = record
        } else {
            placeInNewSlot(record, id: id)
        }
    }

    /// Stores the record of an `id` that has no slot: in a freed slot, else in a new one at the end
    /// (a new chunk of ``chunkSize`` slots, allocated at its full size, when the last is full).
    private mutating func placeInNewSlot(_ record: TimerRecord, id: UInt64) {
        if let slot = freeSlots.popLast() {
            slots.set(id, to: slot)
            chunks[Int(slot) >> Self.chunkShift][Int(slot) & Self.chunkMask] = record
            return
        }
        precondition(slotCount < Int(Int32.max), "RecordTable: more than 2^31 timers")
        slots.set(id, to: Int32(slotCount))
        if slotCount & Self.chunkMask == 0 {
            var chunk: [TimerRecord?] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[slotCount >> Self.chunkShift].append(record)
        slotCount += 1
    }

    private mutating func noteChange(_ id: UInt64) {
        changeLog.append(id)
        if changeLog.count >= changeLogLimit {
            changeLog = Self.sortedUnique(changeLog)
            changeLogLimit = Swift.max(Self.minimumChangeLogLimit, 2 * changeLog.count)
        }
    }

    private static func sortedUnique(_ ids: [UInt64]) -> [UInt64] {
        var sorted = ids.sorted()
        var kept = 0
        for index in sorted.indices where kept == 0 || sorted[index] != sorted[kept - 1] {
            sorted[kept] = sorted[index]
            kept += 1
        }
        sorted.removeLast(sorted.count - kept)
        return sorted
    }

    /// Every record, in no particular order.
    var values: RecordTable { self }

    /// Empties the change set.
    mutating func forgetChanges() {
        changeLog.removeAll(keepingCapacity: true)
        changeLogLimit = Self.minimumChangeLogLimit
    }

    /// Iterates over the records held, in slot order.
    struct Iterator: IteratorProtocol {
        fileprivate var base: FlattenSequence<[[TimerRecord?]]>.Iterator
        fileprivate let probe: RecordProbe?

        mutating func next() -> TimerRecord? {
            while let slot = base.next() {
                probe?.visit()
                if let record = slot { return record }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(base: chunks.joined().makeIterator(), probe: probe) }

    var underestimatedCount: Int { slots.count }
}
