import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension TimerEngine {
    /// Everything needed to rebuild the engine after a restart.
    public var snapshot: EngineSnapshot {
        EngineSnapshot(nextID: nextID, timers: timers.values.sorted { $0.id < $1.id })
    }

    /// Rebuilds the engine from a snapshot taken by an earlier run.
    ///
    /// On the same boot (`sameBoot`), running timers go on from their boot-time deadlines, so the
    /// downtime counts. After a reboot the boot-time clock started again from zero, so each running
    /// timer's start is recomputed from the wall clock. A timer whose deadline passed while nothing
    /// ran is finished once, with `missed: true` and its original end time (like systemd's
    /// `Persistent=true`, systemd.timer(5)). Paused timers keep their remaining time.
    ///
    /// - Parameters:
    ///   - snapshot: what ``snapshot`` returned in the earlier run.
    ///   - sameBoot: whether the machine has not rebooted since (same `/proc/sys/kernel/random/boot_id`).
    /// - Returns: the timers finished as missed.
    public mutating func restore(_ snapshot: EngineSnapshot, sameBoot: Bool) -> [TimerEnding] {
        timers = RecordTable()
        timers.probe = recordProbe
        oldestEndedAt = nil
        liveNames = [:]
        endedByOwner = [:]
        liveByOwner = [:]
        queue = DeadlineQueue()
        liveTotal = 0
        nextID = max(snapshot.nextID, (snapshot.timers.map(\.id).max() ?? 0) + 1)
        let now = clock.now()
        let wall = clock.wallNow()
        var missed: [TimerEnding] = []
        for var record in snapshot.timers {
            // Only records that restoring changes are journaled (takeChanges): the rebased ones
            // below, missed ones finished, and history trimmed; the store holds the others as they are.
            var isRebased = true
            if record.state == .running, let wallDeadline = record.wallDeadline {
                // Elapsed by the wall clock: an --at timer is never paused (pausing detaches it).
                let elapsed = min(max(wall.timeIntervalSince(record.startedAt), 0), 4e9)
                let remaining = min(max(wallDeadline.timeIntervalSince(wall), 0), 4e9)
                record.rebase(
                    now: now, elapsed: Int64((elapsed * 1e9).rounded()), remaining: Int64((remaining * 1e9).rounded()))
            } else if record.state == .running, !sameBoot {
                let ranFor = wall.timeIntervalSince(record.runStartWall ?? wall)
                record.runStart = now.advanced(byNanoseconds: -Int64(max(0, min(ranFor, 1e9)) * 1e9))
            } else {
                isRebased = false
            }
            if isRebased { timers[record.id] = record } else { timers.insertUnchanged(record) }
            if record.state.isLive {
                liveTotal += 1
                liveByOwner[record.owner, default: 0] += 1
                if let name = record.name { liveNames[NameKey(owner: record.owner, name: name)] = record.id }
            } else {
                endedByOwner[record.owner, default: []].append(record.id)
                oldestEndedAt = min(oldestEndedAt ?? record.endedAt ?? .distantPast, record.endedAt ?? .distantPast)
            }
            if let deadline = record.deadline {
                if deadline <= now {
                    let endedAt =
                        record.wallDeadline ?? wall.addingTimeInterval(-Double(now.nanoseconds(since: deadline)) / 1e9)
                    timers[record.id]?.missed = true
                    missed.append(end(record.id, as: .finished, at: now, wall: endedAt, reportedAs: .missed))
                } else if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
                    queue.schedule(record.id, at: wake)
                }
            }
        }
        for owner in endedByOwner.keys {
            endedByOwner[owner]?.sort {
                (timers[$0]?.endedAt ?? .distantPast, $0) < (timers[$1]?.endedAt ?? .distantPast, $1)
            }
        }
        rebuildOwnerTimers()
        trimHistory()
        return missed
    }
}
