#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What makes a timer an alarm (`timerctl start … --ring`, `--warn DURATION`): a warning some time
/// before its end (with `--warn-each`, before the end of every step of a group), and ringing at its
/// end until it is answered, as a phone's clock app does.
///
/// A ringing timer (`TimerState.ringing`) repeats its alert every ``Ring/interval`` seconds from
/// the instant its time was up, until ``TimerEngine/acknowledge(_:requester:)`` ends it as
/// `finished`, ``TimerEngine/snooze(_:bySeconds:requester:)`` runs it again, or ``Ring/limit``
/// seconds pass unanswered and it ends as `finished` with ``Outcome/unanswered``. The first ring
/// is the timer's end: it runs the on-finish action (exec, notify and sound); each later ring shows
/// the `--notify` notification and plays the `--sound` again (trigger `ringing`). While it rings, the record's `runStart` and
/// `runStartWall` hold the instant the ringing began, from which every ring is counted.
///
/// Persisted as extension tag 6 of the store's record trailer (docs/durability.md), written with
/// every ring, so that a restart neither repeats a ring already sent nor forgets one that is due.
public struct TimerAlarm: Sendable, Hashable {
    /// How a timer rings: how often, and for how long before it gives up.
    public struct Ring: Sendable, Hashable {
        /// Seconds between two rings; > 0.
        public var interval: Double
        /// Seconds after the first ring at which an unanswered ring stops; > 0.
        public var limit: Double

        /// Creates a ring rule.
        ///
        /// - Parameters:
        ///   - interval: seconds between two rings; > 0.
        ///   - limit: seconds after the first ring at which the ringing stops unanswered; > 0.
        public init(interval: Double, limit: Double) {
            self.interval = interval
            self.limit = limit
        }

        /// How many rings an unanswered ringing sends: one at 0 s and one at each whole interval
        /// before the limit (30 s and 600 s: 20 rings, at 0 s, 30 s, … 570 s).
        public var ringsBeforeLimit: Int {
            guard interval > 0, limit > 0 else { return 1 }
            return Int((limit / interval).rounded(.up))
        }
    }

    /// How a ringing ended.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// Someone acknowledged it (`timerctl ack`).
        case acknowledged
        /// Nobody answered within the ring's limit.
        case unanswered
    }

    /// The ring rule, or `nil` for a timer that does not ring (only warns).
    public var ring: Ring?
    /// Seconds before the end at which the warning is sent (`--warn`), or `nil` for none; > 0.
    public var warning: Double?
    /// Whether the warning was sent in this run (sent once; a restart of the timer sends it again).
    /// With ``warnsEachStep``, whether every step's warning was sent (or passed).
    public var isWarned: Bool
    /// Whether ``warning`` comes before the end of every step of a group (`--warn-each`), not only
    /// before the whole group's end.
    public var warnsEachStep: Bool
    /// With ``warnsEachStep``: how many steps' warnings were sent or passed, in step order
    /// (0 to the step count); 0 otherwise.
    public var warnedSteps: UInt32
    /// Rings sent since the ringing began (0 while not ringing; it keeps the last ringing's count
    /// once the timer ended).
    public var ringCount: UInt32
    /// How many times the timer was snoozed.
    public var snoozeCount: UInt32
    /// Nanoseconds the snoozes added to the timer's last step, together (taken off again by a
    /// restart, which runs the durations as started); ≥ 0.
    public var snoozedNanoseconds: Int64
    /// How the last ringing ended, or `nil` while it rings or before it rang.
    public var outcome: Outcome?

    /// Creates an alarm.
    ///
    /// - Parameters:
    ///   - ring: the ring rule, or `nil` for none.
    ///   - warning: seconds before the end for the warning, or `nil` for none.
    ///   - isWarned: whether the warning was already sent (default `false`).
    ///   - ringCount: rings sent so far (default 0).
    ///   - snoozeCount: snoozes so far (default 0).
    ///   - snoozedNanoseconds: what the snoozes added to the last step, in nanoseconds (default 0).
    ///   - outcome: how the last ringing ended (default `nil`).
    ///   - warnsEachStep: whether the warning comes before every step's end (default `false`).
    ///   - warnedSteps: with `warnsEachStep`, the steps warned so far (default 0).
    public init(
        ring: Ring?, warning: Double?, isWarned: Bool = false, ringCount: UInt32 = 0, snoozeCount: UInt32 = 0,
        snoozedNanoseconds: Int64 = 0, outcome: Outcome? = nil, warnsEachStep: Bool = false, warnedSteps: UInt32 = 0
    ) {
        self.ring = ring
        self.warning = warning
        self.isWarned = isWarned
        self.warnsEachStep = warnsEachStep
        self.warnedSteps = warnedSteps
        self.ringCount = ringCount
        self.snoozeCount = snoozeCount
        self.snoozedNanoseconds = snoozedNanoseconds
        self.outcome = outcome
    }
}

extension TimerRecord {
    /// The alarm (extension tag 6), or `nil` for a timer that neither rings nor warns; setting
    /// `nil` removes it.
    ///
    /// - Complexity: O(e) for e extensions (almost always 0 to 2).
    public var alarm: TimerAlarm? {
        get {
            for case .alarm(let alarm) in extensions { return alarm }
            return nil
        }
        set {
            let index = extensions.firstIndex { $0.tag == TimerExtension.alarmTag }
            switch (index, newValue) {
            case (let index?, let alarm?): extensions[index] = .alarm(alarm)
            case (let index?, nil): extensions.remove(at: index)
            case (nil, let alarm?): extensions.append(.alarm(alarm))
            case (nil, nil): break
            }
        }
    }
}
