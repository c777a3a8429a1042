/// A program's whole command line as data: global options, commands, their options and arguments.
///
/// One table drives the scanner (``CommandLineScanner``), the rendered help
/// (`CommandTable+Help.swift`), the man-page checks and the shell completions (`Completion/`), so that none of
/// them can drift from the others. A program without commands (timerd) has only ``globalOptions``.
///
/// ```swift
/// let table = CommandTable(
///     programName: "greet", synopsis: [.option("--loud", isOptional: true), .text("NAME")],
///     globalOptions: [OptionSpec(["--loud"], help: "shout")], commands: [])
/// var scanner = CommandLineScanner(table: table, arguments: ["--loud", "Ada"])
/// while let token = try scanner.next() { print(token) }
/// ```
package struct CommandTable: Sendable, Equatable {
    /// The program's name as the user types it (`timerctl`).
    package var programName: String
    /// What follows the program's name in its usage line (`[--socket PATH] … COMMAND [ARGS]`).
    package var synopsis: [SynopsisItem]
    /// Options accepted anywhere on the line, before or after the command.
    package var globalOptions: [OptionSpec]
    /// The commands, in the order help lists them and suggestions prefer them.
    package var commands: [CommandSpec]

    /// Creates a table.
    ///
    /// - Parameters:
    ///   - programName: the program's name.
    ///   - synopsis: what follows the name in the program's usage line.
    ///   - globalOptions: options accepted anywhere.
    ///   - commands: the commands; empty for a program without commands.
    package init(programName: String, synopsis: [SynopsisItem], globalOptions: [OptionSpec], commands: [CommandSpec]) {
        self.programName = programName
        self.synopsis = synopsis
        self.globalOptions = globalOptions
        self.commands = commands
    }

    /// The command that `word` selects, by name or alias.
    ///
    /// - Complexity: O(*n*) in the number of commands and aliases.
    package func command(named word: String) -> CommandSpec? {
        commands.first { $0.name == word } ?? commands.first { $0.aliases.contains(word) }
    }

    /// The options accepted where `command` is the command seen so far: the scanner's rule, exposed
    /// for shell completion and man-page checks.
    ///
    /// Global options are accepted everywhere. After a command, its own options are; before any
    /// command, every command's options are (the program then checks, once the command is known,
    /// that the option belongs to it, and can say which command it is for: ``owner(of:)``).
    ///
    /// - Parameter command: the command seen so far, or `nil` before the command word.
    /// - Returns: global options first, then command options in table order.
    /// - Complexity: O(*n*) in the number of options of the table.
    package func acceptedOptions(after command: CommandSpec?) -> [OptionSpec] {
        globalOptions + (command.map(\.options) ?? commands.flatMap(\.options))
    }

    /// The option spelled `name` where `command` is the command seen so far (see
    /// ``acceptedOptions(after:)``); the first in that order when two commands share a spelling.
    ///
    /// - Complexity: O(*n*) in the number of options of the table.
    package func option(named name: String, after command: CommandSpec?) -> OptionSpec? {
        acceptedOptions(after: command).first { $0.names.contains(name) }
    }

    /// The first command whose own options include `option`, or `nil` for a global option.
    ///
    /// - Complexity: O(*n*) in the number of options of the table.
    package func owner(of option: OptionSpec) -> CommandSpec? {
        commands.first { $0.options.contains(option) }
    }

    /// Every word that selects a command: names in table order, then aliases.
    package var commandWords: [String] { commands.map(\.name) + commands.flatMap(\.aliases) }
}
