import Testing
import TimerModel
import TimerProtocol

@testable import TimerControl

/// Collects what timerctl writes, for in-process tests.
struct CapturedOutput: ControlOutput {
    var stdout = ""
    var stderr = ""
    var stdoutIsColorTerminal = false
    var stderrIsTerminal = false
    mutating func out(_ text: String) { stdout += text }
    mutating func err(_ text: String) { stderr += text }
}

/// The CLI's user-visible text, pinned exactly: help, version, every usage error and its exit code.
/// None of these reach a daemon: they are decided before any connection.
@Suite("timerctl command line")
struct ControlCommandTests {
    private func run(_ arguments: [String]) -> (status: Int32, output: CapturedOutput) {
        var output = CapturedOutput()
        let status = ControlCommand.run(arguments, output: &output)
        return (status, output)
    }

    @Test("--help prints the main help on stdout and exits 0")
    func mainHelp() {
        let result = run(["--help"])
        #expect(result.status == 0)
        #expect(result.output.stdout == HelpText.main)
        #expect(result.output.stderr.isEmpty)
        #expect(
            result.output.stdout.hasPrefix("Usage: timerctl [--socket PATH] [--json] [--no-autostart] COMMAND [ARGS]\n")
        )
        #expect(run(["-h"]).output.stdout == HelpText.main)
        #expect(run(["help"]).output.stdout == HelpText.main)
    }

    @Test("every command has --help, before or after the verb", arguments: Verb.allCases)
    func verbHelp(_ verb: Verb) {
        let after = run([verb.rawValue, "--help"])
        #expect(after.status == 0)
        #expect(after.output.stdout == (verb == .help ? HelpText.main : HelpText.forVerb(verb)))
        #expect(after.output.stdout.contains("Usage: timerctl \(verb.rawValue)") || verb == .help)
        if verb != .help {
            #expect(run(["--help", verb.rawValue]).output.stdout == HelpText.forVerb(verb))
            #expect(run(["help", verb.rawValue]).output.stdout == HelpText.forVerb(verb))
        }
    }

    @Test("--version")
    func version() {
        let result = run(["--version"])
        #expect(result.status == 0)
        #expect(result.output.stdout == "timerctl \(ServiceVersion.version) (protocol 1)\n")
    }

    struct UsageCase: Sendable, CustomStringConvertible {
        var arguments: [String]
        var stderr: String
        var description: String { arguments.joined(separator: " ") }
    }

    static let usageCases: [UsageCase] = [
        UsageCase(
            arguments: [],
            stderr: """
                Error: no command given
                See 'timerctl --help'.

                """),
        UsageCase(
            arguments: ["stauts"],
            stderr: """
                Error: unknown command 'stauts'. Did you mean 'status'?
                See 'timerctl --help'.

                """),
        UsageCase(
            arguments: ["strat", "5m"],
            stderr: """
                Error: unknown command 'strat'. Did you mean 'start'?
                See 'timerctl --help'.

                """),
        UsageCase(
            arguments: ["stauts"],
            stderr: """
                Error: unknown command 'stauts'. Did you mean 'status'?
                See 'timerctl --help'.

                """),
        UsageCase(
            arguments: ["start", "5m", "--name", "tea", "--name", "tea2"],
            stderr: """
                Error: option '--name' given twice
                See 'timerctl start --help'.

                """),
        UsageCase(
            arguments: ["start"],
            stderr: """
                Error: 'start' needs at least one DURATION, or --at TIME
                See 'timerctl start --help'.

                """),
        UsageCase(
            arguments: ["start", "5x"],
            stderr: """
                Error: invalid duration "5x": use a number with units (90s, 25m, 1h30m, 1.5h, "1h 30min"), \
                H:MM[:SS] (01:30:00) or ISO 8601 (PT1H30M)
                See 'timerctl start --help'.

                """),
        UsageCase(
            arguments: ["start", "-5m"],
            stderr: """
                Error: duration must be > 0 and ≤ 366 days, got "-5m"
                See 'timerctl start --help'.

                """),
        UsageCase(
            arguments: ["start", "367d"],
            stderr: """
                Error: duration must be > 0 and ≤ 366 days, got "367d"
                See 'timerctl start --help'.

                """),
        UsageCase(
            arguments: ["start", "5m", "--name", "-tea"],
            stderr: """
                Error: invalid timer name "-tea": names may not start with '-' (a command line would read it as \
                an option); a name is 1 to 64 printable characters in any script (spaces only inside), not \
                starting with '-', and not all digits (an id) or digits.digits (a group step)
                See 'timerctl start --help'.

                """),
        UsageCase(
            arguments: ["start", "5m", "--name"],
            stderr: """
                Error: option '--name' needs a value
                See 'timerctl start --help'.

                """),
        UsageCase(
            arguments: ["stop"],
            stderr: """
                Error: 'stop' takes exactly one ID or NAME
                See 'timerctl stop --help'.

                """),
        UsageCase(
            arguments: ["wait", "a", "b"],
            stderr: """
                Error: 'wait' takes exactly one ID or NAME
                See 'timerctl wait --help'.

                """),
        UsageCase(
            arguments: ["pause", "tea "],
            stderr: """
                Error: invalid timer name "tea ": no space at the start or the end; a name is 1 to 64 printable \
                characters in any script (spaces only inside), not starting with '-', and not all digits (an id) \
                or digits.digits (a group step)
                See 'timerctl pause --help'.

                """),
        UsageCase(
            arguments: ["stop", "tea", "--name", "x"],
            stderr: """
                Error: unknown option '--name' for 'stop'
                See 'timerctl stop --help'.

                """),
        UsageCase(
            arguments: ["status", "--all", "tea"],
            stderr: """
                Error: 'status --all' lists every timer; give either --all or an ID or NAME
                See 'timerctl status --help'.

                """),
        UsageCase(
            arguments: ["ping", "--frobnicate"],
            stderr: """
                Error: unknown option '--frobnicate' for 'ping'
                See 'timerctl ping --help'.

                """),
        UsageCase(
            arguments: ["ping", "--json=yes"],
            stderr: """
                Error: option '--json' takes no value
                See 'timerctl ping --help'.

                """),
    ]

    @Test("usage errors: exit 64, message, usage line and help hint on stderr", arguments: usageCases)
    func usageErrors(_ usage: UsageCase) {
        let result = run(usage.arguments)
        #expect(result.status == 64)
        #expect(result.output.stdout.isEmpty)
        #expect(result.output.stderr == usage.stderr)
    }

    @Test("global options are accepted before or after the verb")
    func globalOptionsAnywhere() throws {
        let before = try ControlOptions.parse(["--json", "--socket", "/tmp/x.sock", "status", "tea"])
        let after = try ControlOptions.parse(["status", "tea", "--socket=/tmp/x.sock", "--json"])
        #expect(before == after)
        #expect(before.verb == .status)
        #expect(before.arguments == ["tea"])
        #expect(before.socketPath == "/tmp/x.sock")
        #expect(before.json)
        let start = try ControlOptions.parse(["--no-autostart", "start", "25m", "5m", "--name", "pomodoro"])
        #expect(start.arguments == ["25m", "5m"])
        #expect(start.name == "pomodoro")
        #expect(start.noAutostart)
        // `--` ends the options: what follows is an argument even if it starts with a dash.
        #expect(try ControlOptions.parse(["stop", "--", "-x"]).arguments == ["-x"])
    }

    @Test("exit statuses follow sysexits.h")
    func exitStatuses() {
        #expect(ControlError.usage("x", verb: nil).exitStatus == 64)
        #expect(ControlError.unavailable("x").exitStatus == 69)
        #expect(ControlError.failed(RPCError(.timerNotFound, "x")).exitStatus == 1)
        #expect(ControlError.protocolError("x").exitStatus == 76)
    }
}

