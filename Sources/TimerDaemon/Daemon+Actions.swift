import Countdown
import Foundation
import Glibc
import TimerModel
import TimerService
import TimerSystem

/// One on-finish action run to start: from the engine (``TimerEngine/DueAction``), or from a
/// completion of shared mode (``SharedHost``), which adds the fence and the idempotency key.
struct ActionLaunch {
    var timerID: UInt64
    var name: String?
    var duration: Double
    var kind: TimerAction.Kind
    var trigger: TimerAction.Trigger
    var action: TimerAction
    /// Variables added to the run's environment (`TIMER_IDEMPOTENCY_KEY=ID:FENCE` in shared mode).
    var extraEnvironment: [String] = []
    /// The fence of the shared-mode completion that ran it (``SharedBackend``), or `nil`.
    var fence: Int64?
    /// The fence of the shared-mode firing that gave this host the run, kept with its run record
    /// (`timer.runs`) also when its start is not recorded in the timer's row (``fence`` `nil`).
    var firingFence: Int64?
    /// The timer's alarm when the run became due (``TimerEngine/DueAction/alarm``), or `nil`.
    var alarm: TimerAlarm?
    /// The timer's step count (``TimerEngine/DueAction/stepCount``).
    var stepCount = 1

    init(_ due: TimerEngine.DueAction) {
        self.init(
            timerID: due.timerID, name: due.name, duration: due.duration, kind: due.kind, trigger: due.trigger,
            action: due.action)
        alarm = due.alarm
        stepCount = due.stepCount
    }

    init(
        timerID: UInt64, name: String?, duration: Double, kind: TimerAction.Kind, trigger: TimerAction.Trigger,
        action: TimerAction, extraEnvironment: [String] = [], fence: Int64? = nil
    ) {
        self.timerID = timerID
        self.name = name
        self.duration = duration
        self.kind = kind
        self.trigger = trigger
        self.action = action
        self.extraEnvironment = extraEnvironment
        self.fence = fence
    }
}

/// One on-finish action process the daemon watches: its pidfd and output pipe are in epoll.
final class RunningAction {
    /// The process (its own process group).
    let child: ChildProcess
    /// The run it is, whose outcome goes back to the backend.
    let launch: ActionLaunch
    /// `timer 3 ("tea") exec` for log lines.
    let label: String
    /// The epoll tokens of the pidfd and of the output pipe.
    let exitToken: UInt64
    let outputToken: UInt64
    /// When it started and when it times out, on the boot-time clock (ns).
    let startedAt: Int64
    let deadline: Int64
    /// When `SIGTERM` went to its group after the time-out; `SIGKILL` follows 2 s later.
    var terminatedAt: Int64?
    /// Output bytes and lines logged so far (at most ``Daemon/actionOutputLimit`` and
    /// ``Daemon/actionOutputLineLimit``), whether either limit is reached (the rest is read and
    /// dropped), and an unfinished line.
    var loggedBytes = 0
    var loggedLines = 0
    var isOutputCapped = false
    var partialLine: [UInt8] = []
    /// The first ``Daemon/actionOutputLimit`` output bytes, for `timer.runs` (Daemon+ActionOutput.swift).
    var captured = CapturedOutput()

    init(
        child: ChildProcess, due: ActionLaunch, label: String, tokens: (UInt64, UInt64), now: Int64,
        timeout: Int64
    ) {
        self.child = child
        launch = due
        self.label = label
        (exitToken, outputToken) = tokens
        startedAt = now
        deadline = now + timeout
    }
}

/// The action runner: on-finish actions (`timerctl start --exec CMD --notify`) of either backend,
/// started once the backend has made their `running` record durable
/// (``TimerBackend/takeStartableActions()``; at most once on one host, docs/actions.md), reaped
/// through a pidfd in epoll, their output logged line by line, stopped after `--action-timeout`,
/// their outcome handed back to the backend.
extension Daemon {
    /// The most output bytes of one run that go to the log; the rest is read and dropped.
    static let actionOutputLimit = 65_536
    /// The most output lines of one run that go to the log (a line of one byte costs a whole log
    /// line); the rest is read and dropped.
    static let actionOutputLineLimit = 200
    /// Seconds between `SIGTERM` and `SIGKILL` for an action past its time-out.
    static let actionKillGraceNanoseconds: Int64 = 2_000_000_000

