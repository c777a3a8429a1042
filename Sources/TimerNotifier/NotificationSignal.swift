/// A signal of `org.freedesktop.Notifications` the notifier listens for (Desktop Notifications
/// Specification, "Signals").
public enum NotificationSignal: Equatable, Sendable {
    /// `ActionInvoked(u id, s action_key)`: the user pressed a button.
    case actionInvoked(id: UInt32, key: String)
    /// `NotificationClosed(u id, u reason)`: 1 expired, 2 dismissed by the user, 3 closed by
    /// `CloseNotification`, 4 undefined.
    case closed(id: UInt32, reason: UInt32)
}
