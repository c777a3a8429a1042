import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The everyday edits of a timer after it started: extend, restart, rename, skip a group's step,
/// and remove ended timers from the history. Each writes whole records (so the owner's journal
/// sees the change in ``takeChanges()``) and reports one ``TimerEvent``.
extension TimerEngine {
    /// Adds time to a running or paused timer, or with a negative amount takes time away.
    ///
    /// The time goes to the step that runs now: the whole timer for a plain timer, the current step
    /// for a group (later steps keep their durations). Taking away less than the step has left
    /// shortens the step; taking away as much or more clamps to what is left: the step ends now, as
    /// ``skip(_:requester:)`` ends it (its duration stays and the rest counts as run), so a plain
    /// timer (or a group's last step) finishes at once, even when paused, and a group goes on with
    /// its next step (paused if it was paused). A timer started with an end time (`--at`) keeps
    /// following the wall clock, its end moved by the amount.
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - seconds: the amount; > 0 adds, < 0 subtracts; its magnitude is at least 1 µs and at most
    ///     366 days (`DurationParser.signedSeconds(from:)` reads it from text).
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the timer after the change.
    /// - Throws: `CountdownError.timerNotFound(_:)`; `CountdownError.invalidTransition(timer:state:operation:)`
    ///   when it has ended; `CountdownError.durationOutOfRange(_:)` / `CountdownError.durationTooShort(_:)`
    ///   for a bad amount; `CountdownError.groupTooLong(_:)` (a group) or
    ///   `CountdownError.durationOutOfRange(_:)` (a plain timer) when the result would exceed 366 days.
    /// - Complexity: O(log n) plus O(k) for a group of k steps.
    public mutating func extend(_ reference: TimerReference, bySeconds seconds: Double, requester: UInt32? = nil)
        throws(CountdownError) -> TimerSnapshot
    {
        try DurationParser.validate(seconds: seconds.magnitude, as: DurationFormatter.compact(seconds: seconds))
        let id = try resolve(reference, requester: requester)
        try requireState(id, in: [.running, .paused], for: .extend)
        guard var record = timers[id] else { throw .timerNotFound(reference) }
        guard record.recurrence == nil else { throw .notForRecurring(timer: Self.label(record), operation: "extend") }
        let now = clock.now()
        let wall = clock.wallNow()
        let step = record.currentStep(at: now)
        let change = Int64((seconds * 1e9).rounded())
        guard change > -step.left else {
            // Past zero: the step ends now, as skip ends it (its duration stays, the rest counts as run).
            record.accumulatedNanoseconds += step.left
            timers[id] = record
            report(
                .extended(by: -Double(step.left) / 1e9), owner: record.owner, date: wall,
                record.snapshot(at: now, wallNow: wall))
            return completeStep(id, step.index, now: now, wall: wall)
        }
        var nanoseconds = record.segmentNanoseconds
        var durations = record.durations
        if change > 0 {
            let total = Double(record.totalNanoseconds.addingReportingOverflow(change).partialValue) / 1e9
            guard total <= DurationParser.maximumSeconds else {
                throw nanoseconds.count > 1
                    ? .groupTooLong(total) : .durationOutOfRange(DurationFormatter.compact(seconds: total))
            }
        }
        nanoseconds[step.index] += change
        durations[step.index] = Double(nanoseconds[step.index]) / 1e9
        record.segments = TimerRecord.Segments(durations: durations, nanoseconds: nanoseconds)
        if let wallDeadline = record.wallDeadline {
            record.wallDeadline = wallDeadline.addingTimeInterval(Double(change) / 1e9)
        }
        timers[id] = record
        reschedule(record, id, now: now)
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.extended(by: Double(change) / 1e9), owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// Starts a timer again from the beginning with its durations as they are now (including any
    /// ``extend(_:bySeconds:requester:)``), under the same id and name.
    ///
    /// Works on live and ended timers. An ended timer becomes live again, so its name must be free
    /// among the owner's live timers and the owner must be under `quota`. A timer started with an
    /// end time (`--at`) restarts as a countdown of its whole duration. A heartbeat timer's beats
    /// are counted afresh (``TimerHeartbeat``).
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - requester: the uid asking, or `nil` to see every timer.
    ///   - quota: the most live timers the owner may have, or `nil` for no limit (only checked when
    ///     an ended timer comes back).
    /// - Returns: the timer, running from its start.
    /// - Throws: `CountdownError.timerNotFound(_:)`, `CountdownError.nameInUse(_:id:)`,
    ///   `CountdownError.quotaExceeded(limit:)`.
    /// - Complexity: O(log n) plus O(h) for an ended timer in an owner's history of h.
    public mutating func restart(_ reference: TimerReference, requester: UInt32? = nil, quota: Int? = nil)
        throws(CountdownError) -> TimerSnapshot
    {
        let id = try resolve(reference, requester: requester)
        guard var record = timers[id] else { throw .timerNotFound(reference) }
        guard record.recurrence == nil else { throw .notForRecurring(timer: Self.label(record), operation: "restart") }
        if !record.state.isLive {
            if let name = record.name, let holder = liveNames[NameKey(owner: record.owner, name: name)], holder != id {
                throw .nameInUse(name, id: String(holder))
            }
            if let quota, liveCount(owner: record.owner) >= quota { throw .quotaExceeded(limit: quota) }
            endedByOwner[record.owner]?.removeAll { $0 == id }
            if endedByOwner[record.owner]?.isEmpty == true { endedByOwner[record.owner] = nil }
            liveTotal += 1
            ownerTimers.update(record.owner) { $0.liveCount += 1 }
            if let name = record.name { liveNames[NameKey(owner: record.owner, name: name)] = id }
        }
        if record.state == .paused { notePaused(owner: record.owner, -1) }
        let now = clock.now()
        let wall = clock.wallNow()
        record.state = .running
        record.accumulatedNanoseconds = 0
        record.runStart = now
        record.runStartWall = wall
        record.startedAt = wall
        record.endedAt = nil
        record.missed = false
        record.wallDeadline = nil
        // A heartbeat timer watches afresh: no beats yet (a beat itself never resets them).
        if record.heartbeat != nil { record.heartbeat = TimerHeartbeat() }
        Self.restarted(&record)
        timers[id] = record
        reschedule(record, id, now: now)
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.restarted, owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// Gives a timer a new name; the same rule as at start (`TimerName`), unique among the owner's
    /// live timers. An ended timer may be renamed too (its name then finds it in the history).
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - newName: the name, normalized to NFC.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the renamed timer.
    /// - Throws: `CountdownError.timerNotFound(_:)`, `CountdownError.invalidName(_:)`,
    ///   `CountdownError.nameInUse(_:id:)`.
    /// - Complexity: O(log n).
    public mutating func rename(_ reference: TimerReference, to newName: String, requester: UInt32? = nil)
        throws(CountdownError) -> TimerSnapshot
    {
        let name = TimerName.normalized(newName)
        guard TimerName.isValid(name) else { throw .invalidName(newName) }
        let id = try resolve(reference, requester: requester)
        guard var record = timers[id] else { throw .timerNotFound(reference) }
        let old = record.name
        if record.state.isLive {
            let key = NameKey(owner: record.owner, name: name)
            if let holder = liveNames[key], holder != id { throw .nameInUse(name, id: String(holder)) }
            if let old, liveNames[NameKey(owner: record.owner, name: old)] == id {
                liveNames[NameKey(owner: record.owner, name: old)] = nil
            }
            liveNames[key] = id
        }
        record.name = name
        timers[id] = record
        let now = clock.now()
        let wall = clock.wallNow()
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.renamed(from: old), owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// Ends the current step of a running or paused group now and goes on with the next (paused if
    /// it was paused); skipping the last step finishes the group. The skipped time counts as run:
    /// the durations stay, the end comes earlier by what the step had left.
    ///
    /// A recurring series that starts groups (``SeriesGroup``) passes the skip to its live run.
    ///
    /// - Parameters:
    ///   - reference: the group's id, a step's id (`5.2`, meaning the group) or its name.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the group after the step (finished after its last); the run for a series.
    /// - Throws: `CountdownError.timerNotFound(_:)`; `CountdownError.notAGroup(timer:)` for a plain
    ///   timer; `CountdownError.invalidTransition(timer:state:operation:)` when it has ended;
    ///   `CountdownError.noRunInProgress(timer:)` for a live series that starts groups but has no live run.
    /// - Complexity: O(log n) plus O(k) for a group of k steps.
    public mutating func skip(_ reference: TimerReference, requester: UInt32? = nil) throws(CountdownError)
        -> TimerSnapshot
    {
        let named = try resolve(reference, requester: requester)
        // A series that starts groups passes the skip to its live run.
        let id = runOfSeries(named) ?? named
        guard var record = timers[id] else { throw .timerNotFound(reference) }
        if record.seriesGroup != nil, record.state.isLive { throw .noRunInProgress(timer: Self.label(record)) }
        guard record.recurrence == nil else { throw .notForRecurring(timer: Self.label(record), operation: "skip") }
        guard record.segmentCount > 1 else { throw .notAGroup(timer: Self.label(record)) }
        try requireState(id, in: [.running, .paused], for: .skip)
        let now = clock.now()
        let wall = clock.wallNow()
        let step = record.currentStep(at: now)
        record.accumulatedNanoseconds += step.left
        timers[id] = record
        return completeStep(id, step.index, now: now, wall: wall)
    }

    /// Removes an ended (finished or stopped) timer from the history; a live one is refused.
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name (a name means its live timer if it has one, which is
    ///     refused, else the most recently ended one).
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the timer as it was before it was removed.
    /// - Throws: `CountdownError.timerNotFound(_:)`; `CountdownError.invalidTransition(timer:state:operation:)`
    ///   for a running or paused timer.
    /// - Complexity: O(log n) plus O(h) for an owner's history of h.
    public mutating func remove(_ reference: TimerReference, requester: UInt32? = nil) throws(CountdownError)
        -> TimerSnapshot
    {
        let id = try resolve(reference, requester: requester)
        try requireState(id, in: [.finished, .stopped], for: .remove)
        guard let record = timers[id] else { throw .timerNotFound(reference) }
        return drop(record, at: clock.now(), wall: clock.wallNow())
    }

    /// Removes every ended timer of `owner` from the history (`timerctl rm --all-ended`).
    ///
    /// - Parameter owner: the uid whose history is emptied (root's own, for root: never another
    ///   user's).
    /// - Returns: the removed timers as they were, by ascending id.
    /// - Complexity: O(h log h) for an owner's history of h.
    public mutating func removeEnded(owner: UInt32) -> [TimerSnapshot] {
        let now = clock.now()
        let wall = clock.wallNow()
        return (endedByOwner[owner] ?? []).sorted().compactMap { id in
            timers[id].map { drop($0, at: now, wall: wall) }
        }
    }

    // MARK: - Internals

    /// Forgets an ended timer and reports it removed.
    private mutating func drop(_ record: TimerRecord, at now: BootInstant, wall: Date) -> TimerSnapshot {
        let snapshot = record.snapshot(at: now, wallNow: wall)
        dropRecord(record.id, owner: record.owner)
        endedByOwner[record.owner]?.removeAll { $0 == record.id }
        if endedByOwner[record.owner]?.isEmpty == true { endedByOwner[record.owner] = nil }
        report(.removed, owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// After step `index` of timer `id` has run out: finishes the timer after its last step, else
    /// reports the next step and reschedules.
    private mutating func completeStep(_ id: UInt64, _ index: Int, now: BootInstant, wall: Date) -> TimerSnapshot {
        guard let record = timers[id] else { return missingSnapshot(id, at: wall) }
        if index + 1 >= record.segmentCount { return end(id, as: .finished, at: now, wall: wall).timer }
        reschedule(record, id, now: now)
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.steppedToChild(index + 1), owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// Puts a running timer's next wake-up in the deadline queue.
    private mutating func reschedule(_ record: TimerRecord, _ id: UInt64, now: BootInstant) {
        guard let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) else { return }
        queue.schedule(id, at: wake)
    }

    /// `timer 3 ("tea")`, as errors name a timer.
    static func label(_ record: TimerRecord) -> String {
        record.name.map { "timer \(record.id) (\"\($0)\")" } ?? "timer \(record.id)"
    }
}

extension TimerRecord {
    /// The step that runs (or is paused) at `now`: its index (0 for a plain timer), the nanoseconds
    /// elapsed of the whole timer, where the step starts, and what it has left.
    ///
    /// - Complexity: O(k) for a group of k steps.
    func currentStep(at now: BootInstant) -> (index: Int, elapsed: Int64, start: Int64, left: Int64) {
        let elapsed = elapsedNanoseconds(at: now)
        let index = childIndex(atElapsed: elapsed)
        let nanoseconds = segmentNanoseconds
        let start = nanoseconds[..<index].reduce(Int64(0)) { $0.addingReportingOverflow($1).partialValue }
        return (index, elapsed, start, max(0, start + nanoseconds[index] - elapsed))
    }
}
