/// The least severe priority that timerd writes to stderr: `--log-level` and `log_level=`.
///
/// A line's priority is read from its wording (`LogLine/priority(of:)`); a line less severe than
/// the level is dropped. The levels are the syslog(3) priorities that timerd's lines carry, with
/// syslog's ordering (a smaller number is more severe): `error` (3, `LOG_ERR`) shows only errors,
/// `warning` (4, `LOG_WARNING`) errors and warnings, `info` (6, `LOG_INFO`, the default) everything.
public enum LogLevel: String, Sendable, Equatable, CaseIterable {
    /// Errors only.
    case error
    /// Errors and warnings.
    case warning
    /// Everything: errors, warnings and one line per event (the default).
    case info

    /// The syslog(3) priority of the level: 3, 4 or 6.
    public var priority: Int {
        switch self {
        case .error: return 3
        case .warning: return 4
        case .info: return 6
        }
    }

    /// Whether a line of syslog priority `priority` is written at this level.
    ///
    /// - Parameter priority: the line's priority (3, 4 or 6; see `LogLine/priority(of:)`).
    /// - Returns: `true` when it is at least as severe as the level (`priority <= self.priority`).
    public func admits(priority: Int) -> Bool { priority <= self.priority }

    /// The accepted words, for error messages: `error, warning or info`.
    public static let choices = "error, warning or info"
}
