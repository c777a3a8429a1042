/// The arguments of one `org.freedesktop.Notifications.Notify` call, in the order the Desktop
/// Notifications Specification gives them (`Notify(s app_name, u replaces_id, s app_icon,
/// s summary, s body, as actions, a{sv} hints, i expire_timeout) → u id`), as a value that tests
/// compare exactly.
public struct NotifyRequest: Equatable, Sendable {
    /// The application's name, shown by some servers: `timerd`.
    public var appName: String
    /// The notification this one replaces in place; 0 for a new one.
    public var replacesID: UInt32
    /// A freedesktop icon name or a path; empty for none.
    public var appIcon: String
    /// The one-line summary.
    public var summary: String
    /// The body; empty when the server lacks the `body` capability.
    public var body: String
    /// Action keys and labels, alternating (`["pause", "Pause", …]`); empty when the server lacks
    /// the `actions` capability.
    public var actions: [String]
    /// The hints, in the order they are sent.
    public var hints: [NotificationHint]
    /// Milliseconds until the server closes it; 0 never, -1 the server's default.
    public var expireTimeout: Int32

    /// Creates the arguments of one call.
    public init(
        appName: String, replacesID: UInt32, appIcon: String, summary: String, body: String, actions: [String],
        hints: [NotificationHint], expireTimeout: Int32
    ) {
        self.appName = appName
        self.replacesID = replacesID
        self.appIcon = appIcon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.expireTimeout = expireTimeout
    }
}

/// One entry of `Notify`'s `hints` dictionary (Desktop Notifications Specification, "Hints").
public enum NotificationHint: Equatable, Sendable {
    /// `value` (`i`): the progress, 0 … 100 percent (a de-facto hint servers such as dunst, GNOME
    /// Shell and KDE Plasma draw as a bar; others ignore it, as the specification asks of unknown
    /// hints).
    case value(Int32)
    /// `urgency` (`y`): 0 low, 1 normal, 2 critical.
    case urgency(NotificationUrgency)

    /// The hint's key in the dictionary.
    public var key: String {
        switch self {
        case .value: return "value"
        case .urgency: return "urgency"
        }
    }
}

/// The `urgency` hint's levels (Desktop Notifications Specification, "Urgency Levels").
public enum NotificationUrgency: UInt8, Equatable, Sendable {
    /// 0: low.
    case low = 0
    /// 1: normal.
    case normal = 1
    /// 2: critical; servers keep it until the user closes it.
    case critical = 2
}
