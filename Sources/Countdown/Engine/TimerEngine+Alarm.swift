import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Alarms (``TimerAlarm``): the warning before the end (`--warn`), ringing at the end (`--ring`)
/// until ``acknowledge(_:requester:)`` or ``snooze(_:bySeconds:requester:)``, and the ring limit.
///
/// Each ring, the warning, an acknowledgement, a snooze and an unanswered end is one record write
/// (the ring count and the warned mark are in the record), so that the owner journals it before it
/// sends the event: a restart resumes the ringing at the next ring due and never sends one again.
extension TimerEngine {
    /// The longest ring interval and snooze, in seconds (1 day and 366 days); the ring limit may be
    /// as long as a timer (366 days).
    public static let maximumRingInterval: Double = 86_400

    /// Checks an alarm asked at start against the timer's durations in seconds (one per step).
    ///
    /// - Throws: `CountdownError.invalidAlarm(_:)` when the warning is not shorter than the timer
    ///   (it would come before the start) or, with ``TimerAlarm/warnsEachStep``, than every step;
    ///   when `warnsEachStep` comes without a warning; or the ring's interval or limit is out of range.
    static func validate(_ alarm: TimerAlarm, durations: [Double]) throws(CountdownError) {
        let duration = durations.reduce(0, +)
        if let warning = alarm.warning {
            guard warning.isFinite, warning > 0, warning < duration else {
                throw .invalidAlarm(
                    "the warning (\(DurationFormatter.compact(seconds: warning))) must be shorter than the timer "
                        + "(\(DurationFormatter.compact(seconds: duration))): it comes that long before the end")
            }
            if alarm.warnsEachStep, let shortest = durations.min(), warning >= shortest {
                throw .invalidAlarm(
                    "with --warn-each the warning (\(DurationFormatter.compact(seconds: warning))) must be shorter "
                        + "than every step (the shortest is \(DurationFormatter.compact(seconds: shortest))): it comes "
                        + "that long before each step's end")
            }
        } else if alarm.warnsEachStep {
            throw .invalidAlarm(
                "--warn-each needs a warning (--warn DURATION): it says how long before each step's end")
        }
        if let ring = alarm.ring {
            guard ring.interval.isFinite, ring.interval > 0, ring.interval <= maximumRingInterval,
                ring.limit.isFinite, ring.limit > 0, ring.limit <= DurationParser.maximumSeconds
            else {
                throw .invalidAlarm(
                    "a ring interval must be > 0 and ≤ 1d and a ring limit > 0 and ≤ 366d, got "
                        + "\(DurationFormatter.compact(seconds: ring.interval)) and "
                        + "\(DurationFormatter.compact(seconds: ring.limit))")
            }
        }
    }

    /// Acknowledges a ringing timer (`timerctl ack`): its ringing stops and it ends as `finished`
    /// (``TimerAlarm/Outcome/acknowledged``), reported as ``TimerEvent/Kind/finished``. Its action
    /// is not run again (it ran at the first ring).
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the finished timer.
    /// - Throws: `CountdownError.timerNotFound(_:)`; `CountdownError.invalidTransition(timer:state:operation:)`
    ///   unless it is ringing.
    /// - Complexity: O(log n).
    public mutating func acknowledge(_ reference: TimerReference, requester: UInt32? = nil) throws(CountdownError)
        -> TimerEnding
    {
        let id = try resolve(reference, requester: requester)
        try requireState(id, in: [.ringing], for: .ack)
        guard var record = timers[id], var alarm = record.alarm else { throw .timerNotFound(reference) }
        alarm.outcome = .acknowledged
        record.alarm = alarm
        timers[id] = record
        return end(id, as: .finished, at: clock.now(), wall: clock.wallNow(), runsActions: false)
    }

