import CommandLineTable
import Testing

/// The one scanner, on a small table of its own so that each rule is seen in isolation.
@Suite("command-line scanner")
struct CommandLineScannerTests {
    static let verbose = OptionSpec(["-v", "--verbose"], help: "say more")
    static let output = OptionSpec(["--output"], .value(ValueSpec("PATH", .file)), repetition: .rejected, help: "where")
    static let level = OptionSpec(["--level"], .value(ValueSpec("N", .number)), help: "how much")
    static let force = OptionSpec(["--force"], help: "even if")
    static let table = CommandTable(
        programName: "tool", synopsis: [.option("--output", isOptional: true), .text("COMMAND")],
        globalOptions: [verbose, output],
        commands: [
            CommandSpec(
                "remove", aliases: ["rm"], arguments: [ArgumentSpec(ValueSpec("FILE", .file), .oneOrMore)],
                options: [force, level],
                usages: [Usage([.argument("FILE"), .option("--force", isOptional: true)], summary: "remove files")],
                discussion: "Remove files."),
            CommandSpec("status", usages: [Usage([], summary: "show the state")], discussion: "Show."),
        ])

    private func scan(_ arguments: [String], table: CommandTable = table) throws(CommandLineError)
        -> [CommandLineScanner.Token]
    {
        var scanner = CommandLineScanner(table: table, arguments: arguments)
        var tokens: [CommandLineScanner.Token] = []
        while let token = try scanner.next() { tokens.append(token) }
        return tokens
    }