@Suite("timerctl status table")
struct StatusTableTests {
    private func timer(
        id: String, name: String?, state: TimerState, duration: Double, remaining: Double, completed: Int64,
        children: [TimerInfo]? = nil, current: Int? = nil
    ) -> TimerInfo {
        let total = Int64(duration * 1_000)
        return TimerInfo(
            id: id, name: name, state: state, duration: duration, remaining: remaining,
            elapsed: duration - remaining,
            progress: ProgressSnapshot(
                totalUnitCount: total, completedUnitCount: completed,
                fractionCompleted: Double(completed) / Double(total), isIndeterminate: false,
                isFinished: completed == total, isCancelled: state == .stopped, isPaused: state == .paused),
            currentChild: current, children: children)
    }

    @Test("columns are aligned; a group shows its aggregate and the step that runs; no colour when piped")
    func table() {
        let children = [
            timer(id: "2.1", name: nil, state: .finished, duration: 1_500, remaining: 0, completed: 1_500_000),
            timer(id: "2.2", name: nil, state: .running, duration: 300, remaining: 150, completed: 150_000),
        ]
        let timers = [
            timer(id: "1", name: "tea", state: .running, duration: 1_500, remaining: 1_125.2, completed: 374_800),
            timer(
                id: "2", name: "pomodoro", state: .running, duration: 1_800, remaining: 150, completed: 1_650_000,
                children: children, current: 1),
            timer(id: "3", name: nil, state: .paused, duration: 60, remaining: 30, completed: 30_000),
        ]
        #expect(
            StatusTable.render(timers, color: false) == """
                ID  NAME      STATE    REMAINING  PROGRESS
                1   tea       running  0:18:46    [####----------------]  24%
                2   pomodoro  running  0:02:30    [##################--]  91%  step 2/2 (5m)
                3   -         paused   0:00:30    [##########----------]  50%

                """)
        #expect(StatusTable.render(timers, color: true).contains("\u{1B}[32mrunning\u{1B}[0m"))
    }

    @Test("columns are padded by display width: a wide (CJK) name and a combining mark keep later columns aligned")
    func wideNames() {
        // "お茶 休憩" is 4 wide characters (2 columns each) and a space: 9 columns, 5 characters.
        // "Cafe\u{301}" (é as e + U+0301 COMBINING ACUTE ACCENT) is 4 columns: the mark takes none
        // (DisplayWidth, as watch pads). NAME is then 9 columns wide, so STATE starts at column 15
        // on every line (ID 2 + 2 spaces, NAME 9 + 2 spaces).
        let timers = [
            timer(id: "1", name: "お茶 休憩", state: .running, duration: 1_500, remaining: 1_125.2, completed: 374_800),
            timer(id: "2", name: "Cafe\u{301}", state: .paused, duration: 60, remaining: 30, completed: 30_000),
        ]
        #expect(
            StatusTable.render(timers, color: false) == """
                ID  NAME       STATE    REMAINING  PROGRESS
                1   お茶 休憩  running  0:18:46    [####----------------]  24%
                2   Cafe\u{301}       paused   0:00:30    [##########----------]  50%

                """)
    }

    @Test(
        "bars and percentages at the edges",
        arguments: [
            (0.0, "[--------------------]", "  0%"), (0.049, "[--------------------]", "  4%"),
            (0.05, "[#-------------------]", "  5%"), (0.999, "[###################-]", " 99%"),
            (1.0, "[####################]", "100%"), (1.5, "[####################]", "100%"),
            (Double.nan, "[--------------------]", "  0%"),
        ])
    func bars(_ fraction: Double, _ bar: String, _ percent: String) {
        #expect(StatusTable.bar(fraction) == bar)
        #expect(StatusTable.percent(fraction) == percent)
    }
}