    /// Starts every run whose `running` record is now durable, and tells the backend they started.
    func startCommittedActions() {
        let launches = backend.takeStartableActions()
        guard !launches.isEmpty else { return }
        for launch in launches { startAction(launch) }
        backend.actionsStarted(launches)
    }

    /// The `notify-send` command line of a notify run: `Timer tea finished` (`… ended while timerd
    /// was not running` when missed); for an alarm that rings, `Timer tea is ringing` (`, ring 2`
    /// from the second ring on) at critical urgency with the commands that answer it; for a
    /// warning, `Timer tea ends in 5m` (`Timer tea step 1 of 2 ends in 5m` with `--warn-each`).
    ///
    /// - Parameter due: the run.
    /// - Returns: the arguments, `notify-send` first.
    static func notifyArguments(_ due: ActionLaunch) -> [String] {
        let timer = "Timer \(due.name ?? String(due.timerID))"
        let length = DurationFormatter.compact(seconds: due.duration)
        if due.trigger == .warning, let alarm = due.alarm, let warning = alarm.warning {
            // With --warn-each the warned step is the last one counted (warnedSteps after it).
            let step = alarm.warnsEachStep ? " step \(alarm.warnedSteps) of \(due.stepCount)" : ""
            return [
                "notify-send", "--app-name=timerd",
                "\(timer)\(step) ends in \(DurationFormatter.compact(seconds: warning))",
                "\(length) timer (timerctl status \(due.timerID))",
            ]
        }
        if due.alarm?.ring != nil, [.finished, .missed, .ringing].contains(due.trigger) {
            let ring = (due.alarm?.ringCount ?? 1) > 1 ? ", ring \(due.alarm?.ringCount ?? 1)" : ""
            return [
                "notify-send", "--app-name=timerd", "--urgency=critical", "\(timer) is ringing\(ring)",
                "\(length) timer: timerctl ack \(due.timerID), or timerctl snooze \(due.timerID)",
            ]
        }
        let what = due.trigger == .missed ? "ended while timerd was not running" : "finished"
        return [
            "notify-send", "--app-name=timerd", "\(timer) \(what)", "\(length) timer (timerctl status \(due.timerID))",
        ]
    }

    func startAction(_ due: ActionLaunch) {
        let name = due.name.map { " (\"\($0)\")" } ?? ""
        let label = "timer \(due.timerID)\(name) \(due.kind.rawValue)"
        var environment = due.action.environment.map { "\($0.name)=\($0.value)" }
        let searchPath = due.action.value(of: "PATH") ?? ActionEnvironment.fallbackPath
        if due.action.value(of: "PATH") == nil { environment.append("PATH=\(searchPath)") }
        environment +=
            [
                "TIMER_ID=\(due.timerID)", "TIMER_NAME=\(due.name ?? "")", "TIMER_EVENT=\(due.trigger.rawValue)",
                "TIMER_DURATION=\(DurationFormatter.number(due.duration))",
            ] + due.extraEnvironment
        let executable: String
        let arguments: [String]
        switch due.kind {
        case .exec:
            executable = "/bin/sh"
            arguments = ["sh", "-c", due.action.command ?? "true"]
        case .notify:
            guard let program = ActionEnvironment.locate("notify-send", in: searchPath, isExecutable: Self.isExecutable)
            else {
                log("warning: \(label): no notify-send in the timer's PATH (\(searchPath)); no desktop notification")
                finishAction(due, label: label, outcome: .failedToStart(ENOENT))
                return
            }
            executable = program
            arguments = Self.notifyArguments(due)
        case .sound:
            switch soundCommand(due, searchPath: searchPath) {
            case .success(let command): (executable, arguments) = command
            case .failure(let problem):
                log("warning: \(label): \(problem.text)")
                finishAction(due, label: label, outcome: .failedToStart(problem.code))
                return
            }
        }
        // The directory is checked here, so that the log names it: a failed chdir inside the
        // spawn would be reported against the program (`/bin/sh`).
        if let problem = Self.directoryProblem(due.action.workingDirectory) {
            log("error: \(label) could not start: working directory \(due.action.workingDirectory): \(problem.text)")
            finishAction(due, label: label, outcome: .failedToStart(problem.code))
            return
        }
        let now = Syscall.bootTimeNanoseconds()
        do {
            let child = try ChildProcess.spawn(
                executable: executable, arguments: arguments, environment: environment,
                workingDirectory: due.action.workingDirectory)
            let tokens = (nextToken, nextToken + 1)
            nextToken += 2
            let running = RunningAction(
                child: child, due: due, label: label, tokens: tokens, now: now,
                timeout: Int64(options.actionTimeoutSeconds * 1e9))
            try epoll.add(child.exitDescriptor, interest: .readable, token: running.exitToken)
            if let output = child.outputDescriptor {
                try epoll.add(rawDescriptor: output, interest: .readable, token: running.outputToken)
            }
            runningActions[running.exitToken] = running
            actionOutputTokens[running.outputToken] = running.exitToken
            log("\(label) started (pid \(child.pid), \(due.trigger.rawValue))")
        } catch {
            log("error: \(label) could not start: \(error)")
            let code = error.errno.rawValue
            finishAction(due, label: label, outcome: .failedToStart(code))
        }
    }

