import Foundation

/// What makes a timer recurring (`timerctl start --on EXPR` or `--every DURATION`), and where its
/// series stands; persisted as the store's extension tag 2 (`TimerRecord+ExtensionCoding.swift`).
///
/// A recurring timer is a running record whose current period counts down to its next elapse: for a
/// calendar rule its ``TimerRecord/wallDeadline`` is that elapse (plus its randomized delay), so the
/// wall-clock machinery of `--at` timers (re-timing on a step, carrying across a reboot) applies; for
/// an `every` rule it is a countdown on the boot-time clock, like systemd's `OnUnitActiveSec=`
/// (systemd.timer(5)). Policies: docs/calendar.md, "Recurring timers".
public struct TimerRecurrence: Sendable, Hashable {
    /// The rule that gives the elapses.
    public enum Rule: Sendable, Hashable {
        /// A systemd.time(7) calendar expression (as given), read in `zone` (an IANA identifier or
        /// `UTC`). `followsSystemZone`: the zone is the system's, re-timed when it changes
        /// (`/etc/localtime` replaced); false when the expression or the requester (`TZ`) named it.
        case calendar(expression: String, zone: String, followsSystemZone: Bool)
        /// Every `seconds` (≥ ``TimerRecurrence/minimumInterval``, ≤ 366 days) on the boot-time clock,
        /// which counts suspend (`CLOCK_BOOTTIME`).
        case every(seconds: Double)
    }

    /// The rule.
    public var rule: Rule
    /// `--skip-missed`: elapses that passed while timerd could not ring them (suspend, power-off,
    /// a daemon restart, a wall-clock step forward) are dropped instead of rung as one catch-up
    /// (the default, like systemd's `Persistent=true`).
    public var skipMissed: Bool
    /// `--randomized-delay`, in seconds (0–366 days): each calendar elapse is delayed by a fixed
    /// pseudo-random part of it (derived from the timer id and the elapse, like systemd's
    /// `RandomizedDelaySec=` with `FixedRandomDelay=`), and catch-ups are spread over it. 0: elapses
    /// on time, catch-ups spread over the engine's ``TimerEngine/catchUpSpread``.
    public var randomizedDelay: Double
    /// The nominal instant of the next elapse not yet rung (without randomized delay); for `every`,
    /// the wall-clock estimate made when it was scheduled. `nil` while paused or once ended.
    public var nextElapse: Date?
    /// The nominal instant of the latest elapse rung (or folded into a catch-up), or `nil`.
    public var lastElapse: Date?
    /// How many elapses the series accounted for so far: each one rung on time, plus each one a
    /// catch-up stood for (its ``lastMissed``). Elapses dropped by ``skipMissed`` are not counted.
    public var elapseCount: UInt64
    /// The `missed` count of the latest `elapsed` event: 0 for an elapse rung on time, the number of
    /// elapses a catch-up stands for otherwise.
    public var lastMissed: UInt32
    /// While a catch-up waits for its spread delay: how many elapses it stands for so far; else 0.
    public var pendingMissed: UInt32

    /// The shortest interval between two elapses of one timer that are rung separately, in seconds:
    /// `every` takes no shorter period, and calendar elapses closer than this to the previous firing
    /// are rung with the next one (counted in its `missed`), so no expression keeps the loop busy.
    public static let minimumInterval = 0.5
    /// At most this many elapses are counted for one catch-up (`missed` saturates here), so that a
    /// catch-up after a long power-off stays cheap.
    public static let maximumCountedElapses = 100_000

    /// Creates a recurrence at the start of its series.
    ///
    /// - Parameters:
    ///   - rule: the rule.
    ///   - skipMissed: drop missed elapses instead of one catch-up.
    ///   - randomizedDelay: seconds, 0–366 days.
    public init(rule: Rule, skipMissed: Bool = false, randomizedDelay: Double = 0) {
        self.rule = rule
        self.skipMissed = skipMissed
        self.randomizedDelay = randomizedDelay
        self.nextElapse = nil
        self.lastElapse = nil
        self.elapseCount = 0
        self.lastMissed = 0
        self.pendingMissed = 0
    }

    /// The rule as a person reads it: the expression as given, or `every 1h30m`.
    public var ruleText: String {
        switch rule {
        case .calendar(let expression, _, _): return expression
        case .every(let seconds): return "every " + DurationText.compact(seconds)
        }
    }
}

/// Duration text for ``TimerRecurrence/ruleText`` (the engine formats nothing else).
enum DurationText {
    static func compact(_ seconds: Double) -> String {
        var rest = seconds
        var text = ""
        for (unit, size) in [("d", 86_400.0), ("h", 3_600.0), ("m", 60.0)] where rest >= size {
            let count = (rest / size).rounded(.down)
            text += "\(Int(count))\(unit)"
            rest -= count * size
        }
        if rest > 0 || text.isEmpty {
            let whole = rest.rounded(.down) == rest
            text += whole ? "\(Int(rest))s" : "\((rest * 1000).rounded() / 1000)s"
        }
        return text
    }
}

extension TimerRecord {
    /// The recurrence (extension tag 2), or `nil` for a one-shot timer; setting `nil` removes it.
    ///
    /// - Complexity: O(e) for e extensions (almost always 0 to 2).
    public var recurrence: TimerRecurrence? {
        get {
            for case .recurrence(let recurrence) in extensions { return recurrence }
            return nil
        }
        set {
            let index = extensions.firstIndex { $0.tag == TimerExtension.recurrenceTag }
            switch (index, newValue) {
            case (let index?, let recurrence?): extensions[index] = .recurrence(recurrence)
            case (let index?, nil): extensions.remove(at: index)
            case (nil, let recurrence?): extensions.append(.recurrence(recurrence))
            case (nil, nil): break
            }
        }
    }
}

/// A recurring timer's series as a snapshot shows it (``TimerSnapshot/recurrence``).
public struct RecurrenceSnapshot: Sendable, Hashable {
    /// The recurrence as stored.
    public var recurrence: TimerRecurrence
    /// When the next elapse is rung, randomized delay included (`nil` while paused or ended).
    public var nextElapse: Date?
    /// How the latest action run ended (or that it runs), `nil` without an action or before any run.
    public var lastResult: ActionRun.Outcome?
    /// The group each elapse starts (``SeriesGroup``), or `nil` for a series that only rings.
    public var group: SeriesGroup?
    /// The step (1-based) the live run of ``group`` is at, filled in by the engine's status and
    /// listing; `nil` without a live run, and in events.
    public var runStep: Int?

    /// Creates a snapshot of a series.
    ///
    /// - Parameters:
    ///   - recurrence: the stored recurrence.
    ///   - nextElapse: when the next elapse rings, or `nil`.
    ///   - lastResult: how the latest action run ended, or `nil`.
    ///   - group: the group each elapse starts, or `nil`.
    public init(
        recurrence: TimerRecurrence, nextElapse: Date?, lastResult: ActionRun.Outcome? = nil,
        group: SeriesGroup? = nil
    ) {
        self.lastResult = lastResult
        self.recurrence = recurrence
        self.nextElapse = nextElapse
        self.group = group
        self.runStep = nil
    }
}
