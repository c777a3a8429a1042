import Foundation
import Glibc
import Testing

/// `log_level=` through the real timerd: info lines are dropped at `warning`, warnings are kept, and
/// a reload to `info` brings the info lines back at once.
@Suite("timerd's log level, through the real binaries", .tags(.endToEnd))
struct LogLevelEndToEndTests {
    @Test("log_level=warning keeps the recovery warning and drops info lines until a reload to info")
    func reloadable() throws {
        let harness = try Harness()
        let config = harness.directory + "/timerd.conf"
        try "log_level=warning\n".write(toFile: config, atomically: false, encoding: .utf8)
        // A junk journal makes timerd move it aside with a WARNING line (Journal.swift); with no
        // snapshot beside it the state counts as incomplete, so the start needs --accept-state-loss
        // (docs/durability.md), as in LogFormatTests.
        #expect(mkdir(harness.stateDirectory, 0o700) == 0)
        try "not a timerd journal\n".write(
            toFile: harness.stateDirectory + "/journal", atomically: false, encoding: .utf8)
        try harness.startDaemon(extraArguments: ["--config", config, "--accept-state-loss"])
        #expect(harness.ctl(["start", "25m", "--name", "tea"]).status == 0)

        let quiet = harness.log()
        #expect(quiet.contains("WARNING: \(harness.stateDirectory)/journal: "), "\(quiet)")
        // Info lines of Daemon.swift and Daemon+EventLoop.swift: "listening on …", "loaded …", and
        // one per event, "… (uid N)".
        #expect(
            !quiet.contains("listening on") && !quiet.contains("loaded 0 live") && !quiet.contains("(uid "), "\(quiet)")

        try "log_level=info\n".write(toFile: config, atomically: false, encoding: .utf8)
        let reload = harness.ctl(["reload"])
        #expect(reload.status == 0, "\(reload)")
        #expect(harness.ctl(["stop", "tea"]).status == 0)
        let loud = harness.log()
        #expect(loud.contains("timerd: reloaded (uid \(getuid())): \(config)"), "\(loud)")
        #expect(loud.contains("(uid \(getuid()))\n") || loud.contains("(uid \(getuid()))"), "\(loud)")
        #expect(
            loud.split(separator: "\n").filter { $0.contains("(uid ") && !$0.contains("reloaded") }.count >= 1,
            "\(loud)")
        #expect(harness.stopDaemon() == 0)
        #expect(harness.log().contains("timerd: stopped"))
    }
}
