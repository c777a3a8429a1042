import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a timer does when it finishes, chosen at start (`timerctl start --exec CMD --notify`), and
/// the record of each time it did it.
///
/// The daemon runs ``command`` with `/bin/sh -c` in ``workingDirectory`` with ``environment`` plus
/// `TIMER_ID`, `TIMER_NAME`, `TIMER_EVENT` and `TIMER_DURATION`, and shows a desktop notification
/// through `notify-send` when ``notify`` is set, and plays ``sound`` through the first sound player
/// it finds (`pw-play`, `paplay`, `aplay`) when it is set (docs/actions.md). Actions run when the timer
/// finishes or is found `missed` at start-up, never when it is stopped, and at most once: the engine
/// writes a ``ActionRun/Outcome/running`` run into the timer's record before the daemon starts the
/// process, and never starts a kind that already has a run.
///
/// Persisted with the timer as the store's extension tag 1 (`TimerRecord+BinaryCoding.swift`).
public struct TimerAction: Sendable, Hashable {
    /// A command for `/bin/sh -c`, or `nil` for none.
    public var command: String?
    /// Whether to show a desktop notification (`notify-send`).
    public var notify: Bool
    /// The absolute path of a sound file to play at the end and at every ring (`--sound`), or `nil`.
    public var sound: String?
    /// The absolute directory the command runs in (the `timerctl` caller's working directory).
    public var workingDirectory: String
    /// The variables captured from the `timerctl` that started the timer, sorted by name.
    public var environment: [Variable]
    /// Each run so far, in the order they started (at most one per ``Kind``).
    public var runs: [ActionRun]

    /// One environment variable (name and value).
    public typealias Variable = ActionEnvironment.Variable

    /// The three things an action can do.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Run ``TimerAction/command`` with `/bin/sh -c`.
        case exec
        /// Show a desktop notification.
        case notify
        /// Play ``TimerAction/sound`` through a sound player.
        case sound
    }

    /// Why an action ran: the event it followed.
    public enum Trigger: String, Sendable, Hashable, CaseIterable {
        /// The timer ran to zero while the daemon ran.
        case finished
        /// The timer's end passed while no daemon ran; it was finished at the next start. For a
        /// recurring timer: a catch-up for elapses that passed while timerd could not ring them.
        case missed
        /// A recurring timer (`--on`, `--every`) reached one of its elapses on time.
        case elapsed
        /// A ringing timer (`--ring`) rang again after its first ring (only the notification is shown
        /// and the sound played again; the command ran at the first ring, trigger `finished`).
        case ringing
        /// An alarm's warning (`--warn`) came (only the notification is shown; no command runs).
        case warning
    }

    /// Creates an action.
    ///
    /// - Parameters:
    ///   - command: a command for `/bin/sh -c`, or `nil`.
    ///   - notify: whether to show a desktop notification.
    ///   - workingDirectory: an absolute directory.
    ///   - environment: the captured variables (sorted here by name).
    ///   - runs: the runs so far (none for a new timer).
    ///   - sound: the absolute path of a sound file to play, or `nil` (the default).
    public init(
        command: String?, notify: Bool, workingDirectory: String, environment: [Variable], runs: [ActionRun] = [],
        sound: String? = nil
    ) {
        self.command = command
        self.notify = notify
        self.sound = sound
        self.workingDirectory = workingDirectory
        self.environment = environment.sorted { $0.name < $1.name }
        self.runs = runs
    }

    /// The kinds this action does, in the order they start: `exec`, `notify`, then `sound`.
    public var kinds: [Kind] {
        (command == nil ? [] : [.exec]) + (notify ? [.notify] : []) + (sound == nil ? [] : [.sound])
    }

    /// The value of the captured variable `name`, if any.
    ///
    /// - Complexity: O(v) for v variables.
    public func value(of name: String) -> String? {
        environment.first { $0.name == name }?.value
    }
}

/// One run of an action: when it started, why, and how it ended.
public struct ActionRun: Sendable, Hashable {
    /// What ran.
    public var kind: TimerAction.Kind
    /// The event it followed.
    public var trigger: TimerAction.Trigger
    /// When the run was recorded as started, on the wall clock (just before the process starts).
    public var startedAt: Date
    /// When it ended, on the wall clock; `nil` while running or when interrupted.
    public var endedAt: Date?
    /// How it ended so far.
    public var outcome: Outcome

    /// How a run ended.
    public enum Outcome: Sendable, Hashable {
        /// Recorded as started; no result yet.
        case running
        /// The process exited with this status (0–255).
        case exited(Int32)
        /// The process was killed by this signal (not by the time-out).
        case signalled(Int32)
        /// It ran past the daemon's action time-out and its process group was killed.
        case timedOut
        /// The process could not be started: the `errno` of `posix_spawn` (`ENOENT` also when the
        /// program is missing, e.g. no `notify-send` in the captured `PATH`).
        case failedToStart(Int32)
        /// The daemon stopped (crashed or was killed) while the run was recorded as started: it
        /// may or may not have run to its end, and is not run again (at most once; docs/actions.md).
        case interrupted

        /// The status the wire reports, as a shell does: the exit status; 128 + N for signal N;
        /// 124 for a time-out (as `timeout(1)`); 127 when it could not start (as `sh` for a missing
        /// command); `nil` while running or when interrupted.
        public var status: Int? {
            switch self {
            case .running, .interrupted: return nil
            case .exited(let code): return Int(code)
            case .signalled(let signal): return 128 + Int(signal)
            case .timedOut: return 124
            case .failedToStart: return 127
            }
        }

        /// The outcome's name on the wire and in the log: `running`, `exited`, `signalled`,
        /// `timed-out`, `failed-to-start` or `interrupted`.
        public var name: String {
            switch self {
            case .running: return "running"
            case .exited: return "exited"
            case .signalled: return "signalled"
            case .timedOut: return "timed-out"
            case .failedToStart: return "failed-to-start"
            case .interrupted: return "interrupted"
            }
        }
    }

    /// Creates a run.
    ///
    /// - Parameters:
    ///   - kind: what ran.
    ///   - trigger: the event it followed.
    ///   - startedAt: when it was recorded as started.
    ///   - endedAt: when it ended, if it has.
    ///   - outcome: how it ended so far.
    public init(
        kind: TimerAction.Kind, trigger: TimerAction.Trigger, startedAt: Date, endedAt: Date? = nil,
        outcome: Outcome = .running
    ) {
        self.kind = kind
        self.trigger = trigger
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
    }
}