/// A daemon's `-32601` refusal of a method names the command the user typed, not the wire method
/// (the messages are `SharedHost`'s refusals in shared mode, as `timerd --shared` words them).
@Suite("Refused methods in the user's words")
struct RefusedMethodWordingTests {
    @Test("timer.runs … becomes timerctl logs …; other codes and verbless errors are unchanged")
    func namingCommand() {
        let refusal = RPCError(
            .methodNotFound,
            "timer.runs is not available in shared mode (timerd --shared); shared mode serves timer.list")
        #expect(
            ControlError.failed(refusal).namingCommand(.logs)
                == .failed(
                    RPCError(
                        .methodNotFound,
                        "timerctl logs is not available in shared mode (timerd --shared); shared mode serves timer.list"
                    )))
        let recurring = RPCError(
            .methodNotFound,
            #"recurring timers ("on" of timer.start) are not available in shared mode (timerd --shared)"#)
        #expect(
            ControlError.failed(recurring).namingCommand(.start)
                == .failed(
                    RPCError(
                        .methodNotFound,
                        "recurring timers (--on and --every of timerctl start) are not available in shared mode (timerd --shared)"
                    )))
        let other = ControlError.failed(RPCError(.invalidParams, "timer.extend needs \"by\""))
        #expect(other.namingCommand(.extend) == other)
        #expect(ControlError.failed(refusal).namingCommand(nil) == .failed(refusal))
    }
}
