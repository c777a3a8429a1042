extension CommandTable {
    /// The usage line: `timerctl [--socket PATH] … COMMAND [ARGS]` for the program, or every usage of
    /// `command`, one per line, the later ones indented under the first (`Usage: ` is 7 characters).
    ///
    /// - Parameter command: the command, or `nil` for the program.
    /// - Returns: the lines without `Usage: ` and without a final newline.
    package func usageLine(for command: CommandSpec?) -> String {
        guard let command else { return join(programName, render(synopsis, arguments: [], options: globalOptions)) }
        return command.usages.map { usage in
            join(
                programName + " " + command.name,
                render(usage.items, arguments: command.arguments, options: command.options))
        }
        .joined(separator: "\n       ")
    }

    /// The command list of the program's help: one row per usage of each listed command, its
    /// synopsis then its summary at `column` (on the next line when the synopsis is too long).
    ///
    /// - Parameter column: the column (from 0) where summaries start.
    /// - Returns: the rows, newline-separated, without a final newline.
    /// - Complexity: O(*n*) in the size of the table.
    package func commandRows(column: Int) -> String {
        commands.filter(\.isListed).flatMap { command in
            command.usages.map { usage in
                Self.row(
                    join(command.name, render(usage.items, arguments: command.arguments, options: command.options)),
                    usage.summary, column: column)
            }
        }
        .joined(separator: "\n")
    }

    /// The option list of a help page: `  --socket PATH    talk to …`, hidden options left out.
    ///
    /// - Parameters:
    ///   - options: the options, in order.
    ///   - column: the column (from 0) where help texts start; a label that leaves no space before
    ///     it puts its help on the next line.
    /// - Returns: the rows, newline-separated, without a final newline.
    package static func optionRows(_ options: [OptionSpec], column: Int) -> String {
        options.filter { !$0.isHidden }.map { row($0.label, $0.help, column: column) }.joined(separator: "\n")
    }

    /// The `NAME: …` lines that describe a command's values: its positional arguments', then its
    /// options', each that has a ``ValueSpec/help``.
    ///
    /// - Parameter command: the command.
    /// - Returns: the lines without a final newline, or `nil` when no value has help.
    package static func valueDescriptions(of command: CommandSpec) -> String? {
        let values = command.arguments.map(\.value) + command.options.compactMap(\.value)
        var seen: Set<String> = []  // a value two options share (`--min TIME`, `--max TIME`) is described once
        let lines = values.filter { !$0.help.isEmpty && seen.insert($0.name).inserted }.map { "\($0.name): \($0.help)" }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// A help row: two spaces, the label, and the text's lines starting at `column`.
    private static func row(_ label: String, _ text: String, column: Int) -> String {
        let indent = String(repeating: " ", count: column)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let first = "  " + label
        let body = lines.joined(separator: "\n" + indent)
        if first.count + 1 > column { return first + "\n" + indent + body }
        return first + String(repeating: " ", count: column - first.count) + body
    }

    private func join(_ head: String, _ tail: String) -> String { tail.isEmpty ? head : head + " " + tail }

    /// Renders synopsis items, looking options up among `options` and the global ones.
    private func render(_ items: [SynopsisItem], arguments: [ArgumentSpec], options: [OptionSpec]) -> String {
        items.map { item in
            switch item {
            case .text(let text):
                return text
            case .argument(let name):
                return arguments.first { $0.value.name == name }?.synopsis ?? name
            case .option(let name, let isOptional):
                let option = (options + globalOptions).first { $0.names.contains(name) }
                let text = option?.synopsis ?? name
                return isOptional ? "[\(text)]" : text
            }
        }
        .joined(separator: " ")
    }
}
