import Foundation
import Glibc
import Testing

/// The real timerd's stderr: journal priorities when `JOURNAL_STREAM` names its stderr, ISO 8601
/// times otherwise (sd-daemon(3) "Log levels", systemd.exec(5) `$JOURNAL_STREAM`).
@Suite("timerd's log format on stderr")
struct LogFormatTests {
    /// What one run wrote: a daemon that recovers from a junk journal (a warning), a second daemon
    /// refused on the same socket (an error), then a SIGTERM (information).
    struct Session {
        var log: String
        var journal: String
        var socket: String
        var startedAt: Date
        var endedAt: Date
    }

    /// Runs that session with stderr a file; `journalStream` computes `JOURNAL_STREAM` (or `nil`
    /// for unset) from the file's device and inode.
    func session(journalStream: (stat) -> String?) throws -> Session {
        let harness = try Harness()
        let state = harness.directory + "/state"
        #expect(mkdir(state, 0o700) == 0)
        let journal = state + "/journal"
        try "not a timerd journal\n".write(toFile: journal, atomically: false, encoding: .utf8)
        let logPath = harness.directory + "/stderr.log"
        #expect(FileManager.default.createFile(atPath: logPath, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: logPath))
        var info = stat()
        #expect(fstat(handle.fileDescriptor, &info) == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["JOURNAL_STREAM"] = journalStream(info)

        func daemon(_ stateDirectory: String, _ extraArguments: [String] = []) -> Process {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Harness.timerd)
            process.arguments = ["--socket", harness.socketPath, "--state-dir", stateDirectory] + extraArguments
            process.environment = environment
            process.standardError = handle
            process.standardOutput = FileHandle.nullDevice
            return process
        }
        // Milliseconds are truncated in the log, so the window starts at a whole millisecond.
        let startedAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded(.down) / 1000)
        // A junk journal and no snapshot: saved changes may be missing, so timerd starts only when
        // the loss is accepted (without it, exit 65).
        let first = daemon(state, ["--accept-state-loss"])
        try first.run()
        defer {
            if first.isRunning {
                kill(first.processIdentifier, SIGKILL)
                first.waitUntilExit()
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while harness.ctl(["ping"]).status != 0 && Date() < deadline && first.isRunning { usleep(20_000) }
        let second = daemon(harness.directory + "/state2")
        try second.run()
        second.waitUntilExit()
        #expect(second.terminationStatus == 1)
        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        let endedAt = Date()
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        return Session(log: log, journal: journal, socket: harness.socketPath, startedAt: startedAt, endedAt: endedAt)
    }

    @Test("With JOURNAL_STREAM naming stderr, each line starts with <3>, <4> or <6>")
    func journal() throws {
        let run = try session { "\($0.st_dev):\($0.st_ino)" }
        let lines = run.log.split(separator: "\n")
        // The lines and their levels come from Daemon.swift, Journal.swift and DaemonCommand.swift.
        #expect(
            lines.contains { $0.hasPrefix("<4>WARNING: \(run.journal): ") && $0.contains("moved it to") }, "\(run.log)")
        #expect(lines.contains("<6>timerd: loaded 0 live timers from \(run.journal.dropLast("/journal".count))"))
        #expect(lines.contains { $0.hasPrefix("<6>timerd: listening on \(run.socket) (pid ") }, "\(run.log)")
        #expect(
            lines.contains("<3>timerd: cannot start: another timerd is already listening on \(run.socket)"),
            "\(run.log)")
        #expect(lines.contains("<6>timerd: signal 15: stopping"), "\(run.log)")
        #expect(lines.contains("<6>timerd: stopped"), "\(run.log)")
        #expect(lines.allSatisfy { $0.hasPrefix("<3>") || $0.hasPrefix("<4>") || $0.hasPrefix("<6>") }, "\(run.log)")
    }

    @Test(
        "Without a matching JOURNAL_STREAM, each line starts with an ISO 8601 UTC time with milliseconds",
        arguments: [false, true])
    func timestamps(staleVariable: Bool) throws {
        // A stale variable (another inode, as a child whose stderr was redirected inherits) must not count.
        let run = try session { staleVariable ? "\($0.st_dev):\($0.st_ino + 1)" : nil }
        let lines = run.log.split(separator: "\n")
        #expect(lines.count >= 6, "\(run.log)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for line in lines {
            let stamp = line.prefix(24)
            // 2026-12-01T05:40:00.123Z: 24 characters, then a space.
            #expect(stamp.count == 24 && stamp.hasSuffix("Z") && line.dropFirst(24).hasPrefix(" "), "\(line)")
            let time = try #require(formatter.date(from: String(stamp)), "\(line)")
            #expect(time >= run.startedAt && time <= run.endedAt, "\(line) outside \(run.startedAt)...\(run.endedAt)")
        }
        #expect(lines.contains { $0.dropFirst(25).hasPrefix("WARNING: \(run.journal): ") }, "\(run.log)")
        #expect(
            lines.contains {
                $0.dropFirst(25) == "timerd: cannot start: another timerd is already listening on \(run.socket)"
            })
        #expect(lines.contains { $0.dropFirst(25) == "timerd: stopped" }, "\(run.log)")
    }
}
