import Foundation
import Testing

/// The completion scripts that `timerctl completion SHELL` generates from its command table, run
/// in the real shells: bash's function is called as bash's programmable completion calls it
/// (`COMP_WORDS`, `COMP_CWORD`, then `COMPREPLY` read back), and live timers come from a real timerd.
///
/// Every expected list is read off `CommandTable.timerctl` (Sources/TimerControl/CommandTable+Timerctl.swift):
/// its commands in table order without the hidden `__complete-timers`, global options then the
/// command's own, and `--minute-interval`'s choices.
@Suite("Shell completions generated from the command table", .tags(.endToEnd))
struct CompletionTests {
    /// The generated script for `shell`, written to a file in `harness`'s directory.
    static func script(_ shell: String, in harness: Harness) throws -> String {
        let run = Harness.run(Harness.timerctl, ["completion", shell])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        let path = harness.directory + "/completion." + shell
        try run.stdout.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// The environment of a shell that finds the built timerctl on `PATH`.
    static var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = Harness.productsDirectory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["LC_ALL"] = "C.UTF-8"
        return environment
    }

    /// Completes `words` (the last is the word being completed) with the bash script: `COMPREPLY`,
    /// one candidate per line.
    static func bash(_ words: [String], script: String) -> Harness.Run {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        let program = """
            source '\(script)'
            COMP_WORDS=(timerctl \(quoted.joined(separator: " ")))
            COMP_CWORD=\(words.count)
            COMPREPLY=()
            _timerctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        return Harness.run("/bin/bash", ["--noprofile", "--norc", "-c", program], environment: environment)
    }

    /// The candidates bash offers for `words`.
    static func candidates(_ words: [String], script: String) -> [String] {
        let run = bash(words, script: script)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(words): \(run)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test("bash: complete -p names the function, which offers commands, options and option values")
    func bashStatic() throws {
        let harness = try Harness()
        let script = try Self.script("bash", in: harness)
        let registered = Harness.run(
            "/bin/bash", ["--noprofile", "--norc", "-c", "source '\(script)' && complete -p timerctl"],
            environment: Self.environment)
        #expect(registered.stdout == "complete -F _timerctl timerctl\n", "\(registered)")

        #expect(
            Self.candidates([""], script: script) == [
                "start", "stop", "pause", "resume", "status", "wait", "logs", "events", "bar", "notifier", "extend",
                "restart", "beat", "ack", "snooze", "rename", "skip", "rm", "watch", "ping", "reload", "stats", "pick",
                "completion",
                "help",
                "calendar",
            ])
        #expect(Self.candidates(["st"], script: script) == ["start", "stop", "status", "stats"])
        #expect(
            Self.candidates(["status", "--"], script: script) == [
                "--socket", "--json", "--no-autostart", "--help", "--version", "--all",
            ])
        #expect(
            Self.candidates(["bar", "--"], script: script) == [
                "--socket", "--json", "--no-autostart", "--help", "--version", "--format", "--idle", "--waybar",
                "--i3blocks", "--polybar", "--tmux",
            ])
        // Before the command word, every command's options are accepted (the scanner's rule).
        // Before the command word every command's options are offered: start's, wait's and pick's.
        #expect(
            Self.candidates(["--m"], script: script) == ["--minute-interval", "--message", "--mode", "--min", "--max"])
        #expect(
            Self.candidates(["pick", "--mode", ""], script: script) == ["time", "date", "date-and-time", "countdown"])
        #expect(Self.candidates(["stop", "--m"], script: script) == [])
        #expect(Self.candidates(["start", "--minute-interval", "1"], script: script) == ["1", "10", "12", "15"])
        // bash splits `--minute-interval=3` at `=` (COMP_WORDBREAKS): words `--minute-interval`, `=`, `3`.
        #expect(Self.candidates(["start", "--minute-interval", "=", "3"], script: script) == ["3", "30"])
        #expect(Self.candidates(["start", "--name", ""], script: script) == [])
        #expect(Self.candidates(["completion", ""], script: script) == ["bash", "zsh", "fish"])
        #expect(Self.candidates(["help", "re"], script: script) == ["resume", "restart", "rename", "reload"])
        // --socket takes a socket: a regular file (the script itself) is not offered.
        #expect(Self.candidates(["--socket", harness.directory + "/comp"], script: script) == [])
        // pick --calendar offers the picker's calendars (CommandTable.calendarNames, CLDR names).
        #expect(
            Self.candidates(["pick", "--calendar", "is"], script: script) == [
                "iso8601", "islamic", "islamic-civil", "islamic-tbla", "islamic-umalqura",
            ])
    }

    @Test("--socket offers sockets and directories, never the lock file beside the socket (bash, zsh, fish)")
    func socketPaths() throws {
        let harness = try Harness()
        try harness.startDaemon()
        defer { _ = harness.stopDaemon() }
        // timerd made timerd.sock and timerd.sock.lock (SocketFileClaim) in the harness directory.
        let lock = harness.socketPath + ".lock"
        try #require(FileManager.default.fileExists(atPath: lock))
        let bashScript = try Self.script("bash", in: harness)
        #expect(
            Self.candidates(["--socket", harness.directory + "/timerd"], script: bashScript) == [harness.socketPath])
        #expect(
            Self.candidates(["--socket", harness.directory + "/sta"], script: bashScript) == [harness.stateDirectory])
        // zsh: the script offers `_files -g '*(-=)'`; that glob, in a real zsh, is the socket alone.
        let zshScript = try String(contentsOfFile: try Self.script("zsh", in: harness), encoding: .utf8)
        #expect(zshScript.contains("        (--socket) _files -g '*(-=)' ;;\n"))
        let glob = Harness.run(
            "/usr/bin/zsh", ["-f", "-c", "cd '\(harness.directory)' && print -l timerd*(-=)"],
            environment: Self.environment)
        #expect(glob.stdout == "timerd.sock\n", "\(glob)")
        // fish: complete -C on the typed prefix.
        let fishScript = try Self.script("fish", in: harness)
        let fish = Harness.run(
            "/usr/bin/fish",
            [
                "--no-config", "-c",
                "source '\(fishScript)'; complete -C 'timerctl --socket \(harness.directory)/timerd'",
            ],
            environment: Self.environment)
        #expect(
            fish.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") } == [
                harness.socketPath
            ], "\(fish)")
        let calendars = Harness.run(
            "/usr/bin/fish",
            ["--no-config", "-c", "source '\(fishScript)'; complete -C 'timerctl pick --calendar isl'"],
            environment: Self.environment)
        #expect(
            calendars.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
                == ["islamic", "islamic-civil", "islamic-tbla", "islamic-umalqura"], "\(calendars)")
    }

    @Test("bash: live timer ids and names from a real timerd; nothing, quietly, when none answers")
    func bashLiveTimers() throws {
        let harness = try Harness()
        let script = try Self.script("bash", in: harness)
        // No daemon: nothing offered, nothing printed, and none started (the socket stays absent).
        #expect(Self.candidates(["--socket", harness.socketPath, "stop", ""], script: script) == [])
        #expect(!FileManager.default.fileExists(atPath: harness.socketPath))

        try harness.startDaemon()
        #expect(harness.ctl(["start", "25m", "--name", "tea"]).status == 0)
        #expect(harness.ctl(["start", "5m"]).status == 0)
        #expect(harness.ctl(["start", "1h", "--name", "talk"]).status == 0)
        #expect(harness.ctl(["stop", "talk"]).status == 0)
        // Live timers only (talk, id 3, was stopped): each id, then its name.
        #expect(Self.candidates(["--socket", harness.socketPath, "stop", ""], script: script) == ["1", "tea", "2"])
        #expect(Self.candidates(["--socket", "=", harness.socketPath, "pause", "t"], script: script) == ["tea"])
        #expect(Self.candidates(["wait", "--socket", harness.socketPath, "1"], script: script) == ["1"])
    }

    @Test("zsh -n and fish -n parse the generated scripts")
    func zshAndFishParse() throws {
        let harness = try Harness()
        for (shell, path) in [("zsh", "/usr/bin/zsh"), ("fish", "/usr/bin/fish")] {
            try #require(
                FileManager.default.isExecutableFile(atPath: path), "\(shell) missing: apt-get install \(shell)")
            let script = try Self.script(shell, in: harness)
            let run = Harness.run(path, ["-n", script], environment: Self.environment)
            #expect(run.status == 0 && run.stderr.isEmpty, "\(shell): \(run)")
        }
    }

    @Test("fish: complete -C offers commands, option values and live timers")
    func fishCompletes() throws {
        let harness = try Harness()
        let script = try Self.script("fish", in: harness)
        try harness.startDaemon()
        #expect(harness.ctl(["start", "25m", "--name", "tea"]).status == 0)
        func complete(_ line: String) -> [String] {
            let run = Harness.run(
                "/usr/bin/fish", ["--no-config", "-c", "source '\(script)'; complete -C '\(line)'"],
                environment: Self.environment)
            #expect(run.status == 0, "\(line): \(run)")
            // fish prints `candidate<TAB>description`.
            return run.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(complete("timerctl re") == ["reload", "rename", "restart", "resume"])
        #expect(complete("timerctl completion ") == ["bash", "fish", "zsh"])
        #expect(complete("timerctl --socket \(harness.socketPath) stop ") == ["1", "tea"])
    }
}
