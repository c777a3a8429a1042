import CommandLineTable
import FoundationEssentials
import Glibc
import TimerClient
import TimerModel
import TimerProtocol
import TimerSystem

/// Where `timerctl` writes: stdout for data, stderr for messages and progress bars.
public protocol ControlOutput {
    /// Writes to standard output.
    mutating func out(_ text: String)
    /// Writes to standard error.
    mutating func err(_ text: String)
    /// Whether standard output is a terminal that wants colour (not when piped, `NO_COLOR` or `TERM=dumb`).
    var stdoutIsColorTerminal: Bool { get }
    /// Whether standard error is a terminal, so a live progress bar may be redrawn there.
    var stderrIsTerminal: Bool { get }
    /// Whether standard output is a terminal (colour or not): where `wait --bell/--message` go.
    var stdoutIsTerminal: Bool { get }
}

extension ControlOutput {
    /// By default the same as ``stdoutIsColorTerminal``.
    public var stdoutIsTerminal: Bool { stdoutIsColorTerminal }
}

/// The process's real standard streams.
public struct StandardOutput: ControlOutput {
    /// Creates the real streams.
    public init() {}

    /// Writes to fd 1.
    public mutating func out(_ text: String) { StandardStream.out(text) }
    /// Writes to fd 2.
    public mutating func err(_ text: String) { StandardStream.error(text) }

    /// `isatty(1)`, and neither `NO_COLOR` nor `TERM=dumb` (see no-color.org and clig.dev).
    public var stdoutIsColorTerminal: Bool {
        isatty(1) == 1 && ProcessEnvironment.value("NO_COLOR") == nil && ProcessEnvironment.value("TERM") != "dumb"
    }

    /// `isatty(1)`.
    public var stdoutIsTerminal: Bool { isatty(1) == 1 }

    /// `isatty(2)` and not `TERM=dumb`.
    public var stderrIsTerminal: Bool { isatty(2) == 1 && ProcessEnvironment.value("TERM") != "dumb" }
}

/// `timerctl`'s entry point: parse, run, and map every error to its stream, text and exit status.
public enum ControlCommand {
    /// Runs `timerctl` with `arguments` (without the program name).
    ///
    /// - Returns: the exit status (see ``ControlError/exitStatus``; `wait` returns 1 for a stopped timer).
    public static func run(_ arguments: [String], output: inout some ControlOutput) -> Int32 {
        var verb: Verb?
        do throws(ControlError) {
            var options = try ControlOptions.parse(arguments)
            verb = options.verb
            if options.version {
                output.out("timerctl \(ServiceVersion.version) (protocol \(ServiceVersion.protocolVersion))\n")
                return 0
            }
            if options.help || options.verb == .help {
                if options.verb == .help, let topic = options.arguments.first {
                    guard let verb = Verb(rawValue: topic) else {
                        throw ControlError.usage("unknown command '\(topic)'", verb: .help)
                    }
                    output.out(HelpText.forVerb(verb))
                } else {
                    output.out(options.verb.map { $0 == .help ? HelpText.main : HelpText.forVerb($0) } ?? HelpText.main)
                }
                return 0
            }
            // `pick` and `start --pick`/`--at -` run the separate picker executable (PickerLauncher).
            if options.verb == .pick { return PickerLauncher.pick(options, output: &output) }
            // `calendar` runs in the same executable, which has the time-zone data (PickerLauncher.calendar).
            if options.verb == .calendar { return PickerLauncher.calendar(options, output: &output) }
            if options.verb == .start, options.pick || options.at == "-" {
                options.pick = true
                options.at = nil
                switch PickerLauncher.pickEndTime(options, output: &output) {
                case .success(let picked): options = picked
                case .failure(let exit): return exit.status
                }
            }
            return try execute(options, output: &output)
        } catch {
            let error = error.asUsage(verb: verb).namingCommand(verb)
            report(error, output: &output)
            return error.exitStatus
        }
    }

    /// Writes `error` to stderr: `Error: …`, and for a usage error one more line pointing to the
    /// help that applies (`See 'timerctl start --help'.`), not the synopsis (clig.dev: errors short).
    static func report(_ error: ControlError, output: inout some ControlOutput) {
        output.err("Error: \(error)\n")
        if case .usage(_, let verb) = error {
            output.err(verb.map { "See 'timerctl \($0.rawValue) --help'.\n" } ?? "See 'timerctl --help'.\n")
        }
    }

