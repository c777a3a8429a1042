/// The parameters of a recurring `timer.start` (docs/protocol.md, "Recurring timers"): a calendar
/// expression (`on`) or a fixed period (`every`), with what both share.
public struct RecurringStart: Sendable, Hashable {
    /// A systemd.time(7) calendar expression (`Mon..Fri 07:00`), or `nil` with ``every``.
    public var on: String?
    /// The period in seconds (> 0), or `nil` with ``on``.
    public var every: Double?
    /// The first elapse of an `every` timer as an ISO 8601 date-time or a local time, or `nil` for
    /// one period from now.
    public var from: String?
    /// The IANA zone `on` and a local `from` are read in, or `nil` for timerd's system zone.
    public var timeZone: String?
    /// Whether elapses missed while no timerd ran are skipped rather than run once at start-up.
    public var skipMissed: Bool
    /// A random delay added to each elapse, at most this many seconds, or `nil` for none.
    public var randomizedDelay: Double?
    /// The timer's name, or `nil`.
    public var name: String?
    /// What runs at each elapse, or `nil`.
    public var action: TimerAction?
    /// Whether each elapse wakes the machine from suspend (`"wake": true`; docs/time.md).
    public var wake: Bool
    /// The group each elapse starts, in seconds (`"durations"`), or `nil` for a series that only rings.
    public var durations: [Double]?
    /// How many times each run repeats ``durations`` (`"loops"`), or `nil` for once.
    public var loops: Int?
    /// What an elapse does while the previous run still runs (`"overlap"`: `skip`, `queue` or
    /// `restart`), or `nil` for timerd's default, `skip`.
    public var overlap: String?

    /// Creates recurring parameters.
    ///
    /// - Parameters:
    ///   - on: a calendar expression, or `nil`.
    ///   - every: a period in seconds, or `nil`.
    ///   - from: the first elapse of an `every` timer, or `nil`.
    ///   - timeZone: the zone for `on` and `from`, or `nil`.
    ///   - skipMissed: skip elapses missed while timerd was down.
    ///   - randomizedDelay: the largest random delay in seconds, or `nil`.
    ///   - name: the timer's name, or `nil`.
    ///   - action: the on-finish action, or `nil`.
    ///   - wake: whether each elapse wakes the machine from suspend.
    ///
    /// ``durations``, ``loops`` and ``overlap`` are set afterwards (the group each elapse starts).
    public init(
        on: String? = nil, every: Double? = nil, from: String? = nil, timeZone: String? = nil, skipMissed: Bool = false,
        randomizedDelay: Double? = nil, name: String? = nil, action: TimerAction? = nil, wake: Bool = false
    ) {
        self.durations = nil
        self.loops = nil
        self.overlap = nil
        self.on = on
        self.every = every
        self.from = from
        self.timeZone = timeZone
        self.skipMissed = skipMissed
        self.randomizedDelay = randomizedDelay
        self.name = name
        self.action = action
        self.wake = wake
    }
}
