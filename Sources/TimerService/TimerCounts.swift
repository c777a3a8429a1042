import Countdown

/// How many timers started, finished, were missed and were stopped since the daemon started:
/// counters for its metrics (docs/metrics.md, `timerd_timers_started_total` …).
///
/// ``TimerService`` counts every event it routes here, so each counter moves with the event a
/// subscriber sees: a group counts once when it starts and once when it ends, not per step; a
/// recurring timer's elapses are not finishes. The timers that ended while no timerd ran count as
/// missed once, when the first request or firing after the start routes their events.
public struct TimerCounts: Sendable, Hashable {
    /// `started` events: timers (or groups) started.
    public var started = 0
    /// `finished` events: timers that ran to zero while timerd ran.
    public var finished = 0
    /// `missed` events: timers that ended while no timerd ran.
    public var missed = 0
    /// `stopped` events: timers stopped before they ran to zero.
    public var stopped = 0

    /// Creates counters; every count left out is 0.
    ///
    /// - Parameters:
    ///   - started: timers started.
    ///   - finished: timers finished.
    ///   - missed: timers missed.
    ///   - stopped: timers stopped.
    public init(started: Int = 0, finished: Int = 0, missed: Int = 0, stopped: Int = 0) {
        self.started = started
        self.finished = finished
        self.missed = missed
        self.stopped = stopped
    }

    /// Counts one event of `kind` (other kinds than the four are not counted).
    ///
    /// - Parameter kind: what happened.
    /// - Complexity: O(1).
    public mutating func count(_ kind: TimerEvent.Kind) {
        switch kind {
        case .started: started += 1
        case .finished: finished += 1
        case .missed: missed += 1
        case .stopped: stopped += 1
        default: break
        }
    }
}
