/// Where a timer is in its life.
///
/// ```
/// start ──▶ running ──pause──▶ paused ──resume──▶ running
///              │                  │
///              ├── time is up ──▶ finished
///              ├── time is up (--ring) ──▶ ringing ──ack / no answer──▶ finished
///              │                              └──snooze──▶ running
///              └──── stop ──────▶ stopped ◀── stop ── paused, ringing
/// ```
/// `finished` and `stopped` are final. `pending` is only ever the state of a group's child that
/// has not started yet. `ringing` is a timer started with `--ring` whose time is up and that
/// repeats its alert until it is acknowledged, snoozed or left unanswered past its limit.
public enum TimerState: String, Sendable, Codable, Hashable, CaseIterable {
    /// Counting down.
    case running
    /// Counting stopped for now; remaining time is kept.
    case paused
    /// Ran to zero.
    case finished
    /// Cancelled before it ran to zero.
    case stopped
    /// A group's child that has not started yet.
    case pending
    /// Ran to zero and rings until acknowledged, snoozed or left unanswered (`--ring`).
    case ringing

    /// Whether the timer is still live (running, paused or ringing): live timers own their names.
    public var isLive: Bool { self == .running || self == .paused || self == .ringing }

    /// The state as a phrase for error messages ("is running", "has finished").
    var phrase: String {
        switch self {
        case .running: return "is running"
        case .paused: return "is paused"
        case .finished: return "has finished"
        case .stopped: return "was stopped"
        case .pending: return "has not started"
        case .ringing: return "is ringing"
        }
    }
}