    /// Snoozes a ringing timer (`timerctl snooze`): its ringing stops and it runs again for
    /// `seconds`, added to its last step as ``extend(_:bySeconds:requester:)`` adds time (so its
    /// progress counts the snooze); at the new end it rings again from its first ring. Reported as
    /// ``TimerEvent/Kind/snoozed(by:)``. The warning is not sent again.
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - seconds: how long it runs before it rings again; > 0 and ≤ 366 days.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the running timer.
    /// - Throws: `CountdownError.durationOutOfRange(_:)` for `seconds` out of range;
    ///   `CountdownError.timerNotFound(_:)`; `CountdownError.invalidTransition(timer:state:operation:)`
    ///   unless it is ringing; `CountdownError.groupTooLong(_:)` or `durationOutOfRange` when the
    ///   snooze would make it longer than 366 days.
    /// - Complexity: O(log n) plus O(k) for a group of k steps.
    public mutating func snooze(_ reference: TimerReference, bySeconds seconds: Double, requester: UInt32? = nil)
        throws(CountdownError) -> TimerSnapshot
    {
        try DurationParser.validate(seconds: seconds)
        let id = try resolve(reference, requester: requester)
        try requireState(id, in: [.ringing], for: .snooze)
        guard var record = timers[id], var alarm = record.alarm else { throw .timerNotFound(reference) }
        let change = Self.nanoseconds(ofSeconds: seconds)
        var nanoseconds = record.segmentNanoseconds
        var durations = record.durations
        let total = Double(record.totalNanoseconds.addingReportingOverflow(change).partialValue) / 1e9
        guard total <= DurationParser.maximumSeconds else {
            throw nanoseconds.count > 1
                ? .groupTooLong(total) : .durationOutOfRange(DurationFormatter.compact(seconds: total))
        }
        let last = nanoseconds.count - 1
        nanoseconds[last] += change
        durations[last] = Double(nanoseconds[last]) / 1e9
        let elapsed = record.totalNanoseconds
        record.segments = TimerRecord.Segments(durations: durations, nanoseconds: nanoseconds)
        let now = clock.now()
        let wall = clock.wallNow()
        record.state = .running
        record.accumulatedNanoseconds = elapsed
        record.runStart = now
        record.runStartWall = wall
        record.wallDeadline = nil
        alarm.snoozeCount &+= 1
        alarm.snoozedNanoseconds = alarm.snoozedNanoseconds.addingReportingOverflow(change).partialValue
        alarm.ringCount = 0
        alarm.outcome = nil
        record.alarm = alarm
        timers[id] = record
        if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
            queue.schedule(id, at: wake)
        }
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.snoozed(by: Double(change) / 1e9), owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// Turns a running alarm whose end came into a ringing one: its first ring, which runs the
    /// on-finish action as a finish does (trigger `finished`, or `missed` when its end passed while
    /// away) and is reported as ``TimerEvent/Kind/ringing(ring:)`` 1, dated at its end. The ringing
    /// is counted from `now` (the record's `runStart` and `runStartWall`).
    mutating func startRinging(_ id: UInt64, deadline: BootInstant, now: BootInstant, wall: Date, wasAway: Bool) {
        guard var record = timers[id], var alarm = record.alarm else { return }
        let ending = overdueEnding(of: record, deadline: deadline, now: now, wall: wall, wasAway: wasAway)
        clockHistory.awaitingFirstStep[id] = nil
        clockHistory.absoluteAwaitingFirstStep[id] = nil
        record.accumulatedNanoseconds = record.totalNanoseconds
        record.state = .ringing
        record.runStart = now
        record.runStartWall = wall
        record.wallDeadline = nil
        record.missed = ending.missed
        alarm.ringCount = 1
        alarm.outcome = nil
        // A warning whose instant passed together with the end is not sent any more.
        alarm.isWarned = true
        if alarm.warnsEachStep { alarm.warnedSteps = UInt32(record.segmentCount) }
        record.alarm = alarm
        scheduleActions(of: &record, trigger: ending.missed ? .missed : .finished)
        timers[id] = record
        if let ring = record.nextRing { queue.schedule(id, at: ring) }
        alarmTransitionCount += 1
        report(.ringing(ring: 1), owner: record.owner, date: ending.endedAt, record.snapshot(at: now, wallNow: wall))
    }

