/// A timer that just ended.
public struct TimerEnding: Sendable, Hashable {
    /// The timer as it ended: `state` says how (`finished` or `stopped`).
    public var timer: TimerSnapshot
}
