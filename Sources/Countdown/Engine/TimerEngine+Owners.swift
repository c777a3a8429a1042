/// Each owner's timers and the counters that keep per-request and per-tick work independent of
/// other users' timers (docs/performance.md, "Why each figure is what it is", Scaling).
///
/// - a `timer.list` by one user reads that user's ids, not every record;
/// - the `STATUS=` line the daemon sends once a second under systemd reads counters and the first
///   entries of the deadline queue, not a listing of every timer;
/// - `daemon.stats` for one user reads counters.
///
/// Every transition keeps them: ``TimerEngine/start(durations:name:owner:quota:)`` appends the id,
/// pause and resume move the paused counts, ending a paused timer lowers them, dropping a timer
/// from the history marks its id dropped, and ``TimerEngine/restore(_:sameBoot:)`` rebuilds them.
/// A seeded test compares them with a full scan after random operations (`EngineCountersTests`).
struct OwnerTimers: Sendable {
    /// The ids of the owner's records (live and ended), ascending; it may still hold ids dropped
    /// from the table (``droppedCount`` of them), which readers skip.
    var ids: [UInt64] = []
    /// How many of ``ids`` are no longer in the table; the list is compacted when they are half.
    var droppedCount = 0
    /// The owner's paused timers.
    var pausedCount = 0
    /// The owner's live (running or paused) timers: here rather than in a dictionary of its own,
    /// so that a start finds the owner once (one hash probe instead of two).
    var liveCount = 0
}

/// A summary of the live timers for a status line: counts and the next end.
public struct EngineStatusSummary: Sendable, Hashable {
    /// Running timers.
    public var running: Int
    /// Paused timers.
    public var paused: Int
    /// Seconds from now to the earliest end of a running timer (≥ 0; a group ends after its last
    /// child), or `nil` when none runs.
    public var nextEndSeconds: Double?

    /// Creates a summary.
    ///
    /// - Parameters:
    ///   - running: running timers (≥ 0).
    ///   - paused: paused timers (≥ 0).
    ///   - nextEndSeconds: seconds to the earliest end of a running timer, or `nil`.
    public init(running: Int, paused: Int, nextEndSeconds: Double?) {
        self.running = running
        self.paused = paused
        self.nextEndSeconds = nextEndSeconds
    }
}

extension TimerEngine {
    /// The counts of running and paused timers and the time to the next end, for the daemon's
    /// once-a-second `STATUS=` line.
    ///
    /// The next end is found by visiting the deadline queue in wake order until the wakes pass the
    /// earliest end seen: a plain timer's wake is its end, so with no running group that is one
    /// record; a running group wakes at each child's end, so each group whose current child ends
    /// before the answer adds one record.
    ///
    /// - Returns: the summary now.
    /// - Complexity: O(1) records plus O(g²) for the g running groups whose next wake comes before
    ///   the earliest end (none without groups); never a scan of the timers.
    public func statusSummary() -> EngineStatusSummary {
        let running = liveTotal - pausedTotal
        var earliest: BootInstant?
        queue.visitInOrder { wake, id in
            if let earliest, earliest <= wake { return false }
            if let end = timers[id]?.deadline, end < (earliest ?? end.advanced(byNanoseconds: 1)) { earliest = end }
            return true
        }
        let seconds = earliest.map { max(0, Double($0.nanoseconds(since: clock.now())) / 1e9) }
        return EngineStatusSummary(running: running, paused: pausedTotal, nextEndSeconds: seconds)
    }

    /// The number of paused timers of `owner`.
    ///
    /// - Parameter owner: a uid.
    /// - Returns: its paused timers.
    public func pausedCount(owner: UInt32) -> Int { ownerTimers[owner]?.pausedCount ?? 0 }

    /// Counts a new live record of `owner` (ids only grow, so the list stays ascending).
    mutating func noteCreated(_ id: UInt64, owner: UInt32) {
        ownerTimers.update(owner) { entry in
            entry.ids.append(id)
            entry.liveCount += 1
        }
    }

    /// Moves the paused counts by `delta` (+1 on pause, -1 on resume or on ending a paused timer).
    mutating func notePaused(owner: UInt32, _ delta: Int) {
        pausedTotal += delta
        ownerTimers.update(owner) { $0.pausedCount += delta }
    }

    /// Removes record `id` of `owner` from the table and marks it dropped in the owner's list,
    /// compacting the list once half of it is dropped ids (O(1) amortised per drop).
    mutating func dropRecord(_ id: UInt64, owner: UInt32) {
        timers[id] = nil
        // In place (the owner's slot is usually the one last written): no removal and re-insertion.
        var compact = false
        ownerTimers.updateIfPresent(owner) { entry in
            entry.droppedCount += 1
            compact = 2 * entry.droppedCount >= entry.ids.count
        }
        if compact {
            let table = timers
            ownerTimers.updateIfPresent(owner) { entry in
                entry.ids.removeAll { table[$0] == nil }
                entry.droppedCount = 0
            }
        }
        if let entry = ownerTimers[owner], entry.ids.isEmpty, entry.pausedCount == 0, entry.liveCount == 0 {
            ownerTimers.removeValue(forKey: owner)
        }
    }

    /// Rebuilds the per-owner lists and counts from the table (after ``restore(_:sameBoot:)``).
    mutating func rebuildOwnerTimers() {
        ownerTimers.removeAll()
        pausedTotal = 0
        for record in timers.values {
            if record.state == .paused { pausedTotal += 1 }
            ownerTimers.update(record.owner) { entry in
                entry.ids.append(record.id)
                if record.state.isLive { entry.liveCount += 1 }
                if record.state == .paused { entry.pausedCount += 1 }
            }
        }
        for owner in ownerTimers.keys { ownerTimers.updateIfPresent(owner) { $0.ids.sort() } }
    }

    /// The records `requester` may see, by ascending id: the owner's list, or every record for `nil`.
    ///
    /// - Complexity: O(k) for the k records of the owner (O(n log n) for `nil`).
    func visibleRecords(requester: UInt32?, includeEnded: Bool) -> [TimerRecord] {
        guard let requester else {
            return timers.values.filter { includeEnded || $0.state.isLive }.sorted { $0.id < $1.id }
        }
        guard let entry = ownerTimers[requester] else { return [] }
        var records: [TimerRecord] = []
        records.reserveCapacity(entry.ids.count - entry.droppedCount)
        for id in entry.ids {
            guard let record = timers[id], includeEnded || record.state.isLive else { continue }
            records.append(record)
        }
        return records
    }
}
