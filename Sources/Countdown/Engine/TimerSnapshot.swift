import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One timer at one instant, as the engine answers every operation: values, not text.
///
/// Times are seconds (`Double`, fractional) derived from the engine's nanosecond counts, and
/// wall-clock instants are `Date`s; how they are written (ISO 8601 strings, JSON) is the service
/// layer's business (`TimerService`), so that the engine never formats anything. Seconds are kept
/// as `Double` rather than `Duration` because the wire carries exactly these figures.
public struct TimerSnapshot: Sendable, Hashable {
    /// One child of a group (a plain timer has none).
    public struct Child: Sendable, Hashable {
        /// The child's position in the group, 0-based (the wire id is `"<timer>.<index + 1>"`).
        public var index: Int
        /// `finished`, the group's state for the current child, `stopped`, or `pending`.
        public var state: TimerState
        /// The child's duration in seconds.
        public var duration: Double
        /// Seconds left of the child.
        public var remaining: Double
        /// Seconds counted of the child.
        public var elapsed: Double
        /// The child's progress in milliseconds.
        public var progress: ProgressSnapshot

        /// Creates a child's snapshot; see the properties for each field's meaning.
        public init(
            index: Int, state: TimerState, duration: Double, remaining: Double, elapsed: Double,
            progress: ProgressSnapshot
        ) {
            self.index = index
            self.state = state
            self.duration = duration
            self.remaining = remaining
            self.elapsed = elapsed
            self.progress = progress
        }
    }

    /// The timer's id, unique for the life of the engine's state.
    public var id: UInt64
    /// The timer's name, if it was given one.
    public var name: String?
    /// The state at the snapshot's instant.
    public var state: TimerState
    /// The whole duration in seconds (> 0, ≤ 366 days).
    public var duration: Double
    /// Seconds left: 0 once finished; what was left when stopped; does not move while paused.
    public var remaining: Double
    /// Seconds counted so far.
    public var elapsed: Double
    /// Progress in milliseconds, with the rules of Foundation's `Progress` (see ``ProgressTree``).
    public var progress: ProgressSnapshot
    /// When the timer was created, on the wall clock.
    public var createdAt: Date
    /// When it started counting, on the wall clock.
    public var startedAt: Date
    /// When it finished or was stopped, on the wall clock; `nil` while live.
    public var endedAt: Date?
    /// While running: when it will end on the wall clock (for `--at` timers the instant asked for).
    public var endsAt: Date?
    /// Whether the timer ended while no daemon ran and was finished at the next start.
    public var missed: Bool
    /// For a group: the index (0-based) of the child that runs or is paused now.
    public var currentChild: Int? {
        get { extras?.currentChild }
        set {
            setExtras(
                currentChild: newValue, children: children, recurrence: recurrence, heartbeat: heartbeat, wake: wake,
                alarm: alarm)
        }
    }
    /// For a group: its children in order; empty for a plain timer.
    public var children: [Child] {
        get { extras?.children ?? [] }
        set {
            setExtras(
                currentChild: currentChild, children: newValue, recurrence: recurrence, heartbeat: heartbeat,
                wake: wake,
                alarm: alarm)
        }
    }
    /// For a recurring timer (`--on`, `--every`): its rule and series; `nil` for a one-shot timer.
    /// Its current period is what ``duration``, ``remaining`` and ``endsAt`` describe.
    public var recurrence: RecurrenceSnapshot? {
        get { extras?.recurrence }
        set {
            setExtras(
                currentChild: currentChild, children: children, recurrence: newValue, heartbeat: heartbeat, wake: wake,
                alarm: alarm)
        }
    }
    /// For a heartbeat timer (`--heartbeat`): its beats so far; `nil` for any other timer.
    public var heartbeat: TimerHeartbeat? {
        get { extras?.heartbeat }
        set {
            setExtras(
                currentChild: currentChild, children: children, recurrence: recurrence, heartbeat: newValue, wake: wake,
                alarm: alarm)
        }
    }
    /// Whether the timer wakes the machine from suspend at its end (`--wake`, ``TimerExtension/wake``).
    public var wake: Bool {
        get { extras?.wake ?? false }
        set {
            setExtras(
                currentChild: currentChild, children: children, recurrence: recurrence, heartbeat: heartbeat,
                wake: newValue, alarm: alarm)
        }
    }
    /// For an alarm (`--warn`, `--ring`): its rule and where its warning and ringing stand; `nil`
    /// for any other timer.
    public var alarm: TimerAlarm? {
        get { extras?.alarm }
        set {
            setExtras(
                currentChild: currentChild, children: children, recurrence: recurrence, heartbeat: heartbeat,
                wake: wake, alarm: newValue)
        }
    }

