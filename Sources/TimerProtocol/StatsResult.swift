import TimerModel

/// The result of `daemon.stats`: daemon-wide figures for monitoring and benchmarks.
///
/// Unlike the timer methods, the counts cover every user's timers (they reveal no names or ids).
public struct StatsResult: Sendable, Hashable, Codable {
    /// Running and paused timers.
    public var liveTimers: Int
    /// Running timers (those in the deadline queue).
    public var runningTimers: Int
    /// Timers finished by the event loop since start-up: those it fired on time or late, and the
    /// catch-ups (``catchUpTimers``).
    public var firedTimers: Int
    /// Lateness of the most recent firings the loop is accountable for (up to 16,384): the boot-time
    /// clock when the loop finished the timer minus its deadline, in microseconds; catch-ups are left
    /// out; `nil` before the first such firing.
    public var latenessMicroseconds: LatenessSummary?
    /// Catch-ups since start-up: timers finished overdue because their end passed during a suspend,
    /// or a wall-clock step moved it into the past (their lateness is the machine's, not the loop's,
    /// and is not in ``latenessMicroseconds``); `nil` (left out) in a user's own view and in shared mode.
    public var catchUpTimers: Int?
    /// The figures of a store several hosts share (`timerd --shared`); `nil` (left out)
    /// otherwise.
    public var store: StoreStats?

    /// Creates a stats result.
    ///
    /// - Parameters:
    ///   - liveTimers: running and paused timers.
    ///   - runningTimers: running timers.
    ///   - firedTimers: timers finished by the event loop since start-up, catch-ups included.
    ///   - latenessMicroseconds: the lateness of the loop's own firings, or `nil`.
    ///   - catchUpTimers: the catch-ups since start-up, or `nil` to leave them out.
    public init(
        liveTimers: Int, runningTimers: Int, firedTimers: Int, latenessMicroseconds: LatenessSummary?,
        catchUpTimers: Int? = nil
    ) {
        self.liveTimers = liveTimers
        self.runningTimers = runningTimers
        self.firedTimers = firedTimers
        self.latenessMicroseconds = latenessMicroseconds
        self.catchUpTimers = catchUpTimers
    }
}

/// Lateness percentiles over the samples held, in microseconds.
public struct LatenessSummary: Sendable, Hashable, Codable {
    /// How many samples the figures are over (at most the recorder's capacity, 16,384 by default).
    public var count: Int
    /// The median lateness, microseconds.
    public var p50: Double
    /// The 99th percentile, microseconds.
    public var p99: Double
    /// The largest lateness held, microseconds.
    public var max: Double

    /// Creates a summary.
    ///
    /// - Parameters:
    ///   - count: how many samples the figures are over.
    ///   - p50: the median lateness, microseconds.
    ///   - p99: the 99th percentile, microseconds.
    ///   - max: the largest lateness held, microseconds.
    public init(count: Int, p50: Double, p99: Double, max: Double) {
        self.count = count
        self.p50 = p50
        self.p99 = p99
        self.max = max
    }
}

/// The store figures of `daemon.stats` in shared mode (`timerd --shared`, docs/multihost.md):
/// this host's claims since it started and its database round trips.
public struct StoreStats: Sendable, Hashable, Codable {
    /// Due timers (or group steps) this host claimed since it started.
    public var claims: Int
    /// ``claims`` per second of this host's run time.
    public var claimsPerSecond: Double
    /// Claims that took over another host's expired lease (rescues).
    public var leaseRescues: Int
    /// Completions refused because the claim's fence was no longer current.
    public var fencesLost: Int
    /// The median of the recent database calls' round trips (up to 4,096), microseconds.
    public var roundTripMicrosecondsP50: Double
    /// Their 99th percentile, microseconds.
    public var roundTripMicrosecondsP99: Double

    /// Creates the figures; see the properties.
    public init(
        claims: Int, claimsPerSecond: Double, leaseRescues: Int, fencesLost: Int, roundTripMicrosecondsP50: Double,
        roundTripMicrosecondsP99: Double
    ) {
        self.claims = claims
        self.claimsPerSecond = claimsPerSecond
        self.leaseRescues = leaseRescues
        self.fencesLost = fencesLost
        self.roundTripMicrosecondsP50 = roundTripMicrosecondsP50
        self.roundTripMicrosecondsP99 = roundTripMicrosecondsP99
    }
}
