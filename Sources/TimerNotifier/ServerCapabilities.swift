/// What a notification server says it supports (`GetCapabilities`, Desktop Notifications
/// Specification, "org.freedesktop.Notifications.GetCapabilities").
public struct ServerCapabilities: Equatable, Sendable {
    /// `actions`: the server shows action buttons and sends `ActionInvoked`.
    public var hasActions: Bool
    /// `body`: the server shows the body text (some show the summary only).
    public var hasBody: Bool

    /// Creates capabilities from the flags.
    public init(hasActions: Bool, hasBody: Bool) {
        self.hasActions = hasActions
        self.hasBody = hasBody
    }

    /// Reads the capability strings a server returns; unknown ones are ignored.
    ///
    /// - Parameter names: `GetCapabilities`'s answer, such as `["body", "actions", "persistence"]`.
    public init(_ names: [String]) {
        hasActions = names.contains("actions")
        hasBody = names.contains("body")
    }
}
