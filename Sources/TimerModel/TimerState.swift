/// Where a timer is in its life.
///
/// ```
/// start ──▶ running ──pause──▶ paused ──resume──▶ running
///              │                  │
///              ├── time is up ──▶ finished
///              └──── stop ──────▶ stopped ◀── stop ── paused
/// ```
/// `finished` and `stopped` are final. `pending` is only ever the state of a group's child that
/// has not started yet.
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

    /// Whether the timer is still live (running or paused): live timers own their names.
    public var isLive: Bool { self == .running || self == .paused }

    /// The state as a phrase for error messages ("is running", "has finished").
    var phrase: String {
        switch self {
        case .running: return "is running"
        case .paused: return "is paused"
        case .finished: return "has finished"
        case .stopped: return "was stopped"
        case .pending: return "has not started"
        }
    }
}
