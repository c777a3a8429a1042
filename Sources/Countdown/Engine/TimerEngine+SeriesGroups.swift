import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Groups started by a recurring series (`timerctl start --on EXPR 25m 5m`, ``SeriesGroup``): at
/// each elapse the series starts a run, a group timer of its own, in the same engine step as the
/// elapse, so that both are in one journal commit (docs/calendar.md, "Groups started by a series").
extension TimerEngine {
    /// Starts the run of series `id` for the elapse just rung, by its ``SeriesGroup/overlap`` when
    /// the previous run still runs: ``SeriesGroup/Overlap/skip`` starts nothing,
    /// ``SeriesGroup/Overlap/queue`` marks one run to start when the current one ends (at most one),
    /// ``SeriesGroup/Overlap/restart`` stops the current run and starts a new one. A series without a
    /// group is left alone.
    ///
    /// - Parameters:
    ///   - id: the series.
    ///   - now: the boot-time instant of the elapse's firing.
    ///   - wall: its wall-clock instant.
    mutating func startSeriesRun(of id: UInt64, now: BootInstant, wall: Date) {
        guard var series = timers[id], var group = series.seriesGroup else { return }
        if let run = group.run, timers[run]?.state.isLive == true {
            switch group.overlap {
            case .skip:
                group.skippedCount &+= 1
                series.seriesGroup = group
                timers[id] = series
                return
            case .queue:
                if group.queued { group.skippedCount &+= 1 } else { group.queued = true }
                series.seriesGroup = group
                timers[id] = series
                return
            case .restart:
                // The series lets go of the run first, so that its end starts nothing queued.
                group.run = nil
                group.queued = false
                series.seriesGroup = group
                timers[id] = series
                _ = end(run, as: .stopped, at: now, wall: wall)
            }
        }
        launchRun(of: id)
    }

    /// After run `id` of `series` ended: the series lets go of it, and starts its queued run when
    /// one waits and the series still runs (a queued run is dropped when the series is paused or ended).
    mutating func runEnded(_ id: UInt64, series seriesID: UInt64, now: BootInstant, wall: Date) {
        guard var series = timers[seriesID], var group = series.seriesGroup, group.run == id else { return }
        let startsQueued = group.queued && series.state == .running
        group.run = nil
        group.queued = false
        series.seriesGroup = group
        timers[seriesID] = series
        if startsQueued { launchRun(of: seriesID) }
    }

    /// Starts one run of series `id` now: its group's durations, its owner, no name, no quota (the
    /// series already counts against it), marked as the series' run.
    private mutating func launchRun(of id: UInt64) {
        guard var series = timers[id], var group = series.seriesGroup else { return }
        // The durations were checked when the series started (and when read back from the store).
        guard
            let run = try? start(
                durations: group.durations, wallDeadline: nil, name: nil, owner: series.owner, quota: nil, action: nil,
                wake: false, marks: [.seriesRun(series: id)])
        else { return }
        group.run = run.id
        group.runCount &+= 1
        series.seriesGroup = group
        timers[id] = series
    }

    /// The run a reference means when an operation on groups (``skip(_:requester:)``) names a
    /// series: its live run, if it has one; otherwise the reference itself.
    func runOfSeries(_ id: UInt64) -> UInt64? {
        guard let record = timers[id], let run = record.seriesGroup?.run, timers[run]?.state.isLive == true else {
            return nil
        }
        return run
    }

    /// `snapshot` of a series with its run's current step filled in (``RecurrenceSnapshot/runStep``),
    /// as ``status(_:requester:)`` and ``list(includeEnded:requester:)`` show it; other snapshots as they are.
    func withRunStep(_ snapshot: TimerSnapshot, at now: BootInstant) -> TimerSnapshot {
        guard var series = snapshot.recurrence, let run = series.group?.run, let record = timers[run],
            record.state.isLive
        else { return snapshot }
        var snapshot = snapshot
        series.runStep = record.currentStep(at: now).index + 1
        snapshot.recurrence = series
        return snapshot
    }
}