    /// A group's and a series' values, a heartbeat's beats and the wake mark, which a plain timer's snapshot does
    /// not have: kept in one shared immutable box (`nil` when all five are empty), so that a plain timer's snapshot,
    /// built for every reply and event, is half the size and copies without walking them
    /// (docs/performance.md, "Why each figure is what it is"). Canonical: the box is `nil` exactly
    /// when the five values are empty, so the synthesized `Hashable` compares values.
    private var extras: Extras?

    /// The box of ``extras``, compared by value.
    final class Extras: Sendable, Hashable {
        let currentChild: Int?
        let children: [Child]
        let recurrence: RecurrenceSnapshot?
        let heartbeat: TimerHeartbeat?
        let wake: Bool
        let alarm: TimerAlarm?

        init(
            currentChild: Int?, children: [Child], recurrence: RecurrenceSnapshot?, heartbeat: TimerHeartbeat? = nil,
            wake: Bool = false, alarm: TimerAlarm? = nil
        ) {
            self.currentChild = currentChild
            self.children = children
            self.recurrence = recurrence
            self.heartbeat = heartbeat
            self.wake = wake
            self.alarm = alarm
        }

        static func == (lhs: Extras, rhs: Extras) -> Bool {
            lhs === rhs
                || (lhs.currentChild == rhs.currentChild && lhs.children == rhs.children
                    && lhs.recurrence == rhs.recurrence && lhs.heartbeat == rhs.heartbeat && lhs.wake == rhs.wake
                    && lhs.alarm == rhs.alarm)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(currentChild)
            hasher.combine(children)
            hasher.combine(recurrence)
            hasher.combine(heartbeat)
            hasher.combine(wake)
            hasher.combine(alarm)
        }
    }

    private mutating func setExtras(
        currentChild: Int?, children: [Child], recurrence: RecurrenceSnapshot?, heartbeat: TimerHeartbeat?, wake: Bool,
        alarm: TimerAlarm?
    ) {
        extras = Self.extras(
            currentChild: currentChild, children: children, recurrence: recurrence, heartbeat: heartbeat, wake: wake,
            alarm: alarm)
    }

    /// Creates a snapshot; see the properties for each field's meaning.
    public init(
        id: UInt64, name: String?, state: TimerState, duration: Double, remaining: Double, elapsed: Double,
        progress: ProgressSnapshot, createdAt: Date, startedAt: Date, endedAt: Date?, endsAt: Date?, missed: Bool,
        currentChild: Int?, children: [Child]
    ) {
        self.init(
            id: id, name: name, state: state, duration: duration, remaining: remaining, elapsed: elapsed,
            progress: progress, createdAt: createdAt, startedAt: startedAt, endedAt: endedAt, endsAt: endsAt,
            missed: missed,
            extras: currentChild == nil && children.isEmpty
                ? nil : Extras(currentChild: currentChild, children: children, recurrence: nil))
    }

    /// Creates a snapshot with its group's and series' values already boxed (the engine's: a plain
    /// timer passes `nil` and no optional recurrence is built, copied or destroyed).
    init(
        id: UInt64, name: String?, state: TimerState, duration: Double, remaining: Double, elapsed: Double,
        progress: ProgressSnapshot, createdAt: Date, startedAt: Date, endedAt: Date?, endsAt: Date?, missed: Bool,
        extras: Extras?
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
        self.extras = extras
    }

    /// The box for a group's and a series' values, a heartbeat's beats and the wake mark, or `nil`
    /// when all five are empty (the canonical form ``extras`` keeps).
    static func extras(
        currentChild: Int?, children: [Child], recurrence: RecurrenceSnapshot?, heartbeat: TimerHeartbeat? = nil,
        wake: Bool = false, alarm: TimerAlarm? = nil
    ) -> Extras? {
        currentChild == nil && children.isEmpty && recurrence == nil && heartbeat == nil && !wake && alarm == nil
            ? nil
            : Extras(
                currentChild: currentChild, children: children, recurrence: recurrence, heartbeat: heartbeat,
                wake: wake,
                alarm: alarm)
    }

    /// A label for messages: `3 ("tea")` or `3`.
    public var label: String {
        name.map { "\(id) (\"\($0)\")" } ?? String(id)
    }
}
