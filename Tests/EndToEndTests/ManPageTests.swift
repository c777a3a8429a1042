import Foundation
import Testing

/// The package root, found from this file's path (Tests/EndToEndTests/ManPageTests.swift).
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// The man pages cannot drift from the binaries: every command and option that the built
/// `timerctl` and `timerd` list in their `--help` is documented in man/timerctl.1 and man/timerd.8,
/// and every command and option those pages document is one the binaries list.
@Suite("Man pages agree with --help")
struct ManPageTests {
    /// The options (`--name`, `-h`) named in `text`: words of letters, digits and `-` that start
    /// with `--` and a letter, or are `-` and one letter. `wall-clock`, `A-Z` and `->` are not.
    static func options(in text: String) -> Set<String> {
        let words = text.split { !($0.isLetter || $0.isNumber || $0 == "-") }
        return Set(
            words.filter { word in
                guard let first = word.dropFirst(word.hasPrefix("--") ? 2 : 1).first, word.hasPrefix("-") else {
                    return false
                }
                return first.isLowercase && (word.hasPrefix("--") || word.count == 2)
            }.map(String.init))
    }

    /// The options a help text defines, as against mentions in prose (timerd's "for status --all"):
    /// those in `Usage:` lines and their continuations, and in the first column of a line that
    /// starts with an option, or with a command indented by two spaces (`  -h, --help       show help`,
    /// `  status [ID|NAME] [--all]`); deeper-indented lines continue a description.
    static func definedOptions(inHelp help: String) -> Set<String> {
        var result = Set<String>()
        for line in help.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Usage:") || text.hasPrefix("timerctl ") || text.hasPrefix("timerd ") {
                result.formUnion(options(in: text))
            } else if text.hasPrefix("-")
                || (line.hasPrefix("  ") && !line.hasPrefix("   ") && text.first?.isLowercase == true)
            {
                let firstColumn = text.components(separatedBy: "  ").first ?? text
                result.formUnion(options(in: firstColumn))
            }
        }
        return result
    }

    /// The tag lines of a man page's `.TP` items, as plain text (fonts dropped, `\-` as `-`), with
    /// the `.SH` section each is in.
    static func tags(ofManPage path: String) throws -> [(section: String, text: String)] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        var section = ""
        var result: [(section: String, text: String)] = []
        for (index, line) in lines.enumerated() {
            if line.hasPrefix(".SH ") { section = line.dropFirst(4).replacingOccurrences(of: "\"", with: "") }
            guard line == ".TP", index + 1 < lines.count else { continue }
            var tag = String(lines[index + 1])
            if tag.hasPrefix(".") {
                tag = String(tag.drop { $0 != " " }.dropFirst()).replacingOccurrences(of: "\"", with: "")
            }
            for font in ["\\fB", "\\fI", "\\fR", "\\fP"] { tag = tag.replacingOccurrences(of: font, with: "") }
            result.append((section, tag.replacingOccurrences(of: "\\-", with: "-")))
        }
        return result
    }

    /// The first word of each line of `timerctl --help`'s "Commands:" block.
    static func commands(inHelp help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "Commands:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            // "  start DURATION... [--name NAME]   …"; continuation lines are indented further.
            guard line.hasPrefix("  "), line.dropFirst(2).first?.isLowercase == true else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }
    }

    @Test("timerctl --help and every timerctl COMMAND --help agree with man/timerctl.1")
    func timerctl() throws {
        let main = Harness.run(Harness.timerctl, ["--help"])
        #expect(main.status == 0, "\(main)")
        let listed = Self.commands(inHelp: main.stdout)
        // The commands of HelpText.main, in its order (Sources/TimerControl/HelpText.swift).
        #expect(
            listed == [
                "start", "start", "start", "start", "start", "start", "start", "start", "stop", "pause", "resume",
                "status", "wait",
                "logs", "events", "bar", "notifier", "extend", "restart", "beat", "ack", "snooze",
                "rename", "skip", "rm", "rm", "watch", "ping", "reload", "stats", "pick", "completion", "help",
                "calendar",
            ])
        var helpOptions = Self.definedOptions(inHelp: main.stdout)
        // `help --help` is the main help (as `help` alone); every other command has its own page.
        for command in Set(listed).subtracting(["help"]) {
            let run = Harness.run(Harness.timerctl, [command, "--help"])
            #expect(run.status == 0 && run.stdout.hasPrefix("Usage: timerctl \(command)"), "\(command): \(run)")
            helpOptions.formUnion(Self.definedOptions(inHelp: run.stdout))
        }
        let tags = try Self.tags(ofManPage: packageRoot + "/man/timerctl.1")
        let manCommands = Set(
            tags.filter { $0.section == "COMMANDS" }.compactMap { $0.text.split(separator: " ").first }.map(String.init)
        )
        let manOptions = tags.reduce(into: Set<String>()) { $0.formUnion(Self.options(in: $1.text)) }

        #expect(
            Set(listed).subtracting(manCommands).isEmpty,
            "in --help, not in timerctl.1: \(Set(listed).subtracting(manCommands))")
        let extra = manCommands.subtracting(listed)
        #expect(extra.isEmpty, "in timerctl.1, not in --help: \(extra)")
        #expect(
            helpOptions.subtracting(manOptions).isEmpty,
            "in --help, not in timerctl.1: \(helpOptions.subtracting(manOptions))")
        #expect(
            manOptions.subtracting(helpOptions).isEmpty,
            "in timerctl.1, not in --help: \(manOptions.subtracting(helpOptions))")
        // Guards against a parser that finds nothing: the options of HelpText.swift.
        #expect(
            helpOptions == [
                "--socket", "--json", "--no-autostart", "-h", "--help", "--version", "--name", "--at",
                "--minute-interval", "--pick", "--all", "--all-ended", "--mode", "--min", "--max", "--locale",
                "--calendar", "--exec", "--notify", "--heartbeat", "--wake", "--ring", "--warn", "--warn-each",
                "--sound", "--loops",
                "--bell",
                "--message",
                "--iterations",
                "--base-time", "--on", "--every", "--from", "--persistent", "--skip-missed", "--randomized-delay",
                "--overlap",
                "--format", "--idle", "--waybar", "--i3blocks", "--polybar", "--tmux",
                "--prometheus",
            ])
    }

    @Test("timerd --help agrees with man/timerd.8")
    func timerd() throws {
        let run = Harness.run(Harness.timerd, ["--help"])
        #expect(run.status == 0, "\(run)")
        let helpOptions = Self.definedOptions(inHelp: run.stdout)
        let tags = try Self.tags(ofManPage: packageRoot + "/man/timerd.8")
        let manOptions = tags.reduce(into: Set<String>()) { $0.formUnion(Self.options(in: $1.text)) }
        #expect(
            helpOptions.subtracting(manOptions).isEmpty,
            "in --help, not in timerd.8: \(helpOptions.subtracting(manOptions))")
        #expect(
            manOptions.subtracting(helpOptions).isEmpty,
            "in timerd.8, not in --help: \(manOptions.subtracting(helpOptions))")
        // The options of DaemonOptions.help (Sources/TimerDaemon/DaemonOptions.swift).
        #expect(
            helpOptions == [
                "--socket", "--state-dir", "--config", "--exit-when-idle", "--request-timeout", "--max-connections",
                "--max-connections-per-user", "--idle-timeout", "--max-timers-per-user", "--socket-mode",
                "--history-limit", "--history-max-age", "--log-level", "--save", "--accept-state-loss",
                "--action-timeout",
                // The PostgreSQL store.
                "--store", "--host-id", "--shared", "--migrate-only",
                // The PostgreSQL session timeouts.
                "--pg-lock-timeout", "--pg-statement-timeout", "--pg-idle-in-transaction-timeout",
                // The metrics endpoint.
                "--metrics", "--metrics-timers",
                "-h",
                "--help", "--version",
            ])
    }

    @Test("The option finder takes options and leaves hyphenated words alone")
    func optionFinder() {
        #expect(
            Self.options(in: "a wall-clock time, A-Z a-z, 02:30 -> 03:30, [--name NAME] -h, --help 'timerctl --x'")
                == ["--name", "-h", "--help", "--x"])
    }

    @Test("Defined options are told from options mentioned in prose")
    func definedOptionFinder() {
        let help = """
            Usage: timerd [--socket PATH] [OPTIONS]
                   timerd --version
              --history-limit N         keep the last N ended timers for status --all (default 1000;
                                        overrides --max-x)
              -h, --help                show this help
              status [ID|NAME] [--all]  show timers
            See 'timerctl COMMAND --help' and --json.
            """
        #expect(
            Self.definedOptions(inHelp: help) == ["--socket", "--version", "--history-limit", "-h", "--help", "--all"])
    }

    @Test("VERSION, timerd --version, timerctl --version and the man pages' headers name one version")
    func version() throws {
        let version = try String(contentsOfFile: packageRoot + "/VERSION", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // ServiceVersion.version (Sources/TimerProtocol/RPCMessages.swift) is what --version prints.
        #expect(Harness.run(Harness.timerd, ["--version"]).stdout == "timerd \(version) (protocol 1)\n")
        #expect(Harness.run(Harness.timerctl, ["--version"]).stdout == "timerctl \(version) (protocol 1)\n")
        for page in ["timerctl.1", "timerd.8", "timerd.conf.5", "timerd-protocol.7", "timerpick.1"] {
            let text = try String(contentsOfFile: packageRoot + "/man/" + page, encoding: .utf8)
            let header = text.split(separator: "\n").first { $0.hasPrefix(".TH ") } ?? ""
            #expect(header.contains("\"timerd \(version)\""), "\(page): \(header)")
        }
    }
}
