extension TimerRecord {
    /// The next instant the engine must look at a running timer: with `stepsChildren`, the end of
    /// its current child for a group (so that the step to the next child is reported when it
    /// happens); else its deadline.
    ///
    /// - Parameters:
    ///   - now: the boot-time instant to look from.
    ///   - stepsChildren: whether group steps are reported (the engine records events).
    /// - Returns: the instant, or `nil` unless running.
    /// - Complexity: O(k) for a group of k children.
    func nextWake(at now: BootInstant, stepsChildren: Bool) -> BootInstant? {
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
