import Countdown
import TimerModel
import TimerProtocol

/// `timer.start`'s `action` parameter, the refusal of actions from other users, and the results
/// of action runs (docs/actions.md, docs/protocol.md).
extension TimerService {
    /// Reads `"action": {"exec"?: CMD, "notify"?: bool, "cwd": DIR, "env"?: {NAME: VALUE}}`, with
    /// the sound of `timer.start`'s `sound` (``soundRequest(_:)``) added to it. A sound without an
    /// `action` runs in `/` with no captured variable (the fallback `PATH`); an action with a sound
    /// needs neither `exec` nor `notify`.
    ///
    /// An action runs as the daemon's own user, so it is accepted only from that user: a per-user
    /// timerd (whose socket only its user can reach) accepts it; a system-wide timerd, which has no
    /// privilege to switch users, refuses it from everyone but its own uid with `-32007`.
    ///
    /// - Parameters:
    ///   - value: the parameter as sent, or `nil` when absent.
    ///   - sound: the sound file to play, or `nil`.
    ///   - context: who asks.
    /// - Returns: the action, or `nil` when absent or `null` and there is no sound.
    /// - Throws: `RPCError` `-32602` for a malformed action (no exec and no notify, a relative or
    ///   missing `cwd`, a `cwd` that ``directoryChecker`` refuses, a variable that is not captured, NUL bytes, an over-long command), `-32007`
    ///   when the requester is not the daemon's own user.
    package func action(_ value: JSONValue?, sound: String? = nil, context: RequestContext) throws -> TimerAction? {
        let object: [String: JSONValue]
        switch value {
        case .none, .some(.null):
            guard sound != nil else { return nil }
            object = ["cwd": .string("/")]
        case .some(.object(let members)): object = members
        case .some(let other): throw Self.typeError("action", "an object", other, .timerStart)
        }
        for key in object.keys.sorted() where !["exec", "notify", "cwd", "env"].contains(key) {
            throw RPCError(.invalidParams, "unknown member \"\(key)\" of \"action\"; allowed: cwd, env, exec, notify")
        }
        var command: String?
        switch object["exec"] {
        case .none, .some(.null): break
        case .some(.string(let text)):
            guard !text.isEmpty, text.utf8.count <= ActionEnvironment.maximumCommandBytes, !text.utf8.contains(0)
            else {
                throw RPCError(
                    .invalidParams,
                    "\"exec\" must be a shell command of 1 to \(ActionEnvironment.maximumCommandBytes) bytes without NUL"
                )
            }
            command = text
        case .some(let other): throw Self.typeError("action.exec", "a shell command (string)", other, .timerStart)
        }
        var notify = false
        switch object["notify"] {
        case .none, .some(.null): break
        case .some(.bool(let flag)): notify = flag
        case .some(let other): throw Self.typeError("action.notify", "a boolean", other, .timerStart)
        }
        guard command != nil || notify || sound != nil else {
            throw RPCError(.invalidParams, "\"action\" needs \"exec\" (a command) or \"notify\": true")
        }
        guard case .string(let directory) = object["cwd"], directory.hasPrefix("/"), !directory.utf8.contains(0) else {
            throw RPCError(.invalidParams, "\"action\" needs \"cwd\": an absolute directory to run in")
        }
        var environment: [TimerAction.Variable] = []
        switch object["env"] {
        case .none, .some(.null): break
        case .some(.object(let variables)):
            for (name, value) in variables.sorted(by: { $0.key < $1.key }) {
                guard ActionEnvironment.isCaptured(name) else {
                    throw RPCError(
                        .invalidParams,
                        "\"env\" may hold only \(ActionEnvironment.capturedNames.sorted().joined(separator: ", ")) "
                            + "and LC_*, got \"\(name)\"")
                }
                guard case .string(let text) = value, text.utf8.count <= ActionEnvironment.maximumValueBytes,
                    !text.utf8.contains(0)
                else {
                    throw RPCError(
                        .invalidParams,
                        "\"env\" value of \(name) must be a string of at most \(ActionEnvironment.maximumValueBytes) bytes without NUL"
                    )
                }
                environment.append(TimerAction.Variable(name, text))
            }
        case .some(let other): throw Self.typeError("action.env", "an object of strings", other, .timerStart)
        }
        guard let runner = actionUID, runner == context.uid else {
            let what = command != nil ? "--exec" : notify ? "--notify" : "--sound"
            throw RPCError(
                .permissionDenied,
                "on-finish actions (\(what)) run as timerd's own user"
                    + (actionUID.map { " (uid \($0))" } ?? "")
                    + ", and this timerd cannot run them as uid \(context.uid); "
                    + "use a per-user timerd for actions (systemctl --user enable --now timerd.socket)")
        }
        // Checked only for timerd's own user: to anyone else, it would tell which paths exist.
        if let problem = directoryChecker?(directory) {
            throw RPCError(.invalidParams, "\"cwd\" of \"action\" cannot be used: \(directory): \(problem)")
        }
        return TimerAction(
            command: command, notify: notify, workingDirectory: directory, environment: environment, sound: sound)
    }

    /// The log text of a start with an action: what it will run, and a warning when `--notify` has
    /// no `notify-send` to run (``programLocator``).
    func actionNote(_ action: TimerAction) -> String {
        var parts: [String] = []
        if let command = action.command {
            parts.append("exec \(command.debugDescription) in \(action.workingDirectory)")
        }
        if action.notify {
            let path = action.value(of: "PATH") ?? ActionEnvironment.fallbackPath
            if programLocator?("notify-send", path) == nil {
                parts.append(
                    "notify; warning: no notify-send in the captured PATH (\(path)): no desktop notification will be shown"
                )
            } else {
                parts.append("notify")
            }
        }
        if let sound = action.sound { parts.append("sound \(sound.debugDescription)") }
        return "on finish: " + parts.joined(separator: ", ")
    }

    /// Records how an action run ended, and routes the `TimerEvent.Kind.action` event.
    ///
    /// - Parameters:
    ///   - id: the timer's id.
    ///   - kind: which run ended.
    ///   - outcome: how.
    /// - Returns: whether the run was recorded (`false` when the timer is gone from the history),
    ///   and the replies to send to subscribers.
    public mutating func recordActionOutcome(timer id: UInt64, kind: TimerAction.Kind, outcome: ActionRun.Outcome)
        -> (recorded: Bool, wakeups: [(waiter: WaiterID, reply: [UInt8])])
    {
        let snapshot = engine.recordActionOutcome(timer: id, kind: kind, outcome: outcome)
        return (snapshot != nil, routeEvents())
    }
}
