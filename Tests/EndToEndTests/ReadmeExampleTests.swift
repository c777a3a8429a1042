import Foundation
import Glibc
import TestSupport
import Testing

/// The README's `console` blocks are real output of the current build: each block's `$ ` commands
/// run in one bash session against a timerd that `timerctl` autostarts on private directories, and
/// each command's output must match the lines under it in the README, modulo what changes from run
/// to run (numbers, times, ids, pids; see ``normalized(_:)``).
///
/// A block that cannot run here (it needs a terminal, or a second one) is preceded by a line
/// `<!-- not checked: REASON -->`. `TIMERD_README_UPDATE=1 swift test --traits PostgreSQL --filter
/// ReadmeExampleTests` writes the real output into README.md instead (then read the diff).
@Suite("README examples are real output", .serialized, .tags(.endToEnd))
struct ReadmeExampleTests {
    /// The repository's root, from this file's path (Tests/EndToEndTests/ReadmeExampleTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// One fenced `console` block of the README.
    struct Block {
        /// The line index of its opening fence (0-based).
        var fence: Int
        /// The indentation of the fence (a block inside a list item is indented).
        var indent: String
        /// Its lines without the indentation, between the fences.
        var lines: [String]
        /// The reason given by `<!-- not checked: … -->` on the line before the fence, if any.
        var notChecked: String?

        /// The `$ ` commands, each with the README's output lines under it.
        var commands: [(command: String, output: [String])] {
            var result: [(command: String, output: [String])] = []
            for line in lines {
                if line.hasPrefix("$ ") {
                    result.append((String(line.dropFirst(2)), []))
                } else if !result.isEmpty {
                    result[result.count - 1].output.append(line)
                }
            }
            return result
        }
    }

    /// The README's `console` blocks.
    static func blocks(of readme: [String]) -> [Block] {
        var blocks: [Block] = []
        var index = 0
        while index < readme.count {
            let line = readme[index]
            let indent = String(line.prefix { $0 == " " })
            guard line.dropFirst(indent.count) == "```console" else {
                index += 1
                continue
            }
            var end = index + 1
            while end < readme.count && readme[end] != indent + "```" { end += 1 }
            let body = readme[(index + 1)..<min(end, readme.count)].map { String($0.dropFirst(indent.count)) }
            var previous = index - 1
            while previous >= 0 && readme[previous].trimmingCharacters(in: .whitespaces).isEmpty { previous -= 1 }
            var reason: String?
            if previous >= 0 {
                let text = readme[previous].trimmingCharacters(in: .whitespaces)
                if text.hasPrefix("<!-- not checked:") && text.hasSuffix("-->") {
                    reason = String(text.dropFirst("<!-- not checked:".count).dropLast(3))
                        .trimmingCharacters(in: .whitespaces)
                }
            }
            blocks.append(Block(fence: index, indent: indent, lines: body, notChecked: reason))
            index = end + 1
        }
        return blocks
    }

    /// What stays the same between two runs of a command: every run of digits with the characters
    /// that join them into numbers, times, dates and durations (`.:+-` and `dhmsTZeµ`, as in
    /// `1h30m`, `2026-12-01T18:30:00+01:00`, `4.8e-05`) becomes `#`, and `#`s separated by spaces
    /// become one (`2d 02:00:00` and `0:25:00` are both `#`); runs of spaces become one (column
    /// widths follow the values); a weekday (`Mon` … `Sun`) becomes `DAY`; `From now:` lines
    /// (relative to the moment of the run) keep their label and last word (`left` or `ago`); empty
    /// lines go.
    static func normalized(_ lines: [String]) -> [String] {
        let joiners = Set(".:+-dhmsTZeµ")
        return lines.compactMap { line -> String? in
            var out = ""
            var run = ""
            func flush() {
                out += run.contains(where: \.isNumber) ? "#" : run
                run = ""
            }
            for character in line {
                if character.isASCII && character.isNumber || joiners.contains(character) {
                    run.append(character)
                } else {
                    flush()
                    out.append(character)
                }
            }
            flush()
            let weekdays: Set = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
            var words = out.split(separator: " ").map { weekdays.contains(String($0)) ? "DAY" : String($0) }
            if words.first == "From" && words.dropFirst().first == "now:" {
                // "From now: 13h left" or "8 months ago": measured from the moment of the run (as
                // systemd-analyze calendar does, also with --base-time), so only the direction stays.
                words = ["From", "now:"] + (words.count > 2 ? [words[words.count - 1]] : [])
            }
            var collapsed: [String] = []
            for word in words where !(word == "#" && collapsed.last == "#") { collapsed.append(word) }
            return collapsed.isEmpty ? nil : collapsed.joined(separator: " ")
        }
    }

