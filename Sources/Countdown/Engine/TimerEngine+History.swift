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
    public func liveCount(owner: UInt32) -> Int { liveByOwner[owner, default: 0] }

    /// The number of running timers of `owner`.
    ///
    /// - Parameter owner: a uid.
    /// - Returns: its running timers.
    /// - Complexity: O(r) for the r running timers of every owner (read by `daemon.stats` only).
    public func runningCount(owner: UInt32) -> Int {
        queue.ids.reduce(0) { count, id in timers[id]?.owner == owner ? count + 1 : count }
    }

    /// The number of timers of `owner` finished by ``fireDueTimers(limit:)`` since start-up (its part of
    /// `lateness.totalCount`).
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
        let left = liveByOwner[owner, default: 0] - 1
        liveByOwner[owner] = left > 0 ? left : nil
    }

    /// Drops ended timers past the age limit, then, for each owner over ``historyLimit``, its
    /// oldest ended timers.
    ///
    /// - Complexity: O(u) for u owners with a history, plus the timers dropped.
    mutating func trimHistory() {
        trimHistoryByAge()
        for (owner, ended) in endedByOwner where ended.count > historyLimit {
            let excess = ended.count - historyLimit
            for id in ended.prefix(excess) { timers[id] = nil }
            endedByOwner[owner] = excess == ended.count ? nil : Array(ended.dropFirst(excess))
        }
    }

    /// Drops ended timers whose `endedAt` is more than ``historyMaximumAge`` before the wall clock,
    /// from the oldest end of each owner's history.
    ///
    /// - Complexity: O(u) for u owners with a history when none is due, plus the timers dropped.
    mutating func trimHistoryByAge() {
        guard let maximumAge = historyMaximumAge, !endedByOwner.isEmpty else { return }
        let cutoff = clock.wallNow().addingTimeInterval(-maximumAge)
        for (owner, ended) in endedByOwner {
            var count = 0
            while count < ended.count, (timers[ended[count]]?.endedAt ?? .distantPast) < cutoff { count += 1 }
            guard count > 0 else { continue }
            for id in ended.prefix(count) { timers[id] = nil }
            endedByOwner[owner] = count == ended.count ? nil : Array(ended.dropFirst(count))
        }
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
    /// - Complexity: O(n log n).
    public func listIDs(includeEnded: Bool = false, requester: UInt32? = nil) -> [UInt64] {
        timers.values
            .filter { (includeEnded || $0.state.isLive) && (requester == nil || $0.owner == requester) }
            .map(\.id).sorted()
    }

    /// The snapshot of timer `id` now, whatever its owner, or `nil` when it is no longer kept.
    ///
    /// - Parameter id: a timer's id.
    /// - Returns: its snapshot.
    public func snapshot(ofTimer id: UInt64) -> TimerSnapshot? {
        timers[id]?.snapshot(at: clock.now(), wallNow: clock.wallNow())
    }
}
