#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Wall-clock anchoring of countdowns and the one rule for overdue timers (docs/time.md).
extension TimerEngine {
    /// Whether a running timer's deadline has passed and ``fireDueTimers(limit:)`` has not taken it
    /// yet (after a sliced call, the owner calls again on its next turn).
    public var hasDueTimers: Bool {
        guard let first = queue.first else { return false }
        return first.deadline <= clock.now()
    }

    /// How an overdue timer ends, the same whether it ended live (``fireDueTimers(limit:)``, e.g. at a
    /// resume) or while timerd was down (``restore(_:sameBoot:)``).
    ///
    /// Rule (docs/time.md, "Overdue timers"): the lateness is `now - deadline` on the boot-time clock
    /// for a countdown, and the wall-clock time past its end for a timer with an absolute end
    /// (`--at`). `endedAt` is the wall-clock instant of its end, `wall - lateness` (the absolute end
    /// itself for `--at`), never before `startedAt` and never after `wall`, even when the boot-time
    /// clock it was restored with shifted. `missed` means the end passed while timerd could not ring
    /// it: while it was not running (`restore`), or in a window of the boot-time clock that contained
    /// a suspend (`ClockHistory.suspendWindow`). A daemon merely busy (late without a suspend) finishes a timer
    /// late, not missed.
    ///
    /// - Parameters:
    ///   - record: the running timer.
    ///   - deadline: its deadline on the boot-time clock (≤ `now`).
    ///   - now: the boot-time instant it is finished at.
    ///   - wall: the wall-clock instant of `now`.
    ///   - wasAway: whether the end passed while timerd could not ring it (see above).
    /// - Returns: its `endedAt` and `missed`.
    func overdueEnding(
        of record: TimerRecord, deadline: BootInstant, now: BootInstant, wall: Date, wasAway: Bool = true
    ) -> (endedAt: Date, missed: Bool) {
        let lateness: Double
        let endedAt: Date
        if let wallDeadline = record.wallDeadline {
            lateness = max(0, wall.timeIntervalSince(wallDeadline))
            endedAt = min(wallDeadline, wall)
        } else {
            lateness = max(0, Double(now.nanoseconds(since: deadline)) / 1e9)
            endedAt = wall.addingTimeInterval(-lateness)
        }
        return (max(endedAt, min(record.startedAt, wall)), wasAway && lateness > 0)
    }

    /// Compares the clock's suspend reading with the one of the last look: when it grew by 100 ms or
    /// more, the window from the last look to `now` contained a suspend, and a timer whose end falls
    /// in it was missed. (Smaller growth is the jitter of reading two clocks one after the other, a
    /// thread preempted between them included; a real suspend lasts seconds.)
    mutating func noteSuspend(now: BootInstant) {
        let suspended = clock.suspendedNanoseconds()
        if let last = clockHistory.lastLook, let before = last.suspended, let suspended,
            suspended - before >= 100_000_000,
            last.at <= now
        {
            clockHistory.suspendWindow = last.at...now
        }
        clockHistory.lastLook = (now, suspended)
    }

    /// Whether `deadline` passed while timerd could not ring it: inside the latest window that
    /// contained a suspend, or before the engine was restored (no engine ran).
    func passedWhileAway(_ deadline: BootInstant) -> Bool {
        if let since = clockHistory.watchingSince, deadline < since { return true }
        return clockHistory.suspendWindow?.contains(deadline) ?? false
    }

    /// The wall clock minus the boot-time clock, in seconds: constant until the wall clock steps.
    static func wallOffset(now: BootInstant, wall: Date) -> Double {
        wall.timeIntervalSince1970 - Double(now.nanoseconds) / 1e9
    }

