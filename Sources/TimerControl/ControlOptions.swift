import TimerModel
import TimerProtocol

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
    /// `--all` for `status`: include ended timers.
    public var all = false
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

    /// Parses the arguments (without the program name). Global options are accepted before or
    /// after the verb; `--opt=value` and `--opt value` are both accepted; `--` ends options.
    /// A negative number such as `-5m` is an argument, not an option, so that `start -5m` gets
    /// the duration's own error.
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` naming the bad argument and what is allowed.
    public static func parse(_ arguments: [String]) throws(ControlError) -> ControlOptions {
        var options = ControlOptions()
        var index = 0
        var optionsEnded = false
        func value(for flag: String, inline: String?) throws(ControlError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else {
                throw .usage("option '\(flag)' needs a value", verb: options.verb)
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" || isNegativeNumber(argument) {
                if options.verb == nil {
                    guard let verb = Verb(rawValue: argument) else {
                        var message = "unknown command '\(argument)'"
                        if let suggestion = suggest(argument, among: Verb.allCases.map(\.rawValue)) {
                            message += ". Did you mean '\(suggestion)'?"
                        }
                        throw .usage(message, verb: nil)
                    }
                    options.verb = verb
                } else {
                    options.arguments.append(argument)
                }
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let flag = parts[0]
            let inline = parts.count > 1 ? parts[1] : nil
            switch flag {
            case "--":
                optionsEnded = true
            case "-h", "--help":
                options.help = true
            case "--version":
                options.version = true
            case "--json":
                options.json = true
            case "--no-autostart":
                options.noAutostart = true
            case "--socket":
                if options.socketPath != nil { throw .usage("option '--socket' given twice", verb: options.verb) }
                options.socketPath = try value(for: flag, inline: inline)
            case "--name" where options.verb == .start || options.verb == nil:
                if options.name != nil { throw .usage("option '--name' given twice", verb: options.verb) }
                options.name = try value(for: flag, inline: inline)
            case "--at" where options.verb == .start || options.verb == nil:
                if options.at != nil { throw .usage("option '--at' given twice", verb: options.verb) }
                options.at = try value(for: flag, inline: inline)
            case "--minute-interval" where options.verb == .start || options.verb == nil:
                let text = try value(for: flag, inline: inline)
                guard let interval = Int(text) else {
                    throw .usage(
                        "--minute-interval must be a whole number of minutes that divides 60 (1 to 30), got \"\(text)\"",
                        verb: options.verb)
                }
                options.minuteInterval = interval
            case "--all" where options.verb == .status || options.verb == nil:
                options.all = true
            default:
                let scope = options.verb.map { " for '\($0.rawValue)'" } ?? ""
                throw .usage("unknown option '\(flag)'\(scope)", verb: options.verb)
            }
            if inline != nil, ["-h", "--help", "--version", "--json", "--no-autostart", "--all", "--"].contains(flag) {
                throw .usage("option '\(flag)' takes no value", verb: options.verb)
            }
        }
        if options.help || options.version { return options }
        try validate(options)
        return options
    }

    private static func validate(_ options: ControlOptions) throws(ControlError) {
        guard let verb = options.verb else { throw .usage("no command given", verb: nil) }
        if options.name != nil && verb != .start { throw .usage("option '--name' is only for 'start'", verb: verb) }
        if options.all && verb != .status { throw .usage("option '--all' is only for 'status'", verb: verb) }
        if options.at != nil && verb != .start { throw .usage("option '--at' is only for 'start'", verb: verb) }
        if options.minuteInterval != nil && options.at == nil {
            throw .usage("option '--minute-interval' goes with 'start --at TIME'", verb: verb)
        }
        switch verb {
        case .start:
            if options.arguments.isEmpty && options.at == nil {
                throw .usage("'start' needs at least one DURATION, or --at TIME", verb: verb)
            }
            if !options.arguments.isEmpty && options.at != nil {
                throw .usage("'start' takes DURATION... or --at TIME, not both", verb: verb)
            }
        case .stop, .pause, .resume, .wait:
            if options.arguments.count != 1 {
                throw .usage("'\(verb.rawValue)' takes exactly one ID or NAME", verb: verb)
            }
        case .status:
            if options.arguments.count > 1 { throw .usage("'status' takes at most one ID or NAME", verb: verb) }
            if options.all && !options.arguments.isEmpty {
                throw .usage("'status --all' lists every timer; give either --all or an ID or NAME", verb: verb)
            }
        case .ping, .reload:
            if !options.arguments.isEmpty { throw .usage("'\(verb.rawValue)' takes no arguments", verb: verb) }
        case .help:
            if options.arguments.count > 1 { throw .usage("'help' takes at most one COMMAND", verb: verb) }
        }
    }

    private static func isNegativeNumber(_ argument: String) -> Bool {
        let rest = argument.dropFirst()
        return argument.hasPrefix("-") && (rest.first?.isNumber == true || rest.first == ".")
    }

    /// The closest known word within an edit distance of 2, for "Did you mean …?".
    static func suggest(_ word: String, among candidates: [String]) -> String? {
        if word.count >= 2, let completion = candidates.first(where: { $0.hasPrefix(word) }) { return completion }
        return
            candidates
            .map { ($0, editDistance(Array(word), Array($0))) }
            .filter { $0.1 <= 2 }
            .min { $0.1 < $1.1 }?.0
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
    /// neighbouring characters each cost 1, so `stauts` is 1 from `status`.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