    private static func execute(_ options: ControlOptions, output: inout some ControlOutput) throws(ControlError)
        -> Int32
    {
        guard let verb = options.verb else { throw .usage("no command given", verb: nil) }
        if verb == .completion {
            let name = options.arguments[0]
            guard let shell = CompletionShell(rawValue: name) else {
                throw .usage("unknown shell '\(name)' (bash, zsh or fish)", verb: verb)
            }
            output.out(
                CommandTable.timerctl.completionScript(for: shell, timerLister: CommandTable.completionTimerLister))
            return 0
        }
        if verb == .completeTimers { return completeTimers(options, output: &output) }
        // Check everything local before connecting, so a typo never starts a daemon.
        var durations: [Double] = []
        var deadline: AbsoluteTime?
        if verb == .start, let at = options.at {
            deadline = try AbsoluteTime.parse(at, minuteInterval: options.minuteInterval)
            if let warning = deadline?.zoneWarning { output.err("timerctl: warning: \(warning)\n") }
        }
        var recurring: RecurringStart?
        if verb == .start, options.on != nil || options.every != nil {
            recurring = try RecurringStart.make(options)
        }
        if verb == .start {
            do throws(CountdownError) {
                durations = try options.arguments.map { text throws(CountdownError) in
                    try DurationParser.seconds(from: text)
                }
                if let name = options.name, !TimerName.isValid(name) { throw .invalidName(name) }
                if durations.count > TimerLimits.maximumGroupSize { throw .groupSizeOutOfRange(durations.count) }
            } catch {
                throw .usage(error.description, verb: verb)
            }
        }
        let action =
            verb == .start && (options.exec != nil || options.notify || options.sound)
            ? ActionRequest.make(
                options, environment: ProcessEnvironment.current(),
                workingDirectory: try ActionRequest.currentDirectory())
            : nil
        let edit = try EditRequest(verb, options)
        let sound: AlarmRequest.Sound? =
            !options.sound
            ? nil
            : try options.soundFile.map { file throws(ControlError) in
                .file(file.hasPrefix("/") ? file : try ActionRequest.currentDirectory() + "/" + file)
            } ?? .standard
        let alarmRequest =
            options.ring || options.warn != nil || sound != nil
            ? AlarmRequest(rings: options.ring, warning: options.warn, warnsEachStep: options.warnEach, sound: sound)
            : nil
        if verb == .watch { try Watch.checkTerminal() }
        let barFeed =
            verb == .bar
            ? BarFeed(
                style: options.barStyle ?? .plain,
                template: try BarTemplate(parsing: options.format ?? BarTemplate.standard),
                idleText: options.idle ?? "", target: options.arguments.first) : nil
        if [.stop, .pause, .resume, .wait, .status, .events, .bar, .logs].contains(verb),
            let target = options.arguments.first
        {
            do {
                _ = try TimerReference(parsing: target)
            } catch {
                throw .usage(error.description, verb: verb)
            }
        }
        if verb == .bar && !Bar.hasStandardOutput { return 0 }
        if verb == .notifier { return try runNotifier(socketPath: options.socketPath, output: &output) }
        let client = try ControlClient.connect(
            explicitPath: options.socketPath,
            autostart: options.socketPath == nil && !options.noAutostart && verb != .reload && verb != .stats)
        switch verb {
        case .start:
            var startWarning: String?
            if var recurring {
                recurring.action = action?.action
                recurring.wake = options.wake
                let timer = try client.call(.startRecurring(recurring), as: TimerInfo.self)
                if options.json {
                    output.out(try json(timer))
                } else {
                    output.out(StatusTable.recurringConfirmation(timer))
                }
            } else if let deadline {
                let request = TimerRequest.startAt(
                    at: deadline.text, timeZone: deadline.timeZone, minuteInterval: deadline.minuteInterval,
                    name: options.name, action: action?.action, wake: options.wake, alarm: alarmRequest)
                let timer = try client.call(request, as: TimerInfo.self)
                startWarning = timer.warning
                if options.json {
                    output.out(try json(timer))
                } else {
                    output.out(deadline.confirmation(for: timer))
                }
            } else {
                let request = TimerRequest.start(
                    durations: durations, name: options.name, action: action?.action, isHeartbeat: options.heartbeat,
                    loops: options.loops, wake: options.wake, alarm: alarmRequest)
                let timer = try client.call(request, as: TimerInfo.self)
                startWarning = timer.warning
                try emit(timer, verb: verb, options: options, output: &output)
            }
            if let warning = action?.notifyWarning(isExecutable: { access($0, X_OK) == 0 }) { output.err(warning) }
            if let warning = startWarning { output.err("Warning: --sound: \(warning)\n") }
        case .stop, .pause, .resume:
            let target = options.arguments[0]
            let request: TimerRequest =
                verb == .stop ? .stop(target) : verb == .pause ? .pause(target) : .resume(target)
            let timer = try client.call(request, as: TimerInfo.self)
            try emit(timer, verb: verb, options: options, output: &output)
        case .status:
            let timers: [TimerInfo]
            if let target = options.arguments.first {
                timers = [try client.call(.status(target), as: TimerInfo.self)]
            } else {
                timers = try client.call(.list(includingEnded: options.all), as: [TimerInfo].self)
            }
            if options.json {
                output.out(try json(timers))
            } else if timers.isEmpty {
                output.out(options.all ? "no timers\n" : "no live timers (timerctl status --all shows ended ones)\n")
            } else {
                output.out(StatusTable.render(timers, color: output.stdoutIsColorTerminal))
            }
        case .wait:
            let timer = try wait(client, target: options.arguments[0], output: &output)
            try emit(timer, verb: verb, options: options, output: &output)
            output.out(
                FinishAnnouncement.text(
                    state: timer.state, bell: options.bell, message: options.message,
                    isTerminal: output.stdoutIsTerminal))
            return timer.state == .finished ? 0 : 1
        case .logs:
            let result = try client.call(
                .runs(options.arguments[0]), as: ActionRunsResult.self)
            output.out(options.json ? try json(result) : RunsText.render(result))
        case .events:
            return try followEvents(client, target: options.arguments.first, json: options.json, output: &output)
        case .ping:
            let result = try client.call(.ping, as: PingResult.self)
            if options.json {
                output.out(try json(result))
            } else {
                output.out(
                    "timerd \(result.version) (protocol \(result.protocolVersion), pid \(result.pid)) on \(client.socketPath)\n"
                )
                // Where the timers are kept, and the host's name in a shared store.
                if let store = result.store { output.out("store: \(store)\n") }
                if let hostID = result.hostID { output.out("host: \(hostID)\n") }
            }
        case .reload:
            let result = try client.call(.reload, as: ReloadResult.self)
            if options.json {
                output.out(try json(result))
            } else if let path = result.config, result.found {
                output.out("timerd reloaded \(path)\n")
            } else {
                output.out("timerd reloaded: \(result.config.map { "no \($0), " } ?? "")defaults in force\n")
            }
        case .stats:
            if options.prometheus {
                let result = try client.call(.metrics, as: MetricsResult.self)
                output.out(options.json ? try json(result) : result.text)
            } else {
                let result = try client.call(.stats, as: StatsResult.self)
                output.out(options.json ? try json(result) : Self.statsText(result))
            }
        case .extend, .restart, .rename, .skip, .beat, .remove, .ack, .snooze:
            if let edit { try edit.run(on: client, options: options, output: &output) }
        case .watch:
            return try Watch.run(client, output: &output)
        case .bar:
            if let barFeed { return try Bar.run(client, feed: barFeed, socketPath: options.socketPath) }
        case .help, .completion, .completeTimers, .pick, .calendar, .notifier:
            output.out(HelpText.main)
        }
        return 0
    }

