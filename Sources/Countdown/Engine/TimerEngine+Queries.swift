import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reading the engine: one timer, a listing, and the counters the daemon reads on every turn.
extension TimerEngine {
    /// One timer now: live, or ended and still in the history.
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: its snapshot.
    /// - Throws: `CountdownError.timerNotFound(_:)`.
    public func status(_ reference: TimerReference, requester: UInt32? = nil) throws(CountdownError)
        -> TimerSnapshot
    {
        let id = try resolve(reference, requester: requester)
        guard let record = timers[id] else { throw .timerNotFound(reference) }
        let now = clock.now()
        return withRunStep(record.snapshot(at: now, wallNow: clock.wallNow()), at: now)
    }

    /// Every timer the requester may see, by ascending id.
    ///
    /// - Parameters:
    ///   - includeEnded: also list finished and stopped timers still in the history.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: their snapshots.
    /// - Complexity: O(k) for the k timers of `requester` (TimerEngine+Owners.swift); O(n log n) for `nil`.
    public func list(includeEnded: Bool = false, requester: UInt32? = nil) -> [TimerSnapshot] {
        let now = clock.now()
        let wall = clock.wallNow()
        return visibleRecords(requester: requester, includeEnded: includeEnded).map {
            $0.spill == nil
                ? $0.snapshot(at: now, wallNow: wall) : withRunStep($0.snapshot(at: now, wallNow: wall), at: now)
        }
    }

    /// The named running timers of every owner with the wall-clock instant each next elapses:
    /// when it ends; for a group, when its current step ends; for a recurring timer, its next
    /// elapse. By ascending id; the daemon's opt-in per-timer metrics read it.
    ///
    /// - Returns: owner, name and instant of each.
    /// - Complexity: O(n log n) in the live timers.
    public func namedNextElapses() -> [(owner: UInt32, name: String, at: Date)] {
        let now = clock.now()
        let wall = clock.wallNow()
        return visibleRecords(requester: nil, includeEnded: false).compactMap { record in
            guard record.state == .running, let name = record.name else { return nil }
            let snapshot = record.snapshot(at: now, wallNow: wall)
            if let step = snapshot.currentChild, snapshot.children.indices.contains(step) {
                return (record.owner, name, wall.addingTimeInterval(snapshot.children[step].remaining))
            }
            guard let endsAt = snapshot.endsAt else { return nil }
            return (record.owner, name, endsAt)
        }
    }

    /// The earliest instant the engine needs ``fireDueTimers(limit:)`` on the boot-time clock, or `nil` when
    /// none runs: the earliest end of a running timer; with ``EventRecording/buffered`` events, also
    /// the end of the current child of a running group (so that its step is reported on time).
    public var nextDeadline: BootInstant? { queue.first?.deadline }

    /// The number of live (running or paused) timers.
    ///
    /// - Complexity: O(1): a counter kept by every transition (the daemon reads it on each turn of its loop).
    public var liveCount: Int { liveTotal }

    /// The number of running timers (one deadline-queue entry each).
    public var runningCount: Int { queue.count }
}