    /// Whether an epoll token belongs to an action; handles it if so.
    func handleActionEvent(_ token: UInt64) -> Bool {
        if let exitToken = actionOutputTokens[token], let running = runningActions[exitToken] {
            readActionOutput(running)
            return true
        }
        guard let running = runningActions[token] else { return false }
        guard let termination = running.child.reap() else { return true }
        readActionOutput(running)
        if !running.partialLine.isEmpty { logActionLine(running, running.partialLine) }
        running.child.closeOutput()  // closing takes it out of epoll (no other process holds the read end)
        epoll.remove(running.child.exitDescriptor)
        runningActions[token] = nil
        actionOutputTokens[running.outputToken] = nil
        let outcome: ActionRun.Outcome
        if running.terminatedAt != nil {
            outcome = .timedOut
        } else {
            switch termination {
            case .exited(let status): outcome = .exited(status)
            case .signalled(let signal): outcome = .signalled(signal)
            }
        }
        backend.keepActionOutput(running.launch, output: running.captured)
        let seconds = Double(Syscall.bootTimeNanoseconds() - running.startedAt) / 1e9
        log("\(running.label) \(Self.describe(outcome)) after \(String(format: "%.3f", seconds)) s")
        finishAction(running.launch, label: running.label, outcome: outcome)
        return true
    }

    /// Hands a run's outcome to the backend; its `action` event goes to subscribers after this
    /// turn's commit.
    private func finishAction(_ launch: ActionLaunch, label: String, outcome: ActionRun.Outcome) {
        metrics.recordAction(launch.kind, outcome)
        let (recorded, wakeups) = backend.recordActionOutcome(launch, outcome: outcome)
        if !recorded { log("\(label): the timer is no longer kept, its result is not recorded") }
        for wakeup in wakeups { deliver(wakeup) }
    }

    /// Reads at most 4 × 64 KiB of the action's output this turn (epoll reports the rest on the
    /// next turn), so that a command that writes without end (`yes`) cannot hold the loop.
    private func readActionOutput(_ running: RunningAction) {
        for _ in 0..<4 {
            guard let bytes = running.child.readOutput(&readBuffer) else { return }  // end: pipe closed
            if bytes.isEmpty { return }
            running.captured.append(bytes)
            // Past the limit the bytes are only read and dropped: no line splitting for them.
            if running.isOutputCapped { continue }
            var start = bytes.startIndex
            while let newline = bytes[start...].firstIndex(of: 10) {
                logActionLine(running, running.partialLine + bytes[start..<newline])
                running.partialLine.removeAll()
                start = newline + 1
            }
            running.partialLine += bytes[start...]
            if running.partialLine.count > 4_096 {
                logActionLine(running, running.partialLine)
                running.partialLine.removeAll()
            }
        }
    }

