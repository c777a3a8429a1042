#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The history of ended timers and the per-owner counters, kept per owner (uid) so that no user's
/// activity changes what another user keeps or may start (docs/fairness.md).
extension TimerEngine {
    /// The number of live (running or paused) timers of `owner`.
    ///
    /// - Parameter owner: a uid.
    /// - Returns: its live timers.
    /// - Complexity: O(1): a counter kept by every transition (quota checks read it on each start).
    public func liveCount(owner: UInt32) -> Int { ownerTimers[owner]?.liveCount ?? 0 }

    /// The number of running timers of `owner`.
    ///
    /// - Parameter owner: a uid.
    /// - Returns: its running timers.
    /// - Complexity: O(1): live minus paused, two counters.
    public func runningCount(owner: UInt32) -> Int { liveCount(owner: owner) - pausedCount(owner: owner) }

    /// The number of timers of `owner` finished by ``fireDueTimers(limit:)`` since start-up (its part of
    /// ``firedTotal``).
    ///
    /// - Parameter owner: a uid.
    /// - Returns: its timers that reached their end while the engine ran.
    public func firedCount(owner: UInt32) -> Int { firedByOwner[owner, default: 0] }

    /// The number of ended timers of `owner` still in the history.
    ///
    /// - Parameter owner: a uid.
    /// - Returns: at most ``historyLimit``.
    public func endedCount(owner: UInt32) -> Int { endedByOwner[owner]?.count ?? 0 }

    /// Counts the end of a live timer of `owner`.
    mutating func countLiveEnd(of owner: UInt32) {
        liveTotal -= 1
        ownerTimers.updateIfPresent(owner) { $0.liveCount -= 1 }
    }

    /// Drops ended timers past the age limit, then, for each owner over ``historyLimit``, its
    /// oldest ended timers (after a restore, or when the limit was lowered).
    ///
    /// - Complexity: O(u) for u owners with a history, plus the timers dropped.
    mutating func trimHistory() {
        trimHistoryByAge()
        for owner in endedByOwner.keys { trimHistoryByCount(owner: owner) }
    }

    /// Drops ended timers past the age limit, then `owner`'s oldest ended timers over
    /// ``historyLimit``: after one of its timers ended, only its history grew.
    ///
    /// - Complexity: O(1) when nothing is due (no scan of the owners), plus the timers dropped.
    mutating func trimHistory(owner: UInt32) {
        trimHistoryByAge()
        trimHistoryByCount(owner: owner)
    }

    /// The history shrinks in place (`removeFirst`): copying the owner's whole history into a new
    /// array on every stop past the limit was a quarter of a stop (docs/performance.md).
    private mutating func trimHistoryByCount(owner: UInt32) {
        guard let count = endedByOwner[owner]?.count, count > historyLimit else { return }
        let excess = count - historyLimit
        for id in endedByOwner[owner]?.prefix(excess) ?? [] { dropRecord(id, owner: owner) }
        if excess == count {
            endedByOwner[owner] = nil
        } else {
            endedByOwner[owner]?.removeFirst(excess)
        }
    }

    /// Drops ended timers whose `endedAt` is more than ``historyMaximumAge`` before the wall clock,
    /// from the oldest end of each owner's history.
    ///
    /// ``oldestEndedAt`` bounds the oldest end of every owner's history from below (it is lowered
    /// whenever a timer ends and recomputed after each pass that drops), so while it is within the
    /// age limit, which is the common case on every request, nothing is scanned.
    ///
    /// - Complexity: O(1) when none is due; O(u) for u owners with a history, plus the timers
    ///   dropped, when some are.
    mutating func trimHistoryByAge() {
        guard let maximumAge = historyMaximumAge, !endedByOwner.isEmpty else { return }
        let cutoff = clock.wallNow().addingTimeInterval(-maximumAge)
        if let oldestEndedAt, oldestEndedAt >= cutoff { return }
        var oldest: Date?
        for (owner, ended) in endedByOwner {
            var count = 0
            while count < ended.count, (timers[ended[count]]?.endedAt ?? .distantPast) < cutoff { count += 1 }
            if count < ended.count {
                let front = timers[ended[count]]?.endedAt ?? .distantPast
                oldest = min(oldest ?? front, front)
            }
            guard count > 0 else { continue }
            for id in ended.prefix(count) { dropRecord(id, owner: owner) }
            endedByOwner[owner] = count == ended.count ? nil : Array(ended.dropFirst(count))
        }
        oldestEndedAt = oldest
    }
}

extension TimerEngine {
    /// The ids of every timer the requester may see, ascending: what ``list(includeEnded:requester:)``
    /// would return, without building the snapshots (a long listing is written a part at a time).
    ///
    /// - Parameters:
    ///   - includeEnded: also finished and stopped timers still in the history.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the ids, ascending.
    /// - Complexity: O(k) for the k timers of `requester` (TimerEngine+Owners.swift); O(n log n) for `nil`.
    public func listIDs(includeEnded: Bool = false, requester: UInt32? = nil) -> [UInt64] {
        visibleRecords(requester: requester, includeEnded: includeEnded).map(\.id)
    }

    /// The snapshot of timer `id` now, whatever its owner, or `nil` when it is no longer kept.
    ///
    /// - Parameter id: a timer's id.
    /// - Returns: its snapshot.
    public func snapshot(ofTimer id: UInt64) -> TimerSnapshot? {
        timers[id]?.snapshot(at: clock.now(), wallNow: clock.wallNow())
    }
}
