/// The result of `daemon.stats`: daemon-wide figures for monitoring and benchmarks.
///
/// Unlike the timer methods, the counts cover every user's timers (they reveal no names or ids).
public struct StatsResult: Sendable, Hashable, Codable {
    /// Running and paused timers.
    public var liveTimers: Int
    /// Running timers (those in the deadline queue).
    public var runningTimers: Int
    /// Timers finished by the event loop since start-up.
    public var firedTimers: Int
    /// Lateness of the most recent firings (up to 16,384): the boot-time clock when the loop finished
    /// the timer minus its deadline, in microseconds; `nil` before the first firing.
    public var latenessMicroseconds: LatenessRecorder.Summary?

    /// Creates a stats result.
    public init(liveTimers: Int, runningTimers: Int, firedTimers: Int, latenessMicroseconds: LatenessRecorder.Summary?)
    {
        self.liveTimers = liveTimers
        self.runningTimers = runningTimers
        self.firedTimers = firedTimers
        self.latenessMicroseconds = latenessMicroseconds
    }
}
