/// One option of a command-line table: its spellings, whether it takes a value, and its help.
///
/// The scanner (``CommandLineScanner``) reads the arity and repetition; help, man pages and shell
/// completions read the names, the value's name and kind, and the help text.
package struct OptionSpec: Sendable, Equatable {
    /// Whether the option is a flag or takes one value.
    package enum Arity: Sendable, Equatable {
        /// Present or absent; `--flag=value` is an error (``CommandLineError/unexpectedValue(option:argument:)``).
        case flag
        /// Exactly one value, as `--option VALUE` or `--option=VALUE`. The next word is taken as the
        /// value even when it starts with a dash.
        case value(ValueSpec)
        /// A value that may be left out: `--option` alone, or `--option=VALUE` (the next word is
        /// never taken, as with `git --color[=WHEN]`, so `--sound 25m` cannot eat an argument).
        case optionalValue(ValueSpec)
    }

    /// What a second occurrence of the option means.
    package enum Repetition: Sendable, Equatable {
        /// The last occurrence wins (and a repeated flag is simply set again).
        case lastWins
        /// A second occurrence is an error (``CommandLineError/repeatedOption(_:)``), reported before
        /// its value is read.
        case rejected
    }

    /// Every spelling, in the order help shows them (`["-h", "--help"]`).
    package var names: [String]
    /// Flag or value.
    package var arity: Arity
    /// What a second occurrence means.
    package var repetition: Repetition
    /// The help text, with line breaks where the terminal help breaks it (join the lines with a
    /// space for a one-line description).
    package var help: String
    /// Accepted but not shown in help (an option for tests, say).
    package var isHidden: Bool

    /// Creates an option.
    ///
    /// - Parameters:
    ///   - names: every spelling, the long `--name` form included; must not be empty.
    ///   - arity: ``Arity/flag`` or ``Arity/value(_:)``.
    ///   - repetition: what a second occurrence means (default: the last wins).
    ///   - help: the help text; `\n` where the terminal help breaks the line.
    ///   - isHidden: whether help leaves it out.
    package init(
        _ names: [String], _ arity: Arity = .flag, repetition: Repetition = .lastWins, help: String,
        isHidden: Bool = false
    ) {
        precondition(!names.isEmpty, "an option needs a name")
        self.names = names
        self.arity = arity
        self.repetition = repetition
        self.help = help
        self.isHidden = isHidden
    }

    /// The long spelling (`--help` of `-h, --help`): the name messages and synopses use.
    package var longName: String { names.first { $0.hasPrefix("--") } ?? names[0] }

    /// The value's description, or `nil` for a flag and for an optional value (which never takes
    /// the next word, so completion treats it as a flag).
    package var value: ValueSpec? {
        if case .value(let value) = arity { return value }
        return nil
    }

    /// The description of a value that may be left out (``Arity/optionalValue(_:)``), or `nil`.
    package var optionalValue: ValueSpec? {
        if case .optionalValue(let value) = arity { return value }
        return nil
    }

    /// The help label: every spelling and the value's name (`--socket PATH`, `-h, --help`,
    /// `--sound[=FILE]`).
    package var label: String {
        names.joined(separator: ", ") + valueSuffix
    }

    /// The option as a synopsis shows it: `--name NAME`, `--sound[=FILE]`, or `--all` for a flag.
    package var synopsis: String { longName + valueSuffix }

    private var valueSuffix: String {
        if let value { return " \(value.name)" }
        if let optionalValue { return "[=\(optionalValue.name)]" }
        return ""
    }
}
