import TimerModel
import TimerProtocol

/// Every way a `timerctl` command can fail, each with its exit status (sysexits.h; the table is in README.md and timerctl(1)).
public enum ControlError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Bad command line: exit 64 (`EX_USAGE`). Carries the message and the verb whose usage applies.
    case usage(String, verb: Verb?)
    /// No daemon answers and none could be started: exit 69 (`EX_UNAVAILABLE`).
    case unavailable(String)
    /// The daemon refused the operation (no such timer, invalid state …): exit 1.
    case failed(RPCError)
    /// The daemon's reply could not be read: exit 76 (`EX_PROTOCOL`).
    case protocolError(String)

    /// The exit status for this error.
    public var exitStatus: Int32 {
        switch self {
        case .usage: return 64
        case .unavailable: return 69
        case .failed: return 1
        case .protocolError: return 76
        }
    }

    /// A refusal of what the command line said (`invalidParams`: a calendar expression, a time or a
    /// duration timerd rejects, such as `start --on 'bad'`) as the usage error it is, exit 64 like
    /// the errors timerctl finds itself; any other error unchanged.
    ///
    /// - Parameter verb: the command whose usage applies.
    /// - Returns: ``usage(_:verb:)`` for a ``failed(_:)`` with code `invalidParams`, else `self`.
    func asUsage(verb: Verb?) -> ControlError {
        guard case .failed(let error) = self, error.code == RPCErrorCode.invalidParams.rawValue else { return self }
        return .usage(error.message, verb: verb)
    }

    /// A daemon's refusal of a whole method (`-32601`, such as a `timerd --shared` host that lacks
    /// it) in the words the user typed: the wire method that starts the message becomes
    /// `timerctl VERB`, and `"on" of timer.start` becomes `--on and --every of timerctl start`
    /// (`timer.runs is not available in shared mode …` →
    /// `timerctl logs is not available in shared mode …`). Any other error is unchanged.
    ///
    /// - Parameter verb: the command the user typed.
    /// - Returns: the error, its message in the command's words.
    func namingCommand(_ verb: Verb?) -> ControlError {
        guard let verb, case .failed(var error) = self, error.code == RPCErrorCode.methodNotFound.rawValue else {
            return self
        }
        var message = Substring(error.message)
        for prefix in ["timer.", "daemon."] where message.hasPrefix(prefix) {
            let method = message.prefix(while: { $0 != " " })
            message = "timerctl \(verb.rawValue)" + message.dropFirst(method.count)
        }
        error.message = String(message).replacing(
            "(\"on\" of timer.start)", with: "(--on and --every of timerctl start)"
        ).replacing(
            "(\"durations\" with \"on\" or \"every\" of timer.start)",
            with: "(DURATION... with --on or --every of timerctl start)")
        return .failed(error)
    }

    /// The message after `Error: `.
    public var description: String {
        switch self {
        case .usage(let message, _): return message
        case .unavailable(let message): return message
        case .failed(let error): return error.message
        case .protocolError(let message): return "unexpected reply from timerd: \(message)"
        }
    }
}

/// The commands of `timerctl`.
public enum Verb: String, Sendable, CaseIterable {
    /// Start a timer or a group.
    case start
    /// Stop (cancel) a timer.
    case stop
    /// Pause a timer.
    case pause
    /// Resume a paused timer.
    case resume
    /// Show timers.
    case status
    /// Wait until a timer ends.
    case wait
    /// Show a timer's on-finish action runs with their output.
    case logs
    /// Follow timers' events as they happen, one line each (`journalctl -f` style).
    case events
    /// Print a status-bar line for a timer each time it changes.
    case bar
    /// Show desktop notifications with buttons for your timers (D-Bus; the trait `Notifications`).
    case notifier
    /// Add time to (or, with `-`, take time from) a timer's current step.
    case extend
    /// Start a timer again with the same durations, under the same id.
    case restart
    /// Re-arm a heartbeat timer to its whole duration from now (a service's check-in).
    case beat
    /// Acknowledge a ringing timer (`--ring`): it stops ringing and finishes.
    case ack
    /// Snooze a ringing timer: it runs again for DURATION (timerd's default without one).
    case snooze
    /// Give a timer a new name.
    case rename
    /// End the current step of a group and start the next (alias `next`).
    case skip
    /// Remove ended timers from the history (alias `forget`).
    case remove = "rm"
    /// A live full-screen view of the timers (alias `top`).
    case watch
    /// Check that the daemon answers.
    case ping
    /// Make the daemon re-read its configuration, and wait until it has.
    case reload
    /// Show the daemon's figures, or with `--prometheus` its metrics in the Prometheus text format.
    case stats
    /// Pick a time in a terminal date picker (the `timerpick` executable) and print it.
    case pick
    /// Print a shell completion script generated from the command table.
    case completion
    /// Show help for a command.
    case help
    /// Show a calendar expression's normalized form and next elapses (run by the `timerpick` executable).
    case calendar
    /// Print the live timers' ids and names for a completion script (hidden; never starts a daemon).
    case completeTimers = "__complete-timers"
}
