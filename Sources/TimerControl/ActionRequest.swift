import Glibc
import TimerClient
import TimerModel
import TimerSystem

/// The on-finish action `timerctl start --exec CMD --notify` asks for: the command, and the working
/// directory and minimal environment captured from this process (``ActionEnvironment``), sent as
/// `timer.start`'s `action` parameter (docs/protocol.md, docs/actions.md).
struct ActionRequest: Sendable, Equatable {
    /// `--exec CMD`, or `nil`.
    var command: String?
    /// `--notify`.
    var notify: Bool
    /// This process's working directory.
    var workingDirectory: String
    /// The captured variables, sorted by name.
    var environment: [ActionEnvironment.Variable]

    /// The request for `options`, or `nil` when none of `--exec`, `--notify` and `--sound` was given
    /// (a sound is played with the captured environment: `XDG_RUNTIME_DIR` finds the sound server).
    ///
    /// - Parameters:
    ///   - options: the parsed command line.
    ///   - environment: this process's environment (``ProcessEnvironment/current()``).
    ///   - workingDirectory: this process's working directory.
    static func make(_ options: ControlOptions, environment: [String: String], workingDirectory: String)
        -> ActionRequest?
    {
        guard options.exec != nil || options.notify || options.sound else { return nil }
        return ActionRequest(
            command: options.exec, notify: options.notify, workingDirectory: workingDirectory,
            environment: ActionEnvironment.capture(from: environment).map {
                ActionEnvironment.Variable($0.name, $0.value)
            })
    }

    /// The working directory of this process (getcwd(3)).
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` when it cannot be read (removed, or too long).
    static func currentDirectory() throws(ControlError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else {
            throw .usage(
                "--exec/--notify: cannot read the working directory (\(SystemError("getcwd", errno: Errno.current)))",
                verb: .start)
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The warning for `--notify` when the captured `PATH` has no `notify-send`, else `nil`.
    ///
    /// - Parameter isExecutable: whether a path is an executable file (injected for tests).
    func notifyWarning(isExecutable: (String) -> Bool) -> String? {
        guard notify else { return nil }
        let path = environment.first { $0.name == "PATH" }?.value ?? ActionEnvironment.fallbackPath
        guard ActionEnvironment.locate("notify-send", in: path, isExecutable: isExecutable) == nil else { return nil }
        return "Warning: --notify: no notify-send in PATH; timerd will show no desktop notification "
            + "(install it: libnotify-bin on Debian and Ubuntu, libnotify on Fedora and Arch)\n"
    }

    /// The `action` parameter of `timer.start` (written by TimerClient's request writer).
    var action: TimerAction {
        TimerAction(
            command: command, notify: notify, workingDirectory: workingDirectory,
            environment: environment.map { (name: $0.name, value: $0.value) })
    }
}

/// What `timerctl wait --bell --message TEXT` prints when the timer finishes.
enum FinishAnnouncement {
    /// The text for a timer that ended: `TEXT` and a newline, then BEL (U+0007), only for a finished
    /// (not stopped) timer and only when standard output is a terminal; otherwise nothing.
    ///
    /// - Parameters:
    ///   - state: how the timer ended.
    ///   - bell: `--bell`.
    ///   - message: `--message TEXT`, or `nil`.
    ///   - isTerminal: whether standard output is a terminal.
    /// - Returns: the bytes to write, possibly empty.
    static func text(state: TimerState, bell: Bool, message: String?, isTerminal: Bool) -> String {
        guard isTerminal, state == .finished else { return "" }
        // Control characters are shown as '?': a message cannot move the cursor or retitle the terminal.
        let shown = message.map {
            String($0.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) }) + "\n"
        }
        return (shown ?? "") + (bell ? "\u{07}" : "")
    }
}
