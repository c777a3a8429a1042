import Countdown
import TimerProtocol

/// The figures the daemon's loop counts itself for its metrics: request and commit durations,
/// and on-finish outcomes. Recording allocates nothing once a method has been seen (one
/// histogram per method, updated in place).
struct DaemonMetrics {
    /// When the daemon started, Unix time in seconds.
    let startTime: Double
    /// Handling time per method.
    private(set) var requests: [RPCMethod: LatencyHistogram] = [:]
    /// How long the backend's commits that saved something took.
    private(set) var commits = LatencyHistogram(upperBounds: LatencyHistogram.requestBounds)
    /// On-finish runs that ended, per kind and outcome.
    private(set) var actions: [MetricsReport.ActionSeries: Int] = [:]

    /// Starts counting.
    ///
    /// - Parameter startTime: when the daemon started, Unix time in seconds.
    init(startTime: Double) {
        self.startTime = startTime
    }

    /// Records that a request of `method` took `nanoseconds` to handle.
    ///
    /// - Complexity: O(b) for the histogram's b bounds.
    mutating func recordRequest(_ method: RPCMethod, nanoseconds: Int64) {
        if requests[method] == nil {
            requests[method] = LatencyHistogram(upperBounds: LatencyHistogram.requestBounds)
        }
        requests[method]?.record(nanoseconds: nanoseconds)
    }

    /// Records a commit that took `nanoseconds`.
    mutating func recordCommit(nanoseconds: Int64) {
        commits.record(nanoseconds: nanoseconds)
    }

    /// Records an on-finish run's outcome.
    ///
    /// - Parameters:
    ///   - kind: `exec`, `notify` or `sound`.
    ///   - outcome: how it ended.
    mutating func recordAction(_ kind: TimerAction.Kind, _ outcome: ActionRun.Outcome) {
        actions[
            MetricsReport.ActionSeries(kind: kind.rawValue, outcome: MetricsReport.outcomeLabel(outcome)), default: 0] +=
            1
    }
}
