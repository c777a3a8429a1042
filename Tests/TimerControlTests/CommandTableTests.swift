import CommandLineTable
import Foundation
import Testing

@testable import TimerControl

/// The help rendered from `CommandTable.timerctl` is byte-identical to the golden files, which were
/// captured from the hand-written help texts that the table replaced (`timerctl --help` and
/// `timerctl VERB --help` of commit d718e5d).
@Suite("timerctl command table")
struct CommandTableTests {
    private static func golden(_ name: String) throws -> String {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
        return try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("timerctl --help matches its golden file")
    func mainHelp() throws {
        #expect(HelpText.main == (try Self.golden("timerctl.txt")))
    }

    @Test(
        "every command's help matches its golden file",
        arguments: Verb.allCases.filter { $0 != .help && $0 != .completeTimers })
    func verbHelp(_ verb: Verb) throws {
        #expect(HelpText.forVerb(verb) == (try Self.golden("timerctl-\(verb.rawValue).txt")))
    }

    @Test("every Verb has one command of its name, and every command is a Verb")
    func verbsMatchCommands() {
        #expect(CommandTable.timerctl.commands.map(\.name) == Verb.allCases.map(\.rawValue))
    }

    @Test("every synopsis item names an option or argument of its command (or a global option)")
    func synopsesResolve() {
        let table = CommandTable.timerctl
        let globals = Set(table.globalOptions.flatMap(\.names))
        for command in table.commands {
            let options = globals.union(command.options.flatMap(\.names))
            let arguments = Set(command.arguments.map(\.value.name))
            for case .option(let name, _) in command.usages.flatMap(\.items) {
                #expect(options.contains(name), "\(command.name): \(name)")
            }
            for case .argument(let name) in command.usages.flatMap(\.items) {
                #expect(arguments.contains(name), "\(command.name): \(name)")
            }
        }
    }

    @Test("every option of the table appears in the help that lists it")
    func optionsAppearInHelp() {
        // The machine-readable side (what completions and man-page checks read) and the rendered side agree.
        for option in CommandTable.timerctl.globalOptions {
            #expect(HelpText.main.contains(option.label), "\(option.label)")
        }
        for command in CommandTable.timerctl.commands {
            guard let verb = Verb(rawValue: command.name), verb != .help else { continue }
            for option in command.options {
                #expect(HelpText.forVerb(verb).contains(option.synopsis), "\(command.name): \(option.synopsis)")
            }
        }
    }

    @Test("usage lines are rendered from the table's usages")
    func usageLines() {
        // Expected: the usage lines of the golden help files.
        #expect(
            HelpText.usageLine(.start)
                == "timerctl start DURATION... [--loops N] [--name NAME] [--exec CMD] [--notify] [--wake] [--ring]"
                + " [--warn DURATION] [--warn-each] [--sound[=FILE]]\n"
                + "       timerctl start DURATION --heartbeat [--name NAME] [--exec CMD] [--notify] [--wake]\n"
                + "       timerctl start --at TIME [--minute-interval N] [--name NAME] [--exec CMD] [--notify] [--wake]"
                + " [--ring] [--warn DURATION] [--sound[=FILE]]"
                + "\n       timerctl start --pick [--minute-interval N] [--name NAME] [--exec CMD] [--notify] [--wake]"
                + " [--ring] [--warn DURATION] [--sound[=FILE]]"
                + "\n       timerctl start --on EXPR [--name NAME] [--persistent|--skip-missed]"
                + " [--randomized-delay DURATION] [--exec CMD] [--notify] [--wake]"
                + "\n       timerctl start --every DURATION [--from TIME] [--name NAME] [--persistent|--skip-missed]"
                + " [--randomized-delay DURATION] [--exec CMD] [--notify] [--wake]"
                + "\n       timerctl start --on EXPR DURATION... [--loops N] [--overlap RULE] [--name NAME]"
                + " [--persistent|--skip-missed] [--randomized-delay DURATION] [--exec CMD] [--notify]"
                + "\n       timerctl start --every DURATION DURATION... [--from TIME] [--loops N] [--overlap RULE]"
                + " [--name NAME]"
        )
        #expect(HelpText.usageLine(.status) == "timerctl status [ID|NAME] [--all]")
        #expect(HelpText.usageLine(.help) == "timerctl help [COMMAND]")
        #expect(HelpText.usageLine(nil) == "timerctl [--socket PATH] [--json] [--no-autostart] COMMAND [ARGS]")
    }

    @Test(
        "usage errors that the table now decides keep their wording",
        arguments: [
            (["start", "--minute-interval", "5"], "option '--minute-interval' goes with 'start --at TIME'"),
            (["--name", "tea", "stop", "1"], "option '--name' is only for 'start'"),
            (["--all", "ping"], "option '--all' is only for 'status'"),
            (["status", "a", "b"], "'status' takes at most one ID or NAME"),
            (["help", "a", "b"], "'help' takes at most one COMMAND"),
            (["start", "--at", "9:00", "--at", "10:00"], "option '--at' given twice"),
            (["--socket", "a", "ping", "--socket=b"], "option '--socket' given twice"),
            (
                ["start", "--minute-interval", "x"],
                "--minute-interval must be a whole number of minutes that divides 60 (1 to 30), got \"x\""
            ),
            (["start", "5m", "--at", "9:00"], "'start' takes DURATION... or --at TIME, not both"),
            (["--frob"], "unknown option '--frob'"),
            (["x"], "unknown command 'x'"),
        ])
    func usageMessages(_ arguments: [String], _ message: String) {
        // Expected: the messages of the hand-written parser this table replaced (ControlOptions.swift at d718e5d).
        #expect(throws: ControlError.self) { try ControlOptions.parse(arguments) }
        do {
            _ = try ControlOptions.parse(arguments)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test(
        "every option of the table is one that ControlOptions records",
        arguments: CommandTable.timerctl.acceptedOptions(after: nil))
    func everyOptionHandled(_ option: OptionSpec) {
        // An option the table gains but `apply` does not know is reported as unknown: never silently dropped.
        let words = [option.longName] + (option.value == nil ? [] : ["5"])
        do {
            _ = try ControlOptions.parse(words)
        } catch {
            #expect(!error.description.hasPrefix("unknown option"), "\(option.longName): \(error)")
        }
    }
}
