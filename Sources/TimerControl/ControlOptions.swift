import CommandLineTable
import TimerModel
import TimerProtocol
import TimerSystem

/// A parsed `timerctl` command line.
public struct ControlOptions: Sendable, Equatable {
    /// The command; `nil` when only global flags (`--help`, `--version`) were given.
    public var verb: Verb?
    /// Positional arguments after the verb (durations for `start`, a timer for the others).
    public var arguments: [String] = []
    /// `--name NAME` for `start`.
    public var name: String?
    /// `--at TIME` for `start`: end at a wall-clock time instead of after a duration.
    public var at: String?
    /// `--minute-interval N` for `start --at` with a local time: floor the minute to a multiple of N.
    public var minuteInterval: Int?
    /// `--pick` (or `--at -`) for `start`: choose the end time in the terminal date picker first.
    public var pick = false
    /// The options of `pick`, as given (`["--mode", "time", …]`), passed on to the picker executable.
    public var pickerArguments: [String] = []
    /// `--exec CMD` for `start`: a command timerd runs with `/bin/sh -c` when the timer finishes.
    public var exec: String?
    /// `--notify` for `start`: a desktop notification when the timer finishes.
    public var notify = false
    /// `--heartbeat` for `start DURATION`: a heartbeat timer, which `beat` re-arms (a dead-man switch).
    public var heartbeat = false
    /// `--wake` for `start`: the timer wakes the machine from suspend at its end (`"wake":true`).
    public var wake = false
    /// `--ring` for `start`: keep ringing at the end until `ack` or `snooze` (`"ring":true`).
    public var ring = false
    /// `--warn DURATION` for `start`: a warning that long before the end, in seconds (`"warn"`).
    public var warn: Double?
    /// `--warn-each` for `start`: the `--warn` warning before the end of every step of a group.
    public var warnEach = false
    /// `--sound[=FILE]` for `start`: play a sound at the end and at every ring (`"sound"`).
    public var sound = false
    /// The FILE of `--sound=FILE` as given (made absolute against the working directory when
    /// sent), or `nil` for timerd's default sound.
    public var soundFile: String?
    /// `--loops N` for `start DURATION...`: the group runs N times, one loop after the other (timerd checks
    /// that the loops make at most `TimerLimits.maximumGroupSize` steps).
    public var loops: Int?
    /// `--overlap skip|queue|restart` for `start --on/--every DURATION...`: what an elapse does while
    /// the group it started last still runs.
    public var overlap: String?
    /// `--on EXPR` for `start`: a recurring timer on a systemd.time(7) calendar expression.
    public var on: String?
    /// `--every DURATION` for `start`: a recurring timer with a period on the boot-time clock.
    public var every: String?
    /// `--from TIME` for `start --every`: the first elapse (as `--at` reads a time).
    public var from: String?
    /// `--persistent` for `start --on/--every`: ring one catch-up for missed elapses (the default).
    public var persistent = false
    /// `--skip-missed` for `start --on/--every`: drop missed elapses.
    public var skipMissed = false
    /// `--randomized-delay DURATION` for `start --on/--every`.
    public var randomizedDelay: String?
    /// `--bell` for `wait`: ring the terminal bell when the timer finishes.
    public var bell = false
    /// `--message TEXT` for `wait`: print TEXT when the timer finishes.
    public var message: String?
    /// `--format TEMPLATE` for `bar`: the line's text with fields in braces.
    public var format: String?
    /// `--idle TEXT` for `bar`: the line when no timer is shown.
    public var idle: String?
    /// `--waybar`, `--i3blocks`, `--polybar` or `--tmux` for `bar`; `nil` for plain lines.
    public var barStyle: BarStyle?
    /// `--all` for `status`: include ended timers.
    public var all = false
    /// `--prometheus` for `stats`: print the metrics in the Prometheus text format.
    public var prometheus = false
    /// `--all-ended` for `rm`: remove every ended timer of the caller.
    public var allEnded = false
    /// `--socket PATH`: talk to this socket, never autostart.
    public var socketPath: String?
    /// `--json`: machine-readable output.
    public var json = false
    /// `--no-autostart`: fail instead of starting timerd.
    public var noAutostart = false
    /// `-h`/`--help`.
    public var help = false
    /// `--version`.
    public var version = false

    /// Creates empty options.
    public init() {}

