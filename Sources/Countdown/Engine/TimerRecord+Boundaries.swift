extension TimerRecord {
    /// The next instant the engine must look at a running or ringing timer: with `stepsChildren`,
    /// the end of its current child for a group (so that the step to the next child is reported
    /// when it happens); else its deadline; an alarm's warning (``TimerAlarm/warning``) when it
    /// comes first and was not sent yet. For a ringing timer: its next ring, or its ring limit
    /// when that comes first.
    ///
    /// - Parameters:
    ///   - now: the boot-time instant to look from.
    ///   - stepsChildren: whether group steps are reported (the engine records events).
    /// - Returns: the instant, or `nil` unless running or ringing.
    /// - Complexity: O(k) for a group of k children.
    func nextWake(at now: BootInstant, stepsChildren: Bool) -> BootInstant? {
        if state == .ringing { return nextRing }
        guard let wake = nextBoundary(at: now, stepsChildren: stepsChildren) else { return nil }
        if let warning = warningInstant(at: now), warning < wake { return warning }
        return wake
    }

    /// The instant an unsent warning is due (the deadline less ``TimerAlarm/warning``; with
    /// ``TimerAlarm/warnsEachStep``, the end of the first step not yet warned that ends after
    /// `now`, less it), or `nil` when the timer is not running, has no warning, or sent it.
    ///
    /// - Parameter now: the boot-time instant to look from.
    func warningInstant(at now: BootInstant) -> BootInstant? {
        guard spill != nil, let alarm, let warning = alarm.warning, !alarm.isWarned, let deadline else { return nil }
        let lead = Int64((warning * 1e9).rounded())
        guard alarm.warnsEachStep else { return deadline.advanced(byNanoseconds: -lead) }
        // Steps that have ended (skipped, or passed while timerd was down) have no warning left.
        var index = Int(alarm.warnedSteps)
        while let end = stepEnd(index), end <= now { index += 1 }
        return stepEnd(index)?.advanced(byNanoseconds: -lead)
    }

    /// The boot-time instant at which step `index` (0-based) of a running timer ends: its deadline
    /// for the last step or a plain timer; `nil` when not running or past the last step.
    ///
    /// - Complexity: O(k) for a group of k steps.
    func stepEnd(_ index: Int) -> BootInstant? {
        guard let deadline, let runStart, index >= 0, index < segmentCount else { return nil }
        guard let nanoseconds = groupNanoseconds, index < nanoseconds.count - 1 else { return deadline }
        var end: Int64 = 0
        for segment in nanoseconds[...index] { end = end.addingReportingOverflow(segment).partialValue }
        return runStart.advanced(byNanoseconds: end - accumulatedNanoseconds)
    }

    /// A ringing timer's next ring (ring n + 1 is due ``TimerAlarm/Ring/interval`` × n after the
    /// ringing began, at `runStart`), or its ring limit when that comes first; `nil` unless ringing.
    var nextRing: BootInstant? {
        guard state == .ringing, let alarm, let ring = alarm.ring, let runStart else { return nil }
        let limit = runStart.advanced(byNanoseconds: Int64((ring.limit * 1e9).rounded()))
        // A damaged count cannot overflow the product: past the limit, the limit is what is due.
        let (offset, overflow) = Int64((ring.interval * 1e9).rounded())
            .multipliedReportingOverflow(by: Int64(alarm.ringCount))
        guard !overflow else { return limit }
        return min(runStart.advanced(byNanoseconds: offset), limit)
    }

    /// ``nextWake(at:stepsChildren:)`` without the alarm's warning.
    private func nextBoundary(at now: BootInstant, stepsChildren: Bool) -> BootInstant? {
        guard let deadline, let runStart else { return nil }
        guard stepsChildren, let nanoseconds = groupNanoseconds else { return deadline }
        let elapsed = elapsedNanoseconds(at: now)
        var end: Int64 = 0
        for segment in nanoseconds {
            end = end.addingReportingOverflow(segment).partialValue
            if end > elapsed { return runStart.advanced(byNanoseconds: end - accumulatedNanoseconds) }
        }
        return deadline
    }

    /// The index of the child that runs after `elapsed` nanoseconds (the last child once all ran).
    ///
    /// - Parameter elapsed: nanoseconds counted of the whole group.
    /// - Returns: 0 for a plain timer.
    /// - Complexity: O(k) for a group of k children.
    func childIndex(atElapsed elapsed: Int64) -> Int {
        guard let nanoseconds = groupNanoseconds else { return 0 }
        var end: Int64 = 0
        for (index, segment) in nanoseconds.enumerated() {
            end = end.addingReportingOverflow(segment).partialValue
            if end > elapsed { return index }
        }
        return nanoseconds.count - 1
    }
}

extension TimerRecord {
    /// How many durations the timer has: 1 for a plain timer, the group's size otherwise.
    var segmentCount: Int {
        guard case .group(_, let nanoseconds)? = spill?.rare.segments else { return 1 }
        return nanoseconds.count
    }
}