    /// Re-derives the timers restored from an earlier boot, once, on the first wall-clock step after
    /// the restore: a board without a real-time clock boots with a wrong wall clock, and NTP steps it
    /// later. Each countdown's run started at its saved wall-clock anchor, so it has run
    /// `wall - anchor` by the corrected clock; an `--at` timer has run `wall - startedAt` of the
    /// `wallDeadline - startedAt` it was set for. One whose end has passed becomes due with its
    /// boot-time deadline where the corrected clock puts its end (and is then finished by
    /// ``fireDueTimers(limit:)``: `missed` when that end came before the restore, its `duration`
    /// what it was set for). The same rule for both kinds (docs/time.md, "Boards without a real-time
    /// clock").
    ///
    /// Timers paused, resumed, edited or ended since the restore are left alone (their anchor or end
    /// changed). A call that sees no step (a resume: the wall clock still differs from the boot-time
    /// clock by what it did at the restore, within 0.5 s) re-derives nothing and keeps waiting.
    ///
    /// - Returns: the ids of the timers re-derived.
    /// - Complexity: O(k log n) for the k timers restored from the earlier boot.
    mutating func rederiveRestoredTimers(now: BootInstant, wall: Date) -> Set<UInt64> {
        guard !clockHistory.awaitingFirstStep.isEmpty || !clockHistory.absoluteAwaitingFirstStep.isEmpty else {
            return []
        }
        // A resume from suspend also cancels the timerfd, but moves both clocks alike: not a step.
        if let offset = clockHistory.restoreWallOffset, abs(Self.wallOffset(now: now, wall: wall) - offset) < 0.5 {
            return []
        }
        let pending = clockHistory.awaitingFirstStep
        let absolute = clockHistory.absoluteAwaitingFirstStep
        clockHistory.awaitingFirstStep = [:]
        clockHistory.absoluteAwaitingFirstStep = [:]
        var rederived: Set<UInt64> = []
        for (id, anchor) in pending {
            guard var record = timers[id], record.state == .running, record.wallDeadline == nil,
                record.runStartWall == anchor
            else { continue }
            let ranFor = min(max(wall.timeIntervalSince(anchor), 0), 1e9)
            record.runStart = now.advanced(byNanoseconds: -Int64((ranFor * 1e9).rounded()))
            timers[id] = record
            if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
                queue.schedule(id, at: wake)
            }
            rederived.insert(id)
        }
        for (id, end) in absolute {
            guard var record = timers[id], record.state == .running, record.recurrence == nil,
                record.wallDeadline == end
            else { continue }
            // Set for `end - startedAt`; run since `startedAt` by the corrected clock, so its boot-time
            // deadline is `now + (end - wall)`, in the past when the end has passed.
            let setFor = min(max(end.timeIntervalSince(record.startedAt), 1e-9), 4e9)
            let ranFor = min(max(wall.timeIntervalSince(record.startedAt), 0), 1e9)
            record.rebase(now: now, elapsed: 0, remaining: Int64((setFor * 1e9).rounded()))
            record.runStart = now.advanced(byNanoseconds: -Int64((ranFor * 1e9).rounded()))
            timers[id] = record
            if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
                queue.schedule(id, at: wake)
            }
            rederived.insert(id)
        }
        for id in rederived where timers[id]?.deadline.map({ $0 <= now }) == true {
            clockHistory.steppedPastEnd.insert(id)
        }
        return rederived
    }

    /// Moves the wall-clock anchor (`runStartWall`) of every running countdown to where the stepped
    /// wall clock puts its boot-time start, so that a reboot after the step carries it over right
    /// (a 30-minute countdown with 1,770 s left keeps 1,770 s after a step of +1 h and a reboot).
    ///
    /// - Returns: how many anchors moved by 1 ms or more (only those are written to the store).
    /// - Complexity: O(n) over the running timers.
    @discardableResult
    mutating func reanchorCountdowns(now: BootInstant, wall: Date) -> Int {
        var count = 0
        for id in queue.ids {
            guard var record = timers[id], record.state == .running, record.wallDeadline == nil,
                let runStart = record.runStart
            else { continue }
            let anchor = wall.addingTimeInterval(-Double(now.nanoseconds(since: runStart)) / 1e9)
            if let old = record.runStartWall, abs(old.timeIntervalSince(anchor)) < 0.001 { continue }
            record.runStartWall = anchor
            timers[id] = record
            count += 1
        }
        return count
    }
}

/// The engine's memory of the clocks, for the rules of docs/time.md.
struct ClockHistory: Sendable {
    /// Running countdowns restored from an earlier boot, by id, with the wall-clock anchor
    /// (`runStartWall`) they were restored from: re-derived on the first wall-clock step after boot.
    var awaitingFirstStep: [UInt64: Date] = [:]
    /// Running `--at` timers restored from an earlier boot, by id, with the end (`wallDeadline`) they
    /// were restored with: re-derived on the same step.
    var absoluteAwaitingFirstStep: [UInt64: Date] = [:]
    /// The wall clock minus the boot-time clock (seconds) at a restore from an earlier boot.
    var restoreWallOffset: Double?
    /// The boot-time instant and suspend reading of the engine's last look at due timers.
    var lastLook: (at: BootInstant, suspended: Int64?)?
    /// The latest window of the boot-time clock that contained a suspend.
    var suspendWindow: ClosedRange<BootInstant>?
    /// The boot-time instant of the last restore: an end before it passed while no engine ran.
    var watchingSince: BootInstant?
    /// Timers a wall-clock step made due (their end moved into the past), until they are fired:
    /// catch-ups, whose lateness is not the loop's.
    var steppedPastEnd: Set<UInt64> = []
}