    /// Parses the arguments (without the program name) with the one scanner and the table
    /// `CommandTable.timerctl` (CommandLineTable). Global options are accepted before or after the
    /// verb; `--opt=value` and `--opt value` are both accepted; `--` ends options. A negative number
    /// such as `-5m` is an argument, not an option, so that `start -5m` gets the duration's own error.
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` naming the bad argument and what is allowed.
    public static func parse(_ arguments: [String]) throws(ControlError) -> ControlOptions {
        var options = ControlOptions()
        var scanner = CommandLineScanner(table: .timerctl, arguments: arguments)
        while true {
            let token: CommandLineScanner.Token?
            do {
                token = try scanner.next()
            } catch {
                throw .usage(error.description, verb: options.verb)
            }
            switch token {
            case nil:
                if options.help || options.version { return options }
                try validate(options)
                return options
            case .command(let name):
                guard let verb = Verb(rawValue: name) else { throw .usage("unknown command '\(name)'", verb: nil) }
                options.verb = verb
            case .argument(let argument):
                options.arguments.append(argument)
            case .option(let option, let value, let spelling):
                if option.longName == "--sound" {
                    // --sound alone is the default sound; --sound= names no file.
                    if value?.isEmpty == true {
                        throw .usage("--sound=FILE needs a file, such as --sound=bell.wav", verb: options.verb)
                    }
                    options.sound = true
                    options.soundFile = value
                    continue
                }
                try options.apply(option.longName, value: value ?? "", spelling: spelling)
            }
        }
    }

    /// Records one option the scanner accepted (it has checked the option's arity and repetition).
    private mutating func apply(_ longName: String, value: String, spelling: String) throws(ControlError) {
        switch longName {
        case "--help": help = true
        case "--version": version = true
        case "--json": json = true
        case "--no-autostart": noAutostart = true
        case "--all": all = true
        case "--prometheus": prometheus = true
        case "--all-ended": allEnded = true
        case "--socket":
            // An empty or over-long path can name no socket: a usage error, exit 64 (sun_path holds 107 bytes).
            do throws(UnixSocket.AddressError) {
                try UnixSocket.checkPath(value)
            } catch {
                throw .usage("--socket: \(error)", verb: verb)
            }
            socketPath = value
        case "--name": name = value
        case "--at": at = value
        case "--pick": pick = true
        case "--exec":
            guard !value.isEmpty else {
                throw .usage("--exec needs a command, such as --exec 'paplay bell.oga'", verb: verb)
            }
            exec = value
        case "--notify": notify = true
        case "--heartbeat": heartbeat = true
        case "--wake": wake = true
        case "--ring": ring = true
        case "--warn-each": warnEach = true
        case "--warn":
            do throws(CountdownError) {
                warn = try DurationParser.seconds(from: value)
            } catch {
                throw .usage("--warn: \(error)", verb: verb)
            }
        case "--loops":
            guard let count = Int(value), count >= 1 else {
                throw .usage("--loops must be a whole number of loops, 1 or more, got \"\(value)\"", verb: verb)
            }
            loops = count
        case "--overlap":
            guard ["skip", "queue", "restart"].contains(value) else {
                throw .usage("--overlap must be skip, queue or restart, got \"\(value)\"", verb: verb)
            }
            overlap = value
        case "--on": on = value
        case "--every": every = value
        case "--from": from = value
        case "--persistent": persistent = true
        case "--skip-missed": skipMissed = true
        case "--randomized-delay": randomizedDelay = value
        case "--bell": bell = true
        case "--format": format = value
        case "--idle": idle = value
        case "--waybar", "--i3blocks", "--polybar", "--tmux":
            let style = BarStyle(rawValue: String(longName.dropFirst(2))) ?? .plain
            if let barStyle, barStyle != style {
                throw .usage("'bar' takes one of --waybar, --i3blocks, --polybar or --tmux", verb: verb)
            }
            barStyle = style
        case "--message": message = value
        case "--mode", "--min", "--max", "--locale", "--calendar": pickerArguments += [longName, value]
        case "--minute-interval" where verb == .pick: pickerArguments += [longName, value]
        case "--iterations", "--base-time": pickerArguments += [longName, value]
        case "--minute-interval":
            guard let interval = Int(value) else {
                throw .usage(
                    "--minute-interval must be a whole number of minutes that divides 60 (1 to 30), got \"\(value)\"",
                    verb: verb)
            }
            minuteInterval = interval
        default:
            // Only reachable if the table gains an option that this switch does not know.
            throw .usage("unknown option '\(spelling)'", verb: verb)
        }
    }

    private static func validate(_ options: ControlOptions) throws(ControlError) {
        guard let verb = options.verb else { throw .usage("no command given", verb: nil) }
        if options.name != nil && verb != .start { throw .usage(onlyFor("--name"), verb: verb) }
        if options.all && verb != .status { throw .usage(onlyFor("--all"), verb: verb) }
        if options.allEnded && verb != .remove { throw .usage(onlyFor("--all-ended"), verb: verb) }
        if verb == .remove && options.allEnded == !options.arguments.isEmpty {
            throw .usage("'rm' takes an ID or NAME, or --all-ended (one of them)", verb: verb)
        }
        if options.at != nil && verb != .start { throw .usage(onlyFor("--at"), verb: verb) }
        if options.pick && verb != .start { throw .usage(onlyFor("--pick"), verb: verb) }
        if options.exec != nil && verb != .start { throw .usage(onlyFor("--exec"), verb: verb) }
        if options.notify && verb != .start { throw .usage(onlyFor("--notify"), verb: verb) }
        if options.heartbeat && verb != .start { throw .usage(onlyFor("--heartbeat"), verb: verb) }
        if options.wake && verb != .start { throw .usage(onlyFor("--wake"), verb: verb) }
        if options.ring && verb != .start { throw .usage(onlyFor("--ring"), verb: verb) }
        if options.warn != nil && verb != .start { throw .usage(onlyFor("--warn"), verb: verb) }
        if options.warnEach && verb != .start { throw .usage(onlyFor("--warn-each"), verb: verb) }
        if options.sound && verb != .start { throw .usage(onlyFor("--sound"), verb: verb) }
        if options.loops != nil && verb != .start { throw .usage(onlyFor("--loops"), verb: verb) }
        if options.bell && verb != .wait { throw .usage(onlyFor("--bell"), verb: verb) }
        if options.message != nil && verb != .wait { throw .usage(onlyFor("--message"), verb: verb) }
        for (given, name) in [
            (options.format != nil, "--format"), (options.idle != nil, "--idle"),
            (options.barStyle == .waybar, "--waybar"), (options.barStyle == .i3blocks, "--i3blocks"),
            (options.barStyle == .polybar, "--polybar"), (options.barStyle == .tmux, "--tmux"),
        ] where given && verb != .bar {
            throw .usage(onlyFor(name), verb: verb)
        }
        if verb == .bar && options.json {
            throw .usage("'bar' prints lines; --waybar prints one JSON object per line (not --json)", verb: verb)
        }
        if let idle = options.idle, idle.contains(where: \.isNewline) {
            throw .usage("--idle: a status-bar line cannot contain a line break", verb: verb)
        }
        if options.pick && options.at != nil {
            throw .usage("'start' takes --pick or --at TIME, not both (--at - is --pick)", verb: verb)
        }
        if options.minuteInterval != nil && options.at == nil && !options.pick {
            throw .usage("option '--minute-interval' goes with 'start --at TIME'", verb: verb)
        }
        for (given, name) in [
            (options.on != nil, "--on"), (options.every != nil, "--every"), (options.from != nil, "--from"),
            (options.persistent, "--persistent"), (options.skipMissed, "--skip-missed"),
            (options.randomizedDelay != nil, "--randomized-delay"), (options.overlap != nil, "--overlap"),
        ] where given && verb != .start {
            throw .usage(onlyFor(name), verb: verb)
        }
        if verb == .start {
            // Four usages (DURATION..., --at TIME, --on EXPR, --every DURATION), so the argument's
            // arity alone does not decide; DURATION... with --on or --every is the group each elapse starts.
            let recurring = options.on != nil || options.every != nil
            let ways = [
                !options.arguments.isEmpty && !recurring, options.at != nil || options.pick, options.on != nil,
                options.every != nil,
            ]
            if !options.arguments.isEmpty && (options.at != nil || options.pick) {
                throw .usage("'start' takes DURATION... or --at TIME, not both", verb: verb)
            }
            if ways.filter({ $0 }).count > 1 {
                throw .usage("'start' takes one of DURATION..., --at TIME, --on EXPR or --every DURATION", verb: verb)
            }
            if !ways.contains(true) {
                throw .usage("'start' needs at least one DURATION, or --at TIME", verb: verb)
            }
            if options.from != nil && options.every == nil {
                throw .usage("option '--from' goes with 'start --every DURATION'", verb: verb)
            }
            for (given, name) in [
                (options.persistent, "--persistent"), (options.skipMissed, "--skip-missed"),
                (options.randomizedDelay != nil, "--randomized-delay"),
            ] where given && !recurring {
                throw .usage("option '\(name)' goes with 'start --on EXPR' or 'start --every DURATION'", verb: verb)
            }
            if options.persistent && options.skipMissed {
                throw .usage("'start' takes --persistent or --skip-missed, not both", verb: verb)
            }
            if options.overlap != nil && (!recurring || options.arguments.isEmpty) {
                throw .usage(
                    "option '--overlap' goes with 'start --on EXPR DURATION...' or 'start --every DURATION DURATION...' "
                        + "(the group each elapse starts)", verb: verb)
            }
            if options.loops != nil && (options.arguments.isEmpty || options.heartbeat) {
                throw .usage("option '--loops' goes with 'start DURATION...' (it repeats the group)", verb: verb)
            }
            if options.warnEach && options.warn == nil {
                throw .usage(
                    "option '--warn-each' goes with '--warn DURATION' (it warns before every step)", verb: verb)
            }
            for (given, name) in [
                (options.ring, "--ring"), (options.warn != nil, "--warn"), (options.warnEach, "--warn-each"),
                (options.sound, "--sound"),
            ]
            where given && (options.heartbeat || recurring) {
                throw .usage(
                    "option '\(name)' goes with 'start DURATION...' or 'start --at TIME' (not --heartbeat, --on, --every)",
                    verb: verb)
            }
            if options.heartbeat && options.arguments.count != 1 {
                throw .usage(
                    "option '--heartbeat' goes with 'start DURATION' (one duration: the longest silence between beats)",
                    verb: verb)
            }
            if recurring && options.heartbeat {
                throw .usage("'start' takes --heartbeat or --on/--every, not both", verb: verb)
            }
            return
        }
        try checkArgumentCount(options.arguments.count, verb: verb)
        if verb == .status && options.all && !options.arguments.isEmpty {
            throw .usage("'status --all' lists every timer; give either --all or an ID or NAME", verb: verb)
        }
    }

    /// Checks the count of positional arguments against the command's ``ArgumentSpec`` in the table.
    private static func checkArgumentCount(_ count: Int, verb: Verb) throws(ControlError) {
        guard let command = CommandTable.timerctl.command(named: verb.rawValue) else { return }
        guard let argument = command.arguments.first else {
            if count > 0 { throw .usage("'\(verb.rawValue)' takes no arguments", verb: verb) }
            return
        }
        if command.arguments.count > 1 {
            // `extend ID|NAME DURATION`, `rename ID|NAME NEWNAME`: each argument exactly once;
            // `snooze ID|NAME [DURATION]`: its optional last one may be left out.
            let required = command.arguments.filter { $0.arity != .optional }.count
            guard !(required...command.arguments.count).contains(count) else { return }
            if required < command.arguments.count {
                let names = command.arguments.map { $0.arity == .optional ? "[\($0.value.name)]" : $0.value.name }
                throw .usage("'\(verb.rawValue)' takes \(names.joined(separator: " "))", verb: verb)
            }
            let names = command.arguments.map(\.value.name).joined(separator: " and ")
            throw .usage("'\(verb.rawValue)' takes \(names)", verb: verb)
        }
        guard argument.violation(count: count) != nil else { return }
        let quantity = argument.arity == .optional ? "at most one" : "exactly one"
        throw .usage("'\(verb.rawValue)' takes \(quantity) \(argument.value.spokenName)", verb: verb)
    }

    /// `option '--name' is only for 'start'`, naming the command the table gives the option to.
    private static func onlyFor(_ longName: String) -> String {
        let table = CommandTable.timerctl
        let owner = table.option(named: longName, after: nil).flatMap(table.owner(of:))
        return "option '\(longName)' is only for '\(owner?.name ?? "")'"
    }
}