    private func logActionLine(_ running: RunningAction, _ line: [UInt8]) {
        guard !running.isOutputCapped else { return }
        running.loggedBytes += line.count + 1
        running.loggedLines += 1
        if running.loggedBytes <= Self.actionOutputLimit, running.loggedLines <= Self.actionOutputLineLimit {
            log("\(running.label) output: \(Self.escapedOutput(line))")
        } else {
            running.isOutputCapped = true
            log(
                "\(running.label) output: more than \(Self.actionOutputLimit) bytes or \(Self.actionOutputLineLimit) "
                    + "lines; the rest is not logged")
        }
    }

    /// One line of an action's output as the log shows it: UTF-8 (an invalid sequence becomes
    /// U+FFFD), with every control character escaped so that a `cat` of the log cannot move the
    /// cursor, clear the screen or overwrite a line: `\t`, `\r`, `\x1b` (any other C0 or C1
    /// control and DEL as `\xNN`), and a backslash as `\\`, so that the escapes read back unambiguously.
    ///
    /// - Parameter line: the output's bytes, without the newline.
    /// - Returns: the text to log.
    /// - Complexity: O(n) in the line's bytes.
    static func escapedOutput(_ line: [UInt8]) -> String {
        let text = String(decoding: line, as: UTF8.self)
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\\" })
        else { return text }
        let hex = Array("0123456789abcdef".unicodeScalars)
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: escaped.append(contentsOf: #"\\"#.unicodeScalars)
            case 0x09: escaped.append(contentsOf: #"\t"#.unicodeScalars)
            case 0x0D: escaped.append(contentsOf: #"\r"#.unicodeScalars)
            case 0..<0x20, 0x7F...0x9F:
                escaped.append(contentsOf: #"\x"#.unicodeScalars)
                escaped.append(hex[Int(scalar.value >> 4)])
                escaped.append(hex[Int(scalar.value & 0xF)])
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// Signals the actions past their time-out: `SIGTERM` to the group, then `SIGKILL` 2 s later.
    func enforceActionTimeouts() {
        guard !runningActions.isEmpty else { return }
        let now = Syscall.bootTimeNanoseconds()
        for running in runningActions.values {
            if let terminatedAt = running.terminatedAt {
                if now >= terminatedAt + Self.actionKillGraceNanoseconds { running.child.signalGroup(SIGKILL) }
            } else if now >= running.deadline {
                log(
                    "\(running.label) ran past the \(DurationFormatter.number(options.actionTimeoutSeconds)) s "
                        + "action time-out: SIGTERM to its process group")
                running.child.signalGroup(SIGTERM)
                running.terminatedAt = now
            }
        }
    }

    /// The boot-time instant (ns) of the next action time-out step, or `nil`.
    func nextActionDeadline() -> Int64? {
        runningActions.values.map { $0.terminatedAt.map { $0 + Self.actionKillGraceNanoseconds } ?? $0.deadline }.min()
    }

    static func describe(_ outcome: ActionRun.Outcome) -> String {
        switch outcome {
        case .running: return "is running"
        case .exited(let status): return "exited with status \(status)"
        case .signalled(let signal): return "was killed by signal \(signal)"
        case .timedOut: return "timed out (status 124)"
        case .failedToStart(let code): return "could not start (\(SystemError("spawn", errno: code).errno))"
        case .interrupted: return "was interrupted"
        }
    }

    /// Why `path` cannot be an action's working directory (it is missing, not a directory, or
    /// not searchable by this process), or `nil` when it can.
    ///
    /// - Parameter path: an absolute path.
    /// - Returns: the errno and its text (`No such file or directory`, `Not a directory`, …).
    static func directoryProblem(_ path: String) -> (code: Int32, text: String)? {
        var info = stat()
        let code: Int32
        if stat(path, &info) != 0 {
            code = errno
        } else if info.st_mode & S_IFMT != S_IFDIR {
            code = ENOTDIR
        } else if access(path, X_OK) != 0 {
            code = errno
        } else {
            return nil
        }
        return (code, String(cString: strerror(code)))
    }

    /// Whether `path` is an executable regular file for this process (stat(2) and access(2)).
    static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return access(path, X_OK) == 0
    }
}