    /// `__complete-timers`: the ids and names of live timers, one per line, for a completion
    /// script. Quiet by design: it never starts a daemon, waits 500 ms at most for the answer, and
    /// prints nothing (exit 1) when no daemon answers or the answer is bad.
    private static func completeTimers(_ options: ControlOptions, output: inout some ControlOutput) -> Int32 {
        do throws(ControlError) {
            let client = try ControlClient.connect(explicitPath: options.socketPath, autostart: false)
            let timers = try client.call(
                .list(includingEnded: false), as: [TimerInfo].self, timeoutMilliseconds: 500)
            output.out(timers.flatMap { [$0.id] + ($0.name.map { [$0] } ?? []) }.map { $0 + "\n" }.joined())
            return 0
        } catch {
            return 1
        }
    }

    static func emit(_ timer: TimerInfo, verb: Verb, options: ControlOptions, output: inout some ControlOutput)
        throws(ControlError)
    {
        if options.json {
            output.out(try json(timer))
        } else {
            output.out(StatusTable.confirmation(verb, timer))
        }
    }

    /// Pretty-printed JSON with sorted keys, newline-terminated: the documented `--json` output,
    /// byte for byte what `JSONEncoder` with `.prettyPrinted`, `.sortedKeys` and
    /// `.withoutEscapingSlashes` printed (written by the product's one JSON writer).
    static func json(_ value: some JSONWritable) throws(ControlError) -> String {
        var writer = JSONBytesWriter()
        do {
            try value.write(to: &writer)
        } catch {
            throw .protocolError("cannot encode output: a figure is not a finite number")
        }
        return String(decoding: JSONBytesWriter.prettyPrinted(writer.bytes), as: UTF8.self) + "\n"
    }
}
