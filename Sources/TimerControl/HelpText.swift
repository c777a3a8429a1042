import CommandLineTable

/// The help texts of `timerctl`, printed to stdout by `--help`, rendered from
/// ``CommandLineTable/CommandTable/timerctl`` (pinned by tests and golden files).
package enum HelpText {
    private static var table: CommandTable { .timerctl }

    /// The global options section, shown on every help page.
    static let globalOptions =
        "Global options (before or after the command):\n"
        + CommandTable.optionRows(CommandTable.timerctl.globalOptions, column: 19)

    /// `timerctl --help`.
    package static let main = """
        Usage: \(usageLine(nil))

        \(CommandTable.timerctlDiscussion)

        Commands:
        \(CommandTable.timerctl.commandRows(column: 36))

        \(globalOptions)

        \(CommandTable.timerctlExitStatus)

        """

    /// `timerctl VERB --help`: usage lines, discussion, value descriptions, global options.
    package static func forVerb(_ verb: Verb) -> String {
        guard let command = table.command(named: verb.rawValue) else { return main }
        var body = "Usage: \(usageLine(verb))\n\n\(command.discussion)"
        if let values = CommandTable.valueDescriptions(of: command) { body += "\n\n" + values }
        return body + "\n\n" + globalOptions + "\n"
    }

    /// The usage line(s) after `Usage: ` in help and in usage errors, without a final newline.
    package static func usageLine(_ verb: Verb?) -> String {
        table.usageLine(for: verb.flatMap { table.command(named: $0.rawValue) })
    }
}
