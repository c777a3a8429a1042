/// The group a recurring series starts at each elapse (`timerctl start --on EXPR 25m 5m`, `--every
/// DURATION D1 D2…`), persisted as the store's extension tag 5 on the series
/// (`TimerRecord+ExtensionCoding.swift`); docs/calendar.md, "Groups started by a series".
///
/// Each run is a timer of its own (a group of ``durations``, owned by the series' owner, no name,
/// marked with ``TimerExtension/seriesRun(series:)``), started by the engine in the same step that
/// rings the elapse, so that one journal commit holds both: an elapse never starts two runs and never
/// loses one.
public struct SeriesGroup: Sendable, Hashable {
    /// What an elapse does while the previous run still runs.
    public enum Overlap: String, Sendable, Hashable, CaseIterable {
        /// Start nothing (the default), as systemd does not start a unit that is still active when
        /// its timer elapses (systemd.timer(5)).
        case skip
        /// Start the next run as soon as the current one ends; at most one waits (further elapses
        /// meanwhile are folded into it), as systemd queues at most one start job per unit.
        case queue
        /// Stop the current run and start again from step 1.
        case restart
    }

    /// The steps of one run, in seconds (1 to `TimerLimits.maximumGroupSize`, `--loops` already
    /// repeated), each > 0 and together ≤ 366 days.
    public var durations: [Double]
    /// The rule for an elapse that comes while a run still runs.
    public var overlap: Overlap
    /// The id of the run started last while it is live, else `nil`.
    public var run: UInt64?
    /// Whether a run waits to start when the current one ends (``SeriesGroup/Overlap/queue`` only).
    public var queued: Bool
    /// How many runs the series started.
    public var runCount: UInt64
    /// How many elapses started no run of their own because a run still ran (``SeriesGroup/Overlap/skip``, or
    /// ``SeriesGroup/Overlap/queue`` with a run already waiting).
    public var skippedCount: UInt64

    /// Creates the group of a series at its start (no run yet).
    ///
    /// - Parameters:
    ///   - durations: the steps of one run, in seconds.
    ///   - overlap: the rule for an elapse during a run (default ``SeriesGroup/Overlap/skip``).
    public init(durations: [Double], overlap: Overlap = .skip) {
        self.durations = durations
        self.overlap = overlap
        self.run = nil
        self.queued = false
        self.runCount = 0
        self.skippedCount = 0
    }
}

extension TimerRecord {
    /// The group a series starts at each elapse (extension tag 5, ``TimerExtension/seriesGroup(_:)``),
    /// or `nil`; setting `nil` removes it.
    ///
    /// - Complexity: O(e) for e extensions (almost always 1 to 3).
    public var seriesGroup: SeriesGroup? {
        get {
            for case .seriesGroup(let group) in extensions { return group }
            return nil
        }
        set {
            let index = extensions.firstIndex {
                if case .seriesGroup = $0 { return true }
                return false
            }
            switch (index, newValue) {
            case (let index?, let group?): extensions[index] = .seriesGroup(group)
            case (let index?, nil): extensions.remove(at: index)
            case (nil, let group?): extensions.append(.seriesGroup(group))
            case (nil, nil): break
            }
        }
    }

    /// For a run a series started (extension tag 5, ``TimerExtension/seriesRun(series:)``): the
    /// series' id; `nil` for any other timer.
    ///
    /// - Complexity: O(e) for e extensions; O(1) for a plain timer (no spill).
    public var seriesOfRun: UInt64? {
        guard spill != nil else { return nil }
        for case .seriesRun(let series) in extensions { return series }
        return nil
    }
}
