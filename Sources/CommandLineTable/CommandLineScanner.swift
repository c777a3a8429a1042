/// The one scanner of every command line: walks the words left to right and yields commands,
/// options with their values, and positional arguments, checked against a ``CommandTable``.
///
/// Rules (those of getopt_long(3) and swift-argument-parser, restricted to what the table declares):
/// - `--option VALUE` and `--option=VALUE` are the same; the word after an option that takes a
///   value is its value even when it starts with a dash. A word is split at its first `=` only.
/// - A global option may come before or after the command.
/// - `--` ends the options: every later word is positional.
/// - `-` alone and a negative number (`-5m`, `-.5`) are positional, so that `start -5m` reaches
///   the duration's own error rather than "unknown option".
/// - The first positional word of a table with commands selects the command; an unknown one is
///   an error with the closest command as a suggestion.
///
/// The scanner is lazy: each ``next()`` reads one token, so a program that checks values as they
/// come reports the first problem on the line, in order.
package struct CommandLineScanner: Sendable {
    /// One thing on the command line.
    package enum Token: Sendable, Equatable {
        /// The command word, resolved to its canonical name (an alias gives the command's name).
        case command(String)
        /// An option, its value (`nil` for a flag), and its spelling as given (`-h` or `--help`).
        case option(OptionSpec, value: String?, spelling: String)
        /// A positional argument.
        case argument(String)
    }

    /// The table the words are checked against.
    package let table: CommandTable
    /// The command seen so far, or `nil` before the command word (and always for a table without
    /// commands).
    package private(set) var command: CommandSpec?

    private let arguments: [String]
    private var index = 0
    private var optionsEnded = false
    private var seen: Set<String> = []

    /// Creates a scanner over `arguments` (without the program's name).
    ///
    /// - Parameters:
    ///   - table: the commands and options accepted.
    ///   - arguments: the words, without the program's name.
    package init(table: CommandTable, arguments: [String]) {
        self.table = table
        self.arguments = arguments
    }

    /// Reads the next token.
    ///
    /// - Returns: the token, or `nil` at the end of the line.
    /// - Throws: ``CommandLineError/unknownCommand(_:suggestion:)``,
    ///   ``CommandLineError/unknownOption(_:argument:command:)``,
    ///   ``CommandLineError/missingValue(option:)``, ``CommandLineError/unexpectedValue(option:argument:)``,
    ///   ``CommandLineError/repeatedOption(_:)``.
    package mutating func next() throws(CommandLineError) -> Token? {
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" || Self.isNegativeNumber(argument) {
                if command == nil && !table.commands.isEmpty {
                    guard let selected = table.command(named: argument) else {
                        throw .unknownCommand(argument, suggestion: table.suggestion(for: argument))
                    }
                    command = selected
                    return .command(selected.name)
                }
                return .argument(argument)
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let spelling = parts[0]
            let inline = parts.count > 1 ? parts[1] : nil
            if spelling == "--" {
                if inline != nil { throw .unexpectedValue(option: spelling, argument: argument) }
                optionsEnded = true
                continue
            }
            guard let option = table.option(named: spelling, after: command) else {
                throw .unknownOption(spelling, argument: argument, command: command?.name)
            }
            if option.repetition == .rejected && seen.contains(option.longName) {
                throw .repeatedOption(spelling)
            }
            seen.insert(option.longName)
            if option.optionalValue != nil {
                // `--sound=` is an empty value (for the caller to refuse), not `--sound` alone.
                let value = inline ?? (argument.count > spelling.count ? "" : nil)
                return .option(option, value: value, spelling: spelling)
            }
            guard option.value != nil else {
                if inline != nil { throw .unexpectedValue(option: spelling, argument: argument) }
                return .option(option, value: nil, spelling: spelling)
            }
            if let inline { return .option(option, value: inline, spelling: spelling) }
            guard index < arguments.count else { throw .missingValue(option: spelling) }
            index += 1
            return .option(option, value: arguments[index - 1], spelling: spelling)
        }
        return nil
    }

    /// Whether `argument` is a negative number (`-5`, `-5m`, `-.5`) rather than an option.
    private static func isNegativeNumber(_ argument: String) -> Bool {
        let rest = argument.dropFirst()
        return argument.hasPrefix("-") && (rest.first?.isNumber == true || rest.first == ".")
    }
}
