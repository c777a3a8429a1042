/// What the scanner found wrong with a command line. Each program words its own messages from
/// these cases (``description`` is timerctl's wording; timerd says `unknown argument "…"`).
package enum CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The first positional word selects no command; `suggestion` is the closest command, if any.
    case unknownCommand(String, suggestion: String?)
    /// No option has this spelling here; `argument` is the whole word (`--frob=1`), `command` the
    /// command seen so far.
    case unknownOption(String, argument: String, command: String?)
    /// The option takes a value and the line ended.
    case missingValue(option: String)
    /// A flag was given a value (`--json=yes`); `argument` is the whole word.
    case unexpectedValue(option: String, argument: String)
    /// An option whose repetition is ``OptionSpec/Repetition/rejected`` was given a second time.
    case repeatedOption(String)

    /// timerctl's message for the case: `unknown command 'stats'. Did you mean 'status'?`,
    /// `unknown option '--frob' for 'ping'`, `option '--name' needs a value`,
    /// `option '--json' takes no value`, `option '--name' given twice`.
    package var description: String {
        switch self {
        case .unknownCommand(let word, let suggestion):
            return "unknown command '\(word)'" + (suggestion.map { ". Did you mean '\($0)'?" } ?? "")
        case .unknownOption(let option, _, let command):
            return "unknown option '\(option)'" + (command.map { " for '\($0)'" } ?? "")
        case .missingValue(let option): return "option '\(option)' needs a value"
        case .unexpectedValue(let option, _): return "option '\(option)' takes no value"
        case .repeatedOption(let option): return "option '\(option)' given twice"
        }
    }
}
