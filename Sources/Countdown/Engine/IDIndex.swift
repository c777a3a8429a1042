/// A map from timer id to a small integer (a record's slot, a heap position), made for ids that
/// are handed out in increasing order: a dense array indexed by `id - base`, plus a dictionary for
/// the few ids outside that window.
///
/// The engine's ids only grow, so nearly every id falls in the window and a lookup or an update is
/// one array access instead of a hash probe (those probes were ~30 % of ``TimerEngine/start`` and
/// stop at a million timers, docs/performance.md). Any `UInt64` id works: an id below the window,
/// or far above it, goes to the dictionary. Once the window holds mostly holes (history trimmed) or
/// the dictionary has grown, the index is rebuilt around the newest ids, at most once per
/// ``count`` changes, so that costs O(log n) per change amortised. Memory: 4 bytes per id in the
/// window, which is kept within 4 × ``count`` + 1,024 ids at each rebuild.
struct IDIndex: Sendable {
    private var base: UInt64 = 0
    /// `dense[i]` is the value of id `base + i`, or -1.
    private var dense: [Int32] = []
    /// Ids outside `base ..< base + dense.count`; never an id inside that window.
    private var sparse: [UInt64: Int32] = [:]
    /// Entries held in `dense` (not -1).
    private var denseCount = 0
    private var changesSinceRebuild = 0

    /// The number of ids held.
    var count: Int { denseCount + sparse.count }

    /// The value for `id`, or `nil`.
    ///
    /// - Complexity: O(1): one array access, or one hash probe for an id outside the window.
    subscript(id: UInt64) -> Int32? {
        let offset = id &- base
        if id >= base, offset < UInt64(dense.count) {
            let value = dense[Int(offset)]
            return value < 0 ? nil : value
        }
        return sparse.isEmpty ? nil : sparse[id]
    }

    /// Sets the value for `id` (≥ 0), inserting it if absent.
    ///
    /// - Complexity: O(1) amortised.
    mutating func set(_ id: UInt64, to value: Int32) {
        precondition(value >= 0, "IDIndex: negative value")
        let offset = id &- base
        if id >= base, offset == UInt64(dense.count) {
            // The id just past the window (every start: ids only grow): what the growing path
            // below does when there is no filler to add, without its loop and bounds.
            if !sparse.isEmpty { sparse.removeValue(forKey: id) }  // now in the window
            dense.append(value)
            denseCount += 1
            noteChange()
            return
        }
        if id >= base, offset < UInt64(dense.count) {
            let wasEmpty = dense[Int(offset)] < 0
            dense[Int(offset)] = value
            if wasEmpty {
                denseCount += 1
                noteChange()  // may rebuild (new base and window): nothing may use `offset` after it
            }
            return
        }
        if id >= base, offset - UInt64(dense.count) <= UInt64(count + 1_024) {
            // Just past the window (the usual case: the next new id): grow it to cover `id`.
            while UInt64(dense.count) < offset {
                let filler = base + UInt64(dense.count)
                if !sparse.isEmpty, let moved = sparse.removeValue(forKey: filler) {
                    dense.append(moved)
                    denseCount += 1
                } else {
                    dense.append(-1)
                }
            }
            if !sparse.isEmpty { sparse.removeValue(forKey: id) }  // now in the window
            dense.append(value)
            denseCount += 1
            noteChange()
            return
        }
        if sparse.updateValue(value, forKey: id) == nil { noteChange() }
    }

    /// Removes `id`.
    ///
    /// - Returns: its value, or `nil` when it was not held.
    /// - Complexity: O(1) amortised.
    @discardableResult
    mutating func removeValue(forKey id: UInt64) -> Int32? {
        let offset = id &- base
        if id >= base, offset < UInt64(dense.count) {
            let value = dense[Int(offset)]
            guard value >= 0 else { return nil }
            dense[Int(offset)] = -1
            denseCount -= 1
            noteChange()
            return value
        }
        guard !sparse.isEmpty, let value = sparse.removeValue(forKey: id) else { return nil }
        noteChange()
        return value
    }

    private mutating func noteChange() {
        changesSinceRebuild += 1
        guard changesSinceRebuild >= Swift.max(count, 1_024) else { return }
        changesSinceRebuild = 0
        if dense.count > 4 * denseCount + 1_024 || sparse.count > count / 4 + 64 { rebuild() }
    }

    /// Lays the index out again: the window starts at the lowest id from which, up to the highest
    /// id, at least half of the ids are held (plus 1,024 of slack); older ids go to the dictionary.
    ///
    /// - Complexity: O(n log n).
    private mutating func rebuild() {
        var entries: [(id: UInt64, value: Int32)] = sparse.map { ($0.key, $0.value) }
        entries.reserveCapacity(count)
        for (offset, value) in dense.enumerated() where value >= 0 {
            entries.append((base + UInt64(offset), value))
        }
        entries.sort { $0.id < $1.id }
        dense = []
        sparse = [:]
        denseCount = 0
        guard let highest = entries.last?.id else {
            base = 0
            return
        }
        var first = entries.count - 1
        for index in entries.indices.reversed() {
            let held = UInt64(entries.count - index)
            if highest - entries[index].id < 2 * held + 1_024 { first = index }
        }
        base = entries[first].id
        dense = [Int32](repeating: -1, count: Int(highest - base) + 1)
        for entry in entries[first...] { dense[Int(entry.id - base)] = entry.value }
        denseCount = entries.count - first
        for entry in entries[..<first] { sparse[entry.id] = entry.value }
    }

    /// Every id held with its value, in no particular order (for invariant checks).
    var entries: [(id: UInt64, value: Int32)] {
        var all: [(id: UInt64, value: Int32)] = sparse.map { ($0.key, $0.value) }
        for (offset, value) in dense.enumerated() where value >= 0 { all.append((base + UInt64(offset), value)) }
        return all
    }
}
