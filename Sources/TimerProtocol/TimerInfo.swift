import TimerModel

/// A timer as the protocol sends it and `timerctl status --json` prints it: a snapshot at one instant.
///
/// Times are in seconds (fractional). A group has ``children`` in the same shape, one per
/// duration, run one after another; its own figures are the aggregate. The JSON keys are the
/// property names; `name` is always present (`null` when unnamed); `children` and
/// `currentChild` appear only for groups, `endsAt` only while running, `endedAt` only once the timer ended,
/// `missed` only when true, `heartbeat` only for heartbeat timers, `wake` only when true, `alarm`
/// only for alarms (`--ring`, `--warn`).
public struct TimerInfo: Sendable, Codable, Hashable {
    /// The id: decimal digits for a timer (`"3"`), `"3.1"` … for a group's children (1-based).
    public var id: String
    /// The timer's name, if it was given one.
    public var name: String?
    /// The state at the snapshot's instant.
    public var state: TimerState
    /// The whole duration in seconds (> 0, ≤ 366 days).
    public var duration: Double
    /// Seconds left: 0 once finished; what was left when stopped; does not move while paused.
    public var remaining: Double
    /// Seconds counted so far (`duration - remaining`).
    public var elapsed: Double
    /// Progress in milliseconds, with the rules of Foundation's `Progress` (see `ProgressTree`).
    public var progress: ProgressSnapshot
    /// When the timer was created (ISO 8601, UTC, milliseconds), on the wall clock.
    public var createdAt: String?
    /// When it started counting (ISO 8601), on the wall clock.
    public var startedAt: String?
    /// When it finished or was stopped (ISO 8601), on the wall clock.
    public var endedAt: String?
    /// While running: when it will end (ISO 8601), on the wall clock; for `--at` timers the instant asked for.
    public var endsAt: String?
    /// `true` when the timer ended while no daemon was running, and was reported at the next start.
    public var missed: Bool?
    /// For a group: the index (0-based) of the child that runs or is paused now.
    public var currentChild: Int?
    /// For a group: its children, in order.
    public var children: [TimerInfo]?
    /// Only in the reply to `timer.start` with a local `at`: how that wall time was resolved.
    public var resolvedAt: LocalTimeResolution?
    /// For a recurring timer (`--on`, `--every`): its rule and series; absent for one-shot timers.
    /// Its current period is what ``duration``, ``remaining`` and ``endsAt`` describe.
    public var recurrence: RecurrenceInfo?
    /// For a heartbeat timer (`--heartbeat`): its beats; absent for any other timer.
    public var heartbeat: HeartbeatInfo?
    /// `true` for a timer started with `--wake` (`"wake": true` of `timer.start`): the daemon arms an
    /// alarm clock that resumes the machine from suspend at its end; absent otherwise.
    public var wake: Bool?
    /// For an alarm (`--ring`, `--warn`): its rule and where its warning and ringing stand; absent
    /// for any other timer.
    public var alarm: AlarmInfo?
    /// Only in the reply to `timer.start` with `sound`: why the sound will not play as things stand
    /// (no sound player in the timer's `PATH`, a file timerd cannot read); the timer started all the same.
    public var warning: String?

    /// Creates a snapshot; see the properties for each field's meaning.
    public init(
        id: String, name: String?, state: TimerState, duration: Double, remaining: Double, elapsed: Double,
        progress: ProgressSnapshot, createdAt: String? = nil, startedAt: String? = nil, endedAt: String? = nil,
        endsAt: String? = nil, missed: Bool? = nil, currentChild: Int? = nil, children: [TimerInfo]? = nil
    ) {
        self.id = id
        self.name = name
        self.state = state
        self.duration = duration
        self.remaining = remaining
        self.elapsed = elapsed
        self.progress = progress
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.endsAt = endsAt
        self.missed = missed
        self.currentChild = currentChild
        self.children = children
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, state, duration, remaining, elapsed, progress, createdAt, startedAt, endedAt, endsAt, missed
        case currentChild, children, resolvedAt, recurrence, heartbeat, wake, alarm, warning
    }

    /// Encodes with `name` always present (`null` when unnamed) and the optional fields left out when absent.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encode(duration, forKey: .duration)
        try container.encode(remaining, forKey: .remaining)
        try container.encode(elapsed, forKey: .elapsed)
        try container.encode(progress, forKey: .progress)
        try container.encodeIfPresent(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(startedAt, forKey: .startedAt)
        try container.encodeIfPresent(endedAt, forKey: .endedAt)
        try container.encodeIfPresent(endsAt, forKey: .endsAt)
        try container.encodeIfPresent(missed, forKey: .missed)
        try container.encodeIfPresent(currentChild, forKey: .currentChild)
        try container.encodeIfPresent(children, forKey: .children)
        try container.encodeIfPresent(resolvedAt, forKey: .resolvedAt)
        try container.encodeIfPresent(recurrence, forKey: .recurrence)
        try container.encodeIfPresent(heartbeat, forKey: .heartbeat)
        try container.encodeIfPresent(wake, forKey: .wake)
        try container.encodeIfPresent(alarm, forKey: .alarm)
        try container.encodeIfPresent(warning, forKey: .warning)
    }

    /// A label for messages: `3 ("tea")` or `3`.
    public var label: String {
        name.map { "\(id) (\"\($0)\")" } ?? id
    }
}