    @Test("--x v and --x=v are the same; global options go before or after the command")
    func valuesAndGlobals() throws {
        #expect(
            try scan(["--output", "a", "remove", "f", "-v"]) == [
                .option(Self.output, value: "a", spelling: "--output"), .command("remove"), .argument("f"),
                .option(Self.verbose, value: nil, spelling: "-v"),
            ])
        #expect(
            try scan(["remove", "--output=a", "f"]) == [
                .command("remove"), .option(Self.output, value: "a", spelling: "--output"), .argument("f"),
            ])
        // Only the first `=` splits: the value keeps the rest.
        #expect(try scan(["--output=a=b", "status"]).first == .option(Self.output, value: "a=b", spelling: "--output"))
        // The word after an option that takes a value is its value, even with a dash.
        #expect(try scan(["remove", "--level", "-3"])[1] == .option(Self.level, value: "-3", spelling: "--level"))
    }

    @Test("`--` ends options; `-` and negative numbers are positional; an alias gives the command's name")
    func positionals() throws {
        #expect(try scan(["rm", "--", "--force", "-"]) == [.command("remove"), .argument("--force"), .argument("-")])
        #expect(try scan(["remove", "-5m", "-.5"]) == [.command("remove"), .argument("-5m"), .argument("-.5")])
    }

    @Test("a command's option is accepted before the command, and refused after another command")
    func commandOptions() throws {
        #expect(
            try scan(["--force", "status"]) == [
                .option(Self.force, value: nil, spelling: "--force"), .command("status"),
            ])
        #expect(throws: CommandLineError.unknownOption("--force", argument: "--force=1", command: "status")) {
            try scan(["status", "--force=1"])
        }
    }

    @Test(
        "errors name what was wrong",
        arguments: [
            (["statsu"], CommandLineError.unknownCommand("statsu", suggestion: "status")),
            (["re"], .unknownCommand("re", suggestion: "remove")),
            (["zzzzzz"], .unknownCommand("zzzzzz", suggestion: nil)),
            (["status", "--frob"], .unknownOption("--frob", argument: "--frob", command: "status")),
            (["--frob"], .unknownOption("--frob", argument: "--frob", command: nil)),
            (["status", "--output"], .missingValue(option: "--output")),
            (["status", "-v=1"], .unexpectedValue(option: "-v", argument: "-v=1")),
            (["status", "--=1"], .unexpectedValue(option: "--", argument: "--=1")),
            // A rejected repetition is reported before the missing value of the second occurrence.
            (["--output", "a", "status", "--output"], .repeatedOption("--output")),
        ])
    func errors(_ arguments: [String], _ error: CommandLineError) {
        #expect(throws: error) { try scan(arguments) }
    }

    @Test("timerctl's wording of each error")
    func descriptions() {
        #expect(
            CommandLineError.unknownCommand("stats", suggestion: "status").description
                == "unknown command 'stats'. Did you mean 'status'?")
        #expect(
            CommandLineError.unknownOption("--x", argument: "--x", command: "ping").description
                == "unknown option '--x' for 'ping'")
        #expect(CommandLineError.missingValue(option: "--name").description == "option '--name' needs a value")
        #expect(
            CommandLineError.unexpectedValue(option: "--json", argument: "--json=1").description
                == "option '--json' takes no value")
        #expect(CommandLineError.repeatedOption("--name").description == "option '--name' given twice")
    }

    @Test("a table without commands makes every positional word an argument")
    func noCommands() throws {
        let flat = CommandTable(programName: "d", synopsis: [], globalOptions: [Self.verbose], commands: [])
        #expect(
            try scan(["x", "-v"], table: flat) == [.argument("x"), .option(Self.verbose, value: nil, spelling: "-v")])
    }

    @Test("help pieces are rendered from the table")
    func rendering() {
        // Expected values worked out by hand from the table above.
        #expect(Self.table.usageLine(for: nil) == "tool [--output PATH] COMMAND")
        #expect(Self.table.usageLine(for: Self.table.commands[0]) == "tool remove FILE... [--force]")
        #expect(Self.table.usageLine(for: Self.table.commands[1]) == "tool status")
        #expect(
            Self.table.commandRows(column: 22)
                == "  remove FILE... [--force]\n                      remove files\n  status              show the state"
        )
        let twoLines = OptionSpec(["--long-option-name"], .value(ValueSpec("VALUE")), help: "first\nsecond")
        #expect(
            CommandTable.optionRows([Self.verbose, twoLines], column: 16)
                == "  -v, --verbose say more\n  --long-option-name VALUE\n                first\n                second"
        )
        #expect(CommandTable.valueDescriptions(of: Self.table.commands[0]) == nil)
    }

    @Test("arity checks and spoken names")
    func arity() {
        let one = ArgumentSpec(ValueSpec("ID|NAME", .timer), .exactlyOne)
        #expect(one.value.spokenName == "ID or NAME")
        #expect(one.violation(count: 0) == .tooFew)
        #expect(one.violation(count: 1) == nil)
        #expect(one.violation(count: 2) == .tooMany)
        #expect(ArgumentSpec(ValueSpec("X"), .optional).violation(count: 2) == .tooMany)
        #expect(ArgumentSpec(ValueSpec("X"), .optional).synopsis == "[X]")
        #expect(ArgumentSpec(ValueSpec("X"), .oneOrMore).violation(count: 0) == .tooFew)
        #expect(ArgumentSpec(ValueSpec("X"), .oneOrMore).violation(count: 9) == nil)
    }

    @Test("the DocC catalog's sample runs as written")
    func doccSample() throws {
        // The code of Sources/CommandLineTable/CommandLineTable.docc/CommandLineTable.md, with its
        // printed values as expectations.
        let table = CommandTable(
            programName: "greet",
            synopsis: [.option("--loud", isOptional: true), .text("NAME")],
            globalOptions: [OptionSpec(["--loud"], help: "shout")],
            commands: [])
        var scanner = CommandLineScanner(table: table, arguments: ["Ada", "--loud"])
        var tokens: [CommandLineScanner.Token] = []
        while let token = try scanner.next() { tokens.append(token) }
        #expect(tokens == [.argument("Ada"), .option(table.globalOptions[0], value: nil, spelling: "--loud")])
        #expect(table.usageLine(for: nil) == "greet [--loud] NAME")
    }

    @Test("the options accepted at each point, as completion will offer them")
    func acceptedOptions() {
        let names = { (command: CommandSpec?) in Self.table.acceptedOptions(after: command).map(\.longName) }
        #expect(names(nil) == ["--verbose", "--output", "--force", "--level"])
        #expect(names(Self.table.commands[0]) == ["--verbose", "--output", "--force", "--level"])
        #expect(names(Self.table.commands[1]) == ["--verbose", "--output"])
        #expect(Self.table.owner(of: Self.force)?.name == "remove")
        #expect(Self.table.owner(of: Self.verbose) == nil)
        #expect(Self.table.commandWords == ["remove", "status", "rm"])
    }
}
