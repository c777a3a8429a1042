import TimerModel
import TimerProtocol

/// What one timer's desktop notification says at an instant, as a value: a pure function of the
/// timer as last reported, its remaining time and its fraction completed, so that tests state the
/// exact text, buttons and hints.
///
/// - Running: summary the timer's name (`timer 3` when unnamed), body `0:24:59 left` (a group adds
///   `, step 2 of 3`), buttons Pause, +1 min and Stop, urgency normal.
/// - Paused: body `Paused, 0:24:59 left`, buttons Resume and Stop, urgency normal.
/// - Finished: body `Finished` (`Finished late: timerd was not running at the deadline` when the
///   finish was missed), buttons Dismiss and Restart, urgency critical.
/// - Ringing (`--ring`): body `Ringing` (`, ring 2` from the second ring on), buttons Snooze
///   (`timer.snooze` for the daemon's default) and Dismiss (`timer.ack`), urgency critical.
/// - Stopped, pending: no notification (``make(timer:remaining:fraction:)`` returns `nil`).
///
/// The `value` hint is the whole timer's `fractionCompleted` (a group's aggregate over its steps)
/// as a percentage, rounded down, as `timerctl status` shows it.
public struct NotificationContent: Equatable, Sendable {
    /// A button: the key sent back in `ActionInvoked` and the label shown.
    public struct Button: Equatable, Sendable {
        /// What the button does.
        public var action: NotifierAction
        /// The label shown on it.
        public var label: String

        /// Creates a button.
        public init(_ action: NotifierAction, _ label: String) {
            self.action = action
            self.label = label
        }
    }

    /// The one-line summary: the timer's name, or `timer ID`.
    public var summary: String
    /// The state and remaining time.
    public var body: String
    /// The buttons, in the order shown.
    public var buttons: [Button]
    /// The progress, 0 … 100 percent.
    public var percent: Int32
    /// Normal while the timer runs or is paused, critical once it has finished.
    public var urgency: NotificationUrgency

    /// The application name sent with every notification.
    public static let appName = "timerd"
    /// The icon sent with every notification: the Icon Naming Specification's `appointment-soon`.
    public static let appIcon = "appointment-soon"

    /// Creates content from its parts.
    public init(summary: String, body: String, buttons: [Button], percent: Int32, urgency: NotificationUrgency) {
        self.summary = summary
        self.body = body
        self.buttons = buttons
        self.percent = percent
        self.urgency = urgency
    }

    /// The notification for `timer`, or `nil` when its state has none (stopped, pending).
    ///
    /// - Parameters:
    ///   - timer: the timer as last reported.
    ///   - remaining: its remaining time now, in seconds (counted down locally while it runs).
    ///   - fraction: its fraction completed now, 0 … 1 (values outside are clamped).
    /// - Returns: the content, or `nil`.
    public static func make(timer: TimerInfo, remaining: Double, fraction: Double) -> NotificationContent? {
        let summary = timer.name ?? "timer \(timer.id)"
        let left = DurationFormatter.countdown(seconds: remaining) + " left"
        let percent = Int32((min(1, max(0, fraction.isFinite ? fraction : 0)) * 100).rounded(.down))
        switch timer.state {
        case .running:
            var body = left
            if let children = timer.children, children.count > 1, let current = timer.currentChild {
                body += ", step \(current + 1) of \(children.count)"
            }
            return NotificationContent(
                summary: summary, body: body,
                buttons: [Button(.pause, "Pause"), Button(.extend, "+1 min"), Button(.stop, "Stop")],
                percent: percent, urgency: .normal)
        case .paused:
            return NotificationContent(
                summary: summary, body: "Paused, " + left, buttons: [Button(.resume, "Resume"), Button(.stop, "Stop")],
                percent: percent, urgency: .normal)
        case .finished:
            return NotificationContent(
                summary: summary,
                body: timer.missed == true ? "Finished late: timerd was not running at the deadline" : "Finished",
                buttons: [Button(.dismiss, "Dismiss"), Button(.restart, "Restart")], percent: 100, urgency: .critical)
        case .ringing:
            let ring = timer.alarm.map { $0.ringCount > 1 ? ", ring \($0.ringCount)" : "" } ?? ""
            return NotificationContent(
                summary: summary,
                body: (timer.missed == true ? "Ringing late: timerd was not running at the deadline" : "Ringing")
                    + ring,
                buttons: [Button(.snooze, "Snooze"), Button(.ack, "Dismiss")], percent: 100, urgency: .critical)
        case .stopped, .pending:
            return nil
        }
    }

    /// The `Notify` arguments that show this content, as far as the server's capabilities allow
    /// (Desktop Notifications Specification, "Capabilities"): without `body` the body is appended to
    /// the summary after ` — `, without `actions` no buttons are sent. Running and paused
    /// notifications never expire (`expire_timeout` 0: the user closes them); a finished one is
    /// critical, which servers keep until it is closed.
    ///
    /// - Parameters:
    ///   - replacesID: the notification to replace in place, or 0 for a new one.
    ///   - capabilities: what the server said it supports.
    /// - Returns: the arguments.
    public func request(replacing replacesID: UInt32, capabilities: ServerCapabilities) -> NotifyRequest {
        NotifyRequest(
            appName: Self.appName, replacesID: replacesID, appIcon: Self.appIcon,
            summary: capabilities.hasBody ? summary : summary + " — " + body, body: capabilities.hasBody ? body : "",
            actions: capabilities.hasActions ? buttons.flatMap { [$0.action.rawValue, $0.label] } : [],
            hints: [.value(percent), .urgency(urgency)], expireTimeout: 0)
    }
}

/// What a notification's button asks for; the raw value is its action key on the bus.
public enum NotifierAction: String, Equatable, Sendable, CaseIterable {
    /// `timer.pause`.
    case pause
    /// `timer.resume`.
    case resume
    /// `timer.extend` by ``NotifierModel/extendSeconds``.
    case extend
    /// `timer.stop`.
    case stop
    /// `timer.restart`.
    case restart
    /// Close the notification; nothing is sent to timerd.
    case dismiss
    /// `timer.snooze` of a ringing timer, for the daemon's default snooze.
    case snooze
    /// `timer.ack` of a ringing timer (its Dismiss button).
    case ack
}
