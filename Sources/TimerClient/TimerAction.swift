/// The on-finish action of `timer.start`'s `action` parameter (docs/actions.md): a command run by
/// `/bin/sh -c` in `workingDirectory` with exactly `environment`, a desktop notification, or both.
public struct TimerAction: Sendable, Hashable {
    /// The command to run, or `nil` for a notification alone.
    public var command: String?
    /// Whether timerd also shows a desktop notification (`notify-send`).
    public var notify: Bool
    /// The absolute directory the command runs in.
    public var workingDirectory: String
    /// The command's whole environment as name and value pairs (timerd adds the `TIMER_*`
    /// variables); written as a JSON object, so a name given twice keeps its last value.
    public var environment: [(name: String, value: String)]

    /// Creates an action.
    ///
    /// - Parameters:
    ///   - command: the shell command, or `nil`.
    ///   - notify: whether to notify the desktop as well.
    ///   - workingDirectory: an absolute path.
    ///   - environment: the variables the command gets.
    public init(
        command: String?, notify: Bool, workingDirectory: String, environment: [(name: String, value: String)]
    ) {
        self.command = command
        self.notify = notify
        self.workingDirectory = workingDirectory
        self.environment = environment
    }

    /// Whether two actions are the same command, notification, directory and variables in order.
    public static func == (lhs: TimerAction, rhs: TimerAction) -> Bool {
        lhs.command == rhs.command && lhs.notify == rhs.notify && lhs.workingDirectory == rhs.workingDirectory
            && lhs.environment.map(\.name) == rhs.environment.map(\.name)
            && lhs.environment.map(\.value) == rhs.environment.map(\.value)
    }

    /// Hashes the same members ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(command)
        hasher.combine(notify)
        hasher.combine(workingDirectory)
        for variable in environment {
            hasher.combine(variable.name)
            hasher.combine(variable.value)
        }
    }
}
