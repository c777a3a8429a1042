import Foundation
import Glibc
import Testing

/// The set-up a new user follows and the facts the README and the man pages state about it:
/// the two commands, what `scripts/test` installs, and the per-user timer limit.
@Suite("Set-up and documented limits", .serialized, .tags(.endToEnd))
struct SetupDocumentationTests {
    /// The repository's root, from this file's path (Tests/EndToEndTests/SetupDocumentationTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    @Test("The README's set-up is two commands: a release build that runs a timer, then scripts/test")
    func twoCommands() throws {
        let readme = try Self.text("README.md")
        let start = try #require(readme.range(of: "## Set-up\n"))
        let end = try #require(readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex))
        let section = String(readme[start.upperBound..<end.lowerBound])
        // Every fenced block of the section, in order.
        let blocks = section.components(separatedBy: "```sh\n").dropFirst().map {
            $0.components(separatedBy: "\n```").first ?? ""
        }
        #expect(
            blocks == [
                "swift build -c release && .build/release/timerctl start 5s --name demo && .build/release/timerctl wait demo && .build/release/timerctl status demo",
                "scripts/test",
            ])
        // No install line a newcomer could miss.
        #expect(!section.contains("apt-get install"))
        // CI runs its tests with the same script.
        #expect(try Self.text(".ci/run").contains("\nscripts/test\n"))
    }

    @Test("scripts/test installs every program the tests run that a Swift toolchain image lacks")
    func testScriptInstallsWhatTestsRun() throws {
        let script = try Self.text("scripts/test")
        // The programs the tests start by absolute path (Harness.run, SpawnedProgram.run).
        var programs = Set<String>()
        let tests = Self.root + "/Tests"
        let files = FileManager.default.enumerator(atPath: tests)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let source = try String(contentsOfFile: tests + "/" + file, encoding: .utf8)
            for prefix in ["\"/usr/bin/", "\"/bin/"] {
                for piece in source.components(separatedBy: prefix).dropFirst() {
                    let name = String(piece.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
                    if !name.isEmpty && piece.dropFirst(name.count).first == "\"" { programs.insert(name) }
                }
            }
        }
        // Found in every Debian or Ubuntu image the toolchain runs on (coreutils, bash, dash).
        let essential: Set = ["sh", "bash", "env", "timeout"]
        // notify-send is run only to show that timerd warns when it is missing.
        let unneeded: Set = ["notify-send"]
        #expect(programs.contains("zsh") && programs.contains("systemd-analyze"), "\(programs.sorted())")
        for program in programs.subtracting(essential).subtracting(unneeded).sorted() {
            #expect(script.contains(" \(program):"), "scripts/test does not install \(program)")
        }
        #expect(script.contains("missing+=(postgresql)") && script.contains("missing+=(libpq-dev)"))
        // Found by timerd in the PATH, not by an absolute path: SoundEndToEndTests' player.
        #expect(script.contains(" aplay:alsa-utils"))
        #expect(try Self.text(".ci/run").contains(" aplay:alsa-utils"))
        #expect(try Self.text("README.md").contains("`alsa-utils` for\n`aplay`"))
        #expect(script.contains("swift test --traits PostgreSQL"))
    }

    @Test("Root has no timer limit: timerd does so, and README, timerd(8) and timerd.conf(5) say so")
    func rootHasNoTimerLimit() throws {
        #expect(
            try Self.text("README.md").contains(
                "| live timers per user | 10,000 (1 to 1,000,000), then error `-32004`; root has no limit |"))
        #expect(
            try Self.text("man/timerd.8").contains(
                "The most live timers per user (default 10000); overrides\n.BR max_timers_per_user .\nRoot has no limit.\n"
            ))
        #expect(
            try Self.text("man/timerd.conf.5").contains(
                "The most live (running or paused) timers per user, 1 to 1000000.\nDefault 10000.\nRoot has no limit.\n"
            ))
        let harness = try Harness()
        try harness.startDaemon(extraArguments: ["--max-timers-per-user", "1"])
        #expect(harness.ctl(["start", "1h", "--name", "one"]).stdout == "started 1 \"one\": 1h\n")
        let second = harness.ctl(["start", "1h", "--name", "two"])
        if getuid() == 0 {
            #expect(second.stdout == "started 2 \"two\": 1h\n", "\(second)")
        } else {
            // TimerEngine's quotaExceeded message (CountdownTests "The quota counts an owner's live timers only").
            #expect(second.status == 1, "\(second)")
            #expect(second.stderr.contains("too many live timers: the limit is 1 per user"), "\(second)")
        }
        #expect(harness.stopDaemon() == 0)
    }
}
