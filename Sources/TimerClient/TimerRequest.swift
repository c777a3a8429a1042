import TimerProtocol

/// One request of protocol version 1 with its typed parameters (docs/protocol.md, "Methods").
///
/// Timers are named by a reference: an id (`"3"`, `"3.2"` for a group's child) or a name.
/// `line(id:)` (package access) is the one place requests are written, with TimerProtocol's JSON
/// writer.
public enum TimerRequest: Sendable, Hashable {
    /// `timer.start` of a countdown, or of a group when there are several durations.
    ///
    /// - durations: seconds each, > 0 (docs/protocol.md gives the limits).
    /// - name: the timer's name, or `nil`.
    /// - action: the on-finish action, or `nil`.
    /// - isHeartbeat: a heartbeat timer that ``beat(_:)`` re-arms.
    /// - loops: run the durations this many times, one loop after the other (at most 100 steps in
    ///   all), or `nil` for once.
    /// - wake: the timer wakes the machine from suspend (`"wake": true`; a daemon without
    ///   CAP_WAKE_ALARM refuses it, docs/time.md).
    /// - alarm: ring at the end until answered and/or warn before it (`"ring"`, `"warn"`), or `nil`.
    case start(
        durations: [Double], name: String?, action: TimerAction?, isHeartbeat: Bool, loops: Int? = nil,
        wake: Bool = false, alarm: AlarmRequest? = nil)
    /// `timer.start` with `at`: an ISO 8601 date-time, or a local time read in `timeZone`; `wake` and
    /// `alarm` as for ``start(durations:name:action:isHeartbeat:loops:wake:alarm:)``.
    case startAt(
        at: String, timeZone: String?, minuteInterval: Int?, name: String?, action: TimerAction?, wake: Bool = false,
        alarm: AlarmRequest? = nil)
    /// `timer.start` with `on` or `every`.
    case startRecurring(RecurringStart)
    /// `timer.stop`.
    case stop(String)
    /// `timer.pause`.
    case pause(String)
    /// `timer.resume`.
    case resume(String)
    /// `timer.status`.
    case status(String)
    /// `timer.list`; `includingEnded` asks for the ended history too (`all`).
    case list(includingEnded: Bool)
    /// `timer.wait`: answered when the timer ends.
    case wait(String)
    /// `timer.extend`: `seconds` added to the current step (negative takes time away).
    case extend(String, seconds: Double)
    /// `timer.restart`.
    case restart(String)
    /// `timer.beat`.
    case beat(String)
    /// `timer.rename`.
    case rename(String, to: String)
    /// `timer.skip`.
    case skip(String)
    /// `timer.remove` of one ended timer, or of every ended timer of the caller when `nil`
    /// (`allEnded`).
    case remove(String?)
    /// `timer.runs`.
    case runs(String)
    /// `timer.ack`: a ringing timer acknowledged (it ends as finished).
    case ack(String)
    /// `timer.snooze`: a ringing timer runs again for `seconds`, or the daemon's default when `nil`.
    case snooze(String, seconds: Double?)
    /// `timer.subscribe`: one timer or every timer (`nil`), some kinds or all (`nil`), and the last
    /// sequence number already seen, or `nil`.
    case subscribe(timer: String?, kinds: [String]?, afterSeq: UInt64?)
    /// `timer.unsubscribe`.
    case unsubscribe(UInt64)
    /// `daemon.ping`.
    case ping
    /// `daemon.reload`.
    case reload
    /// `daemon.stats`.
    case stats
    /// `daemon.metrics`.
    case metrics

    /// The wire method this request calls.
    public var method: RPCMethod {
        switch self {
        case .start, .startAt, .startRecurring: return .timerStart
        case .stop: return .timerStop
        case .pause: return .timerPause
        case .resume: return .timerResume
        case .status: return .timerStatus
        case .list: return .timerList
        case .wait: return .timerWait
        case .extend: return .timerExtend
        case .restart: return .timerRestart
        case .beat: return .timerBeat
        case .rename: return .timerRename
        case .skip: return .timerSkip
        case .remove: return .timerRemove
        case .runs: return .timerRuns
        case .ack: return .timerAck
        case .snooze: return .timerSnooze
        case .subscribe: return .timerSubscribe
        case .unsubscribe: return .timerUnsubscribe
        case .ping: return .daemonPing
        case .reload: return .daemonReload
        case .stats: return .daemonStats
        case .metrics: return .daemonMetrics
        }
    }
}

/// The alarm of a `timer.start` (`timerctl start … --ring --warn DURATION --warn-each --sound`):
/// `"ring": true`, `"warn": seconds`, `"warnEach": true` and `"sound"` (docs/protocol.md, "Alarms").
public struct AlarmRequest: Sendable, Hashable {
    /// Ring at the end until acknowledged, snoozed or left unanswered past the daemon's limit.
    public var rings: Bool
    /// Warn this many seconds before the end (> 0, shorter than the timer), or `nil`.
    public var warning: Double?
    /// Warn that long before the end of every step of a group, not only the last (`--warn-each`).
    public var warnsEachStep: Bool
    /// The sound to play at the end and at every ring (`--sound[=FILE]`), or `nil` for none.
    public var sound: Sound?

    /// The sound of a `timer.start`.
    public enum Sound: Sendable, Hashable {
        /// `"sound": true`: the daemon's default sound.
        case standard
        /// `"sound": "/path/file.wav"`: a file, by its absolute path.
        case file(String)
    }

    /// Creates an alarm request.
    ///
    /// - Parameters:
    ///   - rings: ring at the end until answered.
    ///   - warning: seconds before the end for a warning, or `nil`.
    ///   - warnsEachStep: warn before the end of every step of a group (default `false`).
    ///   - sound: the sound to play, or `nil` (the default) for none.
    public init(rings: Bool, warning: Double?, warnsEachStep: Bool = false, sound: Sound? = nil) {
        self.rings = rings
        self.warning = warning
        self.warnsEachStep = warnsEachStep
        self.sound = sound
    }
}
