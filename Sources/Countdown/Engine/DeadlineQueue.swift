/// An indexed 4-ary min-heap of (deadline, timer id): the earliest deadline in O(1), insert, update
/// and remove by id in O(log n).
///
/// The daemon arms exactly one OS timer for ``first``; timers due at the same moment come out of
/// ``popDue(at:)`` in one batch. Ties are broken by id, so the order is deterministic.
/// (Structure after libuv's and Go's timer heaps; docs/architecture.md says where it sits.)
public struct DeadlineQueue: Sendable {
    private struct Entry: Sendable {
        var deadline: BootInstant
        var id: UInt64

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private var heap: [Entry] = []
    /// id → index in `heap`: an array indexed by id (ids only grow), not a hash table, as every
    /// sift step updates it (docs/performance.md).
    private var positions = IDIndex()

    /// Creates an empty queue.
    public init() {}

    /// The number of queued timers.
    public var count: Int { heap.count }

    /// The earliest deadline and its timer, or `nil` when empty.
    public var first: (deadline: BootInstant, id: UInt64)? {
        heap.first.map { ($0.deadline, $0.id) }
    }

    /// The queued ids, in heap order (not sorted).
    public var ids: [UInt64] { heap.map(\.id) }

    /// Whether `id` is queued.
    public func contains(_ id: UInt64) -> Bool { positions[id] != nil }

    /// Queues `id` at `deadline`, or moves it there if it is already queued.
    ///
    /// - Complexity: O(log n).
    public mutating func schedule(_ id: UInt64, at deadline: BootInstant) {
        if let slot = positions[id] {
            let index = Int(slot)
            let old = heap[index]
            heap[index].deadline = deadline
            if heap[index].precedes(old) { siftUp(index) } else { siftDown(index) }
        } else {
            // Indexed once, where the sift leaves it (not also at the end first).
            heap.append(Entry(deadline: deadline, id: id))
            siftUp(heap.count - 1, isNew: true)
        }
        checkInvariants()
    }

    /// Removes `id` if it is queued.
    ///
    /// - Returns: whether it was queued.
    /// - Complexity: O(log n).
    @discardableResult
    public mutating func remove(_ id: UInt64) -> Bool {
        guard let slot = positions.removeValue(forKey: id) else { return false }
        let index = Int(slot)
        let last = heap.removeLast()
        if index < heap.count {
            heap[index] = last
            positions.set(last.id, to: Int32(index))
            siftUp(index)
            if let moved = positions[last.id] { siftDown(Int(moved)) }
        }
        checkInvariants()
        return true
    }

    /// Removes and returns every timer whose deadline is at or before `now`, earliest first.
    ///
    /// - Complexity: O(k log n) for k due timers.
    public mutating func popDue(at now: BootInstant) -> [(deadline: BootInstant, id: UInt64)] {
        popDue(at: now, limit: .max)
    }

    /// Removes and returns at most `limit` timers whose deadline is at or before `now`, earliest
    /// first; the others stay queued for the next call.
    ///
    /// - Parameters:
    ///   - now: the instant on the boot-time clock.
    ///   - limit: the most timers to return (≥ 1; smaller counts as 1).
    /// - Returns: the due timers, earliest first.
    /// - Complexity: O(k log n) for the k ≤ `limit` timers returned.
    public mutating func popDue(at now: BootInstant, limit: Int) -> [(deadline: BootInstant, id: UInt64)] {
        let limit = max(1, limit)
        var due: [(deadline: BootInstant, id: UInt64)] = []
        while due.count < limit, let top = heap.first, top.deadline <= now {
            due.append((top.deadline, top.id))
            remove(top.id)
        }
        return due
    }

    /// Visits the queued timers in deadline order (ties by id) until `body` returns `false`,
    /// without changing the queue: a best-first walk of the heap from its root.
    ///
    /// - Parameter body: called with each deadline and id; returns whether to go on.
    /// - Complexity: O(m²) for the m entries visited (a frontier of at most 3m + 1 heap positions,
    ///   searched linearly: callers visit a handful).
    public func visitInOrder(_ body: (BootInstant, UInt64) -> Bool) {
        guard !heap.isEmpty else { return }
        var frontier = [0]
        while !frontier.isEmpty {
            var best = 0
            for candidate in frontier.indices.dropFirst() where heap[frontier[candidate]].precedes(heap[frontier[best]])
            {
                best = candidate
            }
            frontier.swapAt(best, frontier.count - 1)
            let index = frontier.removeLast()
            guard body(heap[index].deadline, heap[index].id) else { return }
            let firstChild = 4 * index + 1
            if firstChild < heap.count { frontier += firstChild..<min(firstChild + 4, heap.count) }
        }
    }

    // Both sifts move a hole instead of swapping: each entry passed over is written once and its
    // position set once, and the moving entry is written and indexed once at the end (a swap wrote
    // both entries and set both positions per level).

    /// - Parameter isNew: whether the entry at `start` is not indexed yet (index it even when it stays).
    private mutating func siftUp(_ start: Int, isNew: Bool = false) {
        var index = start
        let moving = heap[start]
        while index > 0 {
            let parent = (index - 1) / 4
            let above = heap[parent]
            guard moving.precedes(above) else { break }
            heap[index] = above
            positions.set(above.id, to: Int32(index))
            index = parent
        }
        guard index != start || isNew else { return }
        heap[index] = moving
        positions.set(moving.id, to: Int32(index))
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        let moving = heap[start]
        let count = heap.count
        while true {
            let firstChild = 4 * index + 1
            guard firstChild < count else { break }
            var best = firstChild
            for child in (firstChild + 1)..<min(firstChild + 4, count) where heap[child].precedes(heap[best]) {
                best = child
            }
            let below = heap[best]
            guard below.precedes(moving) else { break }
            heap[index] = below
            positions.set(below.id, to: Int32(index))
            index = best
        }
        guard index != start else { return }
        heap[index] = moving
        positions.set(moving.id, to: Int32(index))
    }

    /// Checks the heap order and the index in debug builds (O(n); skipped for large heaps).
    func checkInvariants() {
        #if DEBUG
            guard heap.count <= 512 else { return }
            precondition(positions.count == heap.count, "DeadlineQueue: index and heap sizes differ")
            for (index, entry) in heap.enumerated() {
                precondition(positions[entry.id] == Int32(index), "DeadlineQueue: index is stale for \(entry.id)")
                if index > 0 {
                    precondition(!entry.precedes(heap[(index - 1) / 4]), "DeadlineQueue: heap order broken")
                }
            }
        #endif
    }
}