    /// A ringing timer's wake-up: its next ring (the ring due now, one only however many intervals
    /// passed, e.g. during a suspend), or its end as `finished` and
    /// ``TimerAlarm/Outcome/unanswered`` once its limit passed (dated at the limit).
    ///
    /// - Returns: the ending when the ringing gave up, else `nil`.
    mutating func ringAgain(_ id: UInt64, now: BootInstant, wall: Date) -> TimerEnding? {
        guard var record = timers[id], var alarm = record.alarm, let ring = alarm.ring, let runStart = record.runStart
        else { return nil }
        let since = now.nanoseconds(since: runStart)
        let limit = Int64((ring.limit * 1e9).rounded())
        if since >= limit {
            alarm.outcome = .unanswered
            record.alarm = alarm
            timers[id] = record
            let endedAt = wall.addingTimeInterval(-Double(since - limit) / 1e9)
            return end(id, as: .finished, at: now, wall: endedAt, reportedAs: .unanswered, runsActions: false)
        }
        let interval = max(1, Int64((ring.interval * 1e9).rounded()))
        let due = UInt32(clamping: max(0, since) / interval + 1)
        if due > alarm.ringCount {
            alarm.ringCount = due
            record.alarm = alarm
            scheduleActions(of: &record, trigger: .ringing, only: [.notify, .sound])
            timers[id] = record
            alarmTransitionCount += 1
            let date = wall.addingTimeInterval(-Double(since - interval * Int64(due - 1)) / 1e9)
            report(.ringing(ring: Int(due)), owner: record.owner, date: date, record.snapshot(at: now, wallNow: wall))
        }
        if let next = record.nextRing { queue.schedule(id, at: next) }
        return nil
    }

    /// Sends a running alarm's warning when it is due and unsent: marks it sent, shows the
    /// `--notify` notification (trigger `warning`) and reports ``TimerEvent/Kind/warning``, dated
    /// when it was due.
    ///
    /// - Returns: the record after the warning, or `nil` when none was due.
    ///
    /// With ``TimerAlarm/warnsEachStep``, the warning is the current step's: steps whose end passed
    /// unwarned (timerd was down, the step was skipped) are marked warned without one, as a
    /// warning that passes together with the end is not sent.
    mutating func warnIfDue(_ id: UInt64, now: BootInstant, wall: Date) -> TimerRecord? {
        guard var record = timers[id], var alarm = record.alarm else { return nil }
        if alarm.warnsEachStep, !alarm.isWarned {
            let steps = UInt32(record.segmentCount)
            while alarm.warnedSteps < steps, let end = record.stepEnd(Int(alarm.warnedSteps)), end <= now {
                alarm.warnedSteps += 1
            }
            alarm.isWarned = alarm.warnedSteps >= steps
            record.alarm = alarm
            timers[id] = record
        }
        guard let instant = record.warningInstant(at: now), instant <= now else { return nil }
        if alarm.warnsEachStep {
            alarm.warnedSteps += 1
            alarm.isWarned = alarm.warnedSteps >= UInt32(record.segmentCount)
        } else {
            alarm.isWarned = true
        }
        record.alarm = alarm
        scheduleActions(of: &record, trigger: .warning, only: [.notify])
        timers[id] = record
        alarmTransitionCount += 1
        let date = wall.addingTimeInterval(-Double(now.nanoseconds(since: instant)) / 1e9)
        report(.warning, owner: record.owner, date: date, record.snapshot(at: now, wallNow: wall))
        return record
    }

    /// An alarm's state as a restart of the timer leaves it: warned again, no rings, no snoozes
    /// (their time taken off the last step, `segments`).
    static func restarted(_ record: inout TimerRecord) {
        guard var alarm = record.alarm else { return }
        if alarm.snoozedNanoseconds > 0 {
            var nanoseconds = record.segmentNanoseconds
            var durations = record.durations
            let last = nanoseconds.count - 1
            nanoseconds[last] = max(1, nanoseconds[last] - alarm.snoozedNanoseconds)
            durations[last] = Double(nanoseconds[last]) / 1e9
            record.segments = TimerRecord.Segments(durations: durations, nanoseconds: nanoseconds)
        }
        alarm.isWarned = false
        alarm.warnedSteps = 0
        alarm.ringCount = 0
        alarm.snoozeCount = 0
        alarm.snoozedNanoseconds = 0
        alarm.outcome = nil
        record.alarm = alarm
    }
}
