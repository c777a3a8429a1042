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
    /// timer's start is recomputed from the wall clock; as that clock may still be wrong (a board
    /// without a real-time clock), the first wall-clock step re-derives it (``wallClockChanged()``).
    /// A timer whose deadline passed while nothing ran is finished once, with its original end time
    /// and `missed: true` (like systemd's `Persistent=true`, systemd.timer(5)): the same rule as a
    /// timer whose end passed during a suspend (docs/time.md), except an alarm (`--ring`), which
    /// starts ringing then. Paused timers keep their remaining time; ringing timers go on at their
    /// next ring due (``TimerAlarm``).
    ///
    /// - Parameters:
    ///   - snapshot: what ``snapshot`` returned in the earlier run.
    ///   - sameBoot: whether the machine has not rebooted since (same `/proc/sys/kernel/random/boot_id`).
    /// - Returns: the timers found overdue and finished as missed, `endedAt` at their end
    ///   (`overdueEnding(of:deadline:now:wall:wasAway:)`).
    public mutating func restore(_ snapshot: EngineSnapshot, sameBoot: Bool) -> [TimerEnding] {
        timers = RecordTable()
        timers.probe = recordProbe
        oldestEndedAt = nil
        liveNames = [:]
        endedByOwner = [:]
        queue = DeadlineQueue()
        liveTotal = 0
        nextID = max(snapshot.nextID, (snapshot.timers.map(\.id).max() ?? 0) + 1)
        let now = clock.now()
        let wall = clock.wallNow()
        noteSuspend(now: now)
        clockHistory.watchingSince = now
        if !sameBoot { clockHistory.restoreWallOffset = Self.wallOffset(now: now, wall: wall) }
        var missed: [TimerEnding] = []
        // Series that start groups ring after every record is back, so that the run they may stop
        // or find still running (a higher id) is in the table when they look.
        var groupSeriesDue: [(id: UInt64, deadline: BootInstant)] = []
        for var record in snapshot.timers {
            // Only records that restoring changes are journaled (takeChanges): the rebased ones
            // below, missed ones finished, and history trimmed; the store holds the others as they are.
            var isRebased = true
            if record.state == .running, let wallDeadline = record.wallDeadline {
                // Elapsed by the wall clock: an --at timer is never paused (pausing detaches it). An
                // overdue one counts up to its end only, so its duration is the same as had it
                // finished live (docs/time.md, "Overdue timers").
                let origin = record.recurrence.map { $0.lastElapse ?? record.startedAt } ?? record.startedAt
                let elapsed = min(max(min(wall, wallDeadline).timeIntervalSince(origin), 0), 4e9)
                let remaining = min(max(wallDeadline.timeIntervalSince(wall), 0), 4e9)
                record.rebase(
                    now: now, elapsed: Int64((elapsed * 1e9).rounded()), remaining: Int64((remaining * 1e9).rounded()))
                // As for a countdown below: the first step (NTP) re-derives it from the corrected clock.
                if !sameBoot, record.recurrence == nil {
                    clockHistory.absoluteAwaitingFirstStep[record.id] = wallDeadline
                }
            } else if record.state == .running, !sameBoot {
                let ranFor = wall.timeIntervalSince(record.runStartWall ?? wall)
                record.runStart = now.advanced(byNanoseconds: -Int64(max(0, min(ranFor, 1e9)) * 1e9))
                // The wall clock may be wrong this early in a boot (no real-time clock): the first
                // step (NTP) re-derives the countdown from the same anchor.
                if let anchor = record.runStartWall { clockHistory.awaitingFirstStep[record.id] = anchor }
            } else if record.state == .running, let runStart = record.runStart {
                // Same boot: the boot-time deadline holds; re-anchor the wall clock, which may have
                // stepped while no daemon watched it.
                let anchor = wall.addingTimeInterval(-Double(now.nanoseconds(since: runStart)) / 1e9)
                // Journaled only when it moved (a step while no daemon watched); an unchanged record
                // stays as the store holds it, so a restart does not rewrite every running timer.
                if let old = record.runStartWall, abs(old.timeIntervalSince(anchor)) < 0.001 {
                    isRebased = false
                } else {
                    record.runStartWall = anchor
                }
            } else if record.state == .ringing, !sameBoot {
                // Rings are counted from when the ringing began: carried across the reboot by the
                // wall clock, as a countdown's start is.
                let rangFor = wall.timeIntervalSince(record.runStartWall ?? wall)
                record.runStart = now.advanced(byNanoseconds: -Int64(max(0, min(rangFor, 1e9)) * 1e9))
            } else {
                isRebased = false
            }
            if isRebased { timers[record.id] = record } else { timers.insertUnchanged(record) }
            if record.state.isLive {
                liveTotal += 1
                if let name = record.name { liveNames[NameKey(owner: record.owner, name: name)] = record.id }
            } else {
                endedByOwner[record.owner, default: []].append(record.id)
                oldestEndedAt = min(oldestEndedAt ?? record.endedAt ?? .distantPast, record.endedAt ?? .distantPast)
            }
            if let deadline = record.deadline {
                if deadline <= now, record.seriesGroup != nil {
                    clockHistory.awaitingFirstStep[record.id] = nil
                    groupSeriesDue.append((record.id, deadline))
                } else if deadline <= now, record.recurrence != nil {
                    // A recurring timer's elapse passed while no daemon ran: one catch-up (or none
                    // with --skip-missed), and the series goes on.
                    clockHistory.awaitingFirstStep[record.id] = nil
                    if let ending = ringRecurring(record.id, deadline: deadline, now: now, wall: wall, wasAway: true) {
                        missed.append(ending)
                    }
                } else if deadline <= now, record.alarm?.ring != nil {
                    // An alarm whose end passed while no daemon ran rings now (missed), for its limit.
                    startRinging(record.id, deadline: deadline, now: now, wall: wall, wasAway: true)
                } else if deadline <= now {
                    let ending = overdueEnding(of: record, deadline: deadline, now: now, wall: wall)
                    clockHistory.awaitingFirstStep[record.id] = nil
                    clockHistory.absoluteAwaitingFirstStep[record.id] = nil
                    timers[record.id]?.missed = ending.missed
                    missed.append(
                        end(
                            record.id, as: .finished, at: now, wall: ending.endedAt,
                            reportedAs: ending.missed ? .missed : nil))
                } else if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
                    queue.schedule(record.id, at: wake)
                }
            } else if let ring = record.nextRing {
                // A ringing timer goes on at its next ring (or its limit): a ring already sent is
                // counted in its record and not sent again; one that fell due meanwhile is due now.
                queue.schedule(record.id, at: ring)
            }
        }
        for owner in endedByOwner.keys {
            endedByOwner[owner]?.sort {
                (timers[$0]?.endedAt ?? .distantPast, $0) < (timers[$1]?.endedAt ?? .distantPast, $1)
            }
        }
        rebuildOwnerTimers()
        for (id, deadline) in groupSeriesDue {
            if let ending = ringRecurring(id, deadline: deadline, now: now, wall: wall, wasAway: true) {
                missed.append(ending)
            }
        }
        // Calendar timers that follow the system zone read their expression in the zone of now.
        systemTimeZoneChanged(to: systemTimeZone)
        trimHistory()
        return missed
    }
}