    /// Runs `commands` in one bash session on fresh directories and returns each one's output
    /// (stdout and stderr together), with the directories written as the README's examples name
    /// them (`/run/user/1000`, `/home/me`).
    static func run(_ commands: [String]) throws -> [[String]] {
        var template = Array("/tmp/timerd-readme-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemFailure("mkdtemp failed") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runtime = directory + "/run"
        let home = directory + "/home"
        mkdir(runtime, 0o700)
        mkdir(home, 0o700)
        // timerd's system zone, as the README's examples state it ("timerd's system zone is UTC
        // here"): a link, which timerd names by its target (Etc/UTC).
        symlink("/usr/share/zoneinfo/Etc/UTC", directory + "/localtime")
        // The separator printed after each command: a line of its own that no program prints.
        let separator = "\u{1E}"
        // The daemon runs before the first command, as it would for a reader who used timerctl
        // before: a first command's `TZ=…` would otherwise become the autostarted daemon's zone.
        var script = "exec 2>&1\ncd \"$HOME\"\ntimerctl ping >/dev/null\n"
        for command in commands {
            script += command + "\n__status=$?; printf '\\n\(separator)\\n'; (exit $__status)\n"
        }
        let environment = [
            "PATH": Harness.productsDirectory + ":/usr/bin:/bin", "HOME": home, "XDG_RUNTIME_DIR": runtime,
            "XDG_STATE_HOME": home + "/.local/state", "LANG": "C.UTF-8", "NO_COLOR": "1", "TERM": "dumb",
            "TIMERD_LOCALTIME": directory + "/localtime",
        ]
        let outPath = directory + "/out"
        let result = SpawnedProgram.run(
            "/usr/bin/timeout", ["120", "/bin/bash", "--noprofile", "--norc", "-c", script],
            environment: environment, standardOutput: outPath, standardError: outPath)
        // The autostarted daemon's pid is in its state directory's lock file.
        let lock = (try? String(contentsOfFile: home + "/.local/state/timerd/lock", encoding: .utf8)) ?? ""
        if let pid = Int32(lock.filter(\.isNumber)) { kill(pid, SIGTERM) }
        if let failure = result.failure { throw SystemFailure("cannot run bash: \(failure)") }
        let output = try String(contentsOfFile: outPath, encoding: .utf8)
            .replacingOccurrences(of: runtime, with: "/run/user/1000")
            .replacingOccurrences(of: home, with: "/home/me")
        var parts = output.components(separatedBy: separator + "\n").map { part in
            var lines = part.components(separatedBy: "\n")
            while lines.last == "" { lines.removeLast() }
            return lines
        }
        if parts.last == [] { parts.removeLast() }
        return parts
    }

    @Test("Every console block of README.md is checked or says why not, and its output is real")
    func readme() throws {
        let path = Self.root + "/README.md"
        var readme = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        let update = ProcessInfo.processInfo.environment["TIMERD_README_UPDATE"] == "1"
        let blocks = Self.blocks(of: readme)
        // Usage, on-finish actions, an action's runs (`timerctl logs`), everyday edits, the four
        // status-bar blocks, the two calendar blocks, recurring timers, heartbeats, wake from suspend,
        // metrics, loops, groups on a calendar: the blocks that run.
        #expect(blocks.filter { $0.notChecked == nil }.count == 16, "\(blocks.map(\.fence))")
        // From the last block to the first, so that an update keeps the earlier fences' lines.
        for block in blocks.reversed() where block.notChecked == nil {
            let commands = block.commands
            #expect(!commands.isEmpty, "README.md line \(block.fence + 1): a console block without `$ ` commands")
            let actual = try Self.run(commands.map(\.command))
            #expect(actual.count == commands.count, "README.md line \(block.fence + 1): \(actual)")
            if update {
                var body: [String] = []
                for (index, command) in commands.enumerated() {
                    body.append("$ " + command.command)
                    body += index < actual.count ? actual[index] : []
                }
                readme.replaceSubrange(
                    (block.fence + 1)..<(block.fence + 1 + block.lines.count), with: body.map { block.indent + $0 })
                continue
            }
            for (index, command) in commands.enumerated() where index < actual.count {
                let expected = Self.normalized(command.output)
                let got = Self.normalized(actual[index])
                #expect(
                    expected == got,
                    """
                    README.md line \(block.fence + 1), `$ \(command.command)`:
                    README:\n\(command.output.joined(separator: "\n"))
                    real:\n\(actual[index].joined(separator: "\n"))
                    """)
            }
        }
        if update { try readme.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8) }
    }

    /// Roff text as a terminal shows it (`\\-` is `-`, `\\e` is a backslash).
    static func unescaped(_ line: String) -> String {
        line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\")
    }

    /// Text as roff source: the inverse of ``unescaped(_:)``.
    static func escaped(_ line: String) -> String {
        line.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
    }

    @Test("timerctl(1)'s EXAMPLES are one real session")
    func manPageExamples() throws {
        let path = Self.root + "/man/timerctl.1"
        var page = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        let update = ProcessInfo.processInfo.environment["TIMERD_README_UPDATE"] == "1"
        let start = try #require(page.firstIndex(of: ".SH EXAMPLES"))
        let end = page[(start + 1)...].firstIndex { $0.hasPrefix(".SH ") } ?? page.count
        // The `$ ` lines of every .EX block, each with the lines under it up to the next command or .EE.
        var commands: [(line: Int, command: String, output: [String], outputLines: Range<Int>)] = []
        var inExample = false
        for index in start..<end {
            let line = page[index]
            if line == ".EX" {
                inExample = true
            } else if line == ".EE" {
                inExample = false
            } else if inExample && line.hasPrefix("$ ") {
                commands.append((index, String(Self.unescaped(line).dropFirst(2)), [], (index + 1)..<(index + 1)))
            } else if inExample, !commands.isEmpty, commands[commands.count - 1].outputLines.upperBound == index {
                commands[commands.count - 1].output.append(Self.unescaped(line))
                commands[commands.count - 1].outputLines =
                    commands[commands.count - 1].outputLines.lowerBound..<(index + 1)
            }
        }
        #expect(commands.count >= 6, "\(commands.map(\.command))")
        let actual = try Self.run(commands.map(\.command))
        #expect(actual.count == commands.count, "\(actual)")
        for (index, command) in commands.enumerated().reversed() where index < actual.count {
            if update {
                page.replaceSubrange(command.outputLines, with: actual[index].map(Self.escaped))
                continue
            }
            #expect(
                Self.normalized(command.output) == Self.normalized(actual[index]),
                """
                man/timerctl.1 line \(command.line + 1), `$ \(command.command)`:
                page:\n\(command.output.joined(separator: "\n"))
                real:\n\(actual[index].joined(separator: "\n"))
                """)
        }
        if update { try page.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8) }
    }

    @Test("The normalization keeps words and drops what changes between runs")
    func normalization() {
        // Lines of the README's Usage block (expected values written by hand from the rule above).
        #expect(
            Self.normalized([
                "3   pomodoro  running  1:00:00    07:35:06  [--------------------]   0%  step 1/4 (25m)",
                "5   gap       running  116d 18:54:53  2027-03-28 03:30  [----]   0%",
                "started 4 \"dinner\": ends at 2026-12-01T18:30:00+01:00 (Europe/Paris), in 10h54m53s",
                "       From now: 2 days left",
                "    Next elapse: Mon 2026-12-07 07:00:00 CET",
                "",
                "    \"fractionCompleted\" : 4.8e-05,",
            ]) == [
                "# pomodoro running # [--------------------] #% step #/# (#)",
                "# gap running # [----] #%",
                "started # \"dinner\": ends at # (Europe/Paris), in #",
                "From now: left",
                "Next elapse: DAY # CET",
                "\"fractionCompleted\" : #,",
            ])
        // A doubled line is not normalized away.
        #expect(Self.normalized(["started 5 \"gap\": in 1d", "started 5 \"gap\": in 2d"]).count == 2)
    }
}
