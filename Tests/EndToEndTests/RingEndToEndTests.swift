import Foundation
import Glibc
import Testing

/// Alarms through the real binaries (`timerctl start … --ring --warn`, `ack`, `snooze`): timerd
/// reads short rule figures from a timerd.conf (ring_interval, ring_limit, snooze) so that a test
/// runs in seconds; each ring's `--notify` notification goes to a stand-in `notify-send` that
/// appends its arguments to a file, which is how the tests count rings, also across a SIGKILL.
@Suite("Alarms end to end: ringing, snooze, ack, warning, ring limit", .tags(.endToEnd))
struct RingEndToEndTests {
    /// Writes a timerd.conf and a stand-in `notify-send` into the harness's directory.
    ///
    /// - Returns: timerd's `--config` arguments, the environment for timerctl (its `PATH` first
    ///   finds the stand-in, which the action captures), and the file the stand-in appends to.
    private static func setUp(_ harness: Harness, config: String) throws -> (
        arguments: [String], environment: [String: String], notifications: String
    ) {
        let configPath = harness.directory + "/timerd.conf"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let bin = harness.directory + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let notifications = harness.directory + "/notifications.txt"
        // The arguments after notify-send's own options, one line per notification.
        let script = "#!/bin/sh\nshift; [ \"$1\" = --urgency=critical ] && shift\necho \"$*\" >> '\(notifications)'\n"
        try script.write(toFile: bin + "/notify-send", atomically: true, encoding: .utf8)
        chmod(bin + "/notify-send", 0o755)
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return (["--config", configPath], environment, notifications)
    }

    /// The file's lines once `isDone` holds for them (or at the time-out, as they are).
    private static func lines(of path: String, timeout: Double = 20, until isDone: ([String]) -> Bool) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while Date() < deadline {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            lines = text.split(separator: "\n").map(String.init)
            if isDone(lines) { return lines }
            usleep(20_000)
        }
        return lines
    }

    /// The ring number a ringing notification names: 1 for `Timer tea is ringing`, N for `…, ring N`.
    private static func ringNumber(_ line: String) -> Int? {
        guard line.hasPrefix("Timer tea is ringing") else { return nil }
        guard let range = line.range(of: ", ring ") else { return 1 }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    @Test("rings every 4 s, a SIGKILL while ringing resumes it with no ring sent twice; snooze, then ack")
    func ringSnoozeAck() throws {
        let harness = try Harness()
        let (arguments, environment, notifications) = try Self.setUp(
            harness, config: "ring_interval=4s\nring_limit=60s\nsnooze=3s\n")
        try harness.startDaemon(extraArguments: arguments)
        let started = harness.ctl(["start", "1s", "--name", "tea", "--ring", "--notify"], environment: environment)
        #expect(started.status == 0 && started.stdout == "started 1 \"tea\": 1s, rings\n", "\(started)")
        // Rings 1 and 2 (at 1 s and 5 s), each a critical notification naming ack and snooze. (4 s
        // apart: the checks between two rings hold on a loaded machine.)
        let before = Self.lines(of: notifications) { $0.count >= 2 }
        #expect(
            before == [
                "Timer tea is ringing 1s timer: timerctl ack 1, or timerctl snooze 1",
                "Timer tea is ringing, ring 2 1s timer: timerctl ack 1, or timerctl snooze 1",
            ])
        let ringing = harness.ctl(["status", "tea"])
        #expect(ringing.stdout.contains("ringing  0:00:00") && ringing.stdout.contains("ringing #2"), "\(ringing)")
        // Killed while ringing, down for 3 s; the restart goes on ringing from ring 3.
        harness.stopDaemon(signal: SIGKILL)
        usleep(3_000_000)
        try harness.startDaemon(extraArguments: arguments)
        let after = Self.lines(of: notifications) { $0.count >= 4 }
        let numbers = after.compactMap(Self.ringNumber)
        // Every line a ring; numbers strictly increasing from 1: none sent twice (the rings due
        // while timerd was down are one ring, numbered as the latest of them).
        #expect(numbers.count == after.count && numbers.first == 1, "\(after)")
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "\(after)")
        #expect(after.count >= 4 && numbers[1] == 2, "\(after)")
        let snoozed = harness.ctl(["snooze", "tea"])
        #expect(snoozed.status == 0 && snoozed.stdout == "snoozed 1 \"tea\": rings again in 0:00:03\n", "\(snoozed)")
        let running = try harness.ctlJSON(["status", "tea"], as: [RingTimer].self)
        #expect(running.first?.state == "running" && running.first?.alarm?.snoozeCount == 1)
        // 3 s later it rings again, from ring 1; acknowledged at once (the next ring is 4 s away).
        let count = Self.lines(of: notifications) { _ in true }.count
        let again = Self.lines(of: notifications) { $0.count > count }
        #expect(again.last == "Timer tea is ringing 4s timer: timerctl ack 1, or timerctl snooze 1", "\(again)")
        let acked = harness.ctl(["ack", "tea"])
        #expect(acked.status == 0 && acked.stdout == "acknowledged 1 \"tea\": it finished after 1 ring\n", "\(acked)")
        let ended = try harness.ctlJSON(["status", "tea"], as: [RingTimer].self)
        #expect(ended.first?.state == "finished" && ended.first?.alarm?.outcome == "acknowledged")
        // Nothing rings any more; ack again is refused (exit 1) with the engine's words.
        usleep(2_500_000)
        #expect(Self.lines(of: notifications) { _ in true }.count == count + 1)
        let twice = harness.ctl(["ack", "tea"])
        #expect(
            twice.status == 1
                && twice.stderr
                    == "Error: cannot ack timer 1 (\"tea\"): it has finished; only a ringing timer (started with --ring) "
                    + "can be acknowledged\n",
            "\(twice)")
        #expect(harness.stopDaemon() == 0)
    }

    @Test("--warn-each on 3s 3s: a warning event and notification 1 s before each step's end, then the end")
    func warnEachStep() throws {
        let harness = try Harness()
        let (arguments, environment, notifications) = try Self.setUp(harness, config: "")
        try harness.startDaemon(extraArguments: arguments)
        // `timerctl events` follows the warnings as they come (one line per event).
        let eventsPath = harness.directory + "/events.txt"
        let follower = Process()
        follower.executableURL = URL(fileURLWithPath: Harness.timerctl)
        follower.arguments = ["--socket", harness.socketPath, "events", "--json"]
        #expect(FileManager.default.createFile(atPath: eventsPath, contents: nil))
        follower.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: eventsPath))
        try follower.run()
        defer {
            follower.terminate()
            follower.waitUntilExit()
        }
        usleep(300_000)
        let started = harness.ctl(
            ["start", "3s", "3s", "--name", "tea", "--warn", "1s", "--warn-each", "--notify"], environment: environment)
        #expect(
            started.status == 0
                && started.stdout == "started 1 \"tea\": 3s + 3s, warns 1s before the end of each step\n",
            "\(started)")
        // The warnings at 2 s and 5 s (1 s before the steps' ends at 3 s and 6 s), the end at 6 s.
        #expect(harness.ctl(["wait", "tea"]).status == 0)
        let lines = Self.lines(of: notifications) { $0.count >= 3 }
        #expect(
            lines == [
                "Timer tea step 1 of 2 ends in 1s 6s timer (timerctl status 1)",
                "Timer tea step 2 of 2 ends in 1s 6s timer (timerctl status 1)",
                "Timer tea finished 6s timer (timerctl status 1)",
            ])
        let events = Self.lines(of: eventsPath) { $0.filter { $0.contains(#""event":"warning""#) }.count >= 2 }
            .filter { $0.contains(#""event":"warning""#) }
        #expect(events.count == 2)
        #expect(
            events.first?.contains(#""warnedSteps":1"#) == true && events.first?.contains(#""currentChild":0"#) == true)
        #expect(
            events.last?.contains(#""warnedSteps":2"#) == true && events.last?.contains(#""currentChild":1"#) == true)
        let status = harness.ctl(["status", "--all"])
        #expect(status.stdout.hasSuffix("100%  step 2/2 (3s)  warned\n"), "\(status)")
        #expect(harness.stopDaemon() == 0)
    }

    @Test("--warn sends one warning notification; wait on an unanswered alarm returns at its ring limit, exit 0")
    func warningAndLimit() throws {
        let harness = try Harness()
        let (arguments, environment, notifications) = try Self.setUp(
            harness, config: "ring_interval=1s\nring_limit=3s\n")
        try harness.startDaemon(extraArguments: arguments)
        let started = harness.ctl(
            ["start", "2s", "--name", "eggs", "--ring", "--warn", "1s", "--notify"], environment: environment)
        #expect(
            started.status == 0 && started.stdout == "started 1 \"eggs\": 2s, rings, warns 1s before the end\n",
            "\(started)")
        // Blocks until the ringing gives up: the warning at 1 s, rings at 2, 3 and 4 s, the limit at 5 s.
        let waited = harness.ctl(["wait", "eggs"])
        #expect(waited.status == 0 && waited.stdout == "1 \"eggs\" finished, unanswered\n", "\(waited)")
        let lines = Self.lines(of: notifications) { $0.count >= 4 }
        #expect(
            lines == [
                "Timer eggs ends in 1s 2s timer (timerctl status 1)",
                "Timer eggs is ringing 2s timer: timerctl ack 1, or timerctl snooze 1",
                "Timer eggs is ringing, ring 2 2s timer: timerctl ack 1, or timerctl snooze 1",
                "Timer eggs is ringing, ring 3 2s timer: timerctl ack 1, or timerctl snooze 1",
            ])
        let status = harness.ctl(["status", "--all"])
        #expect(status.stdout.contains("finished  0:00:00"), "\(status)")
        #expect(status.stdout.hasSuffix("100%  unanswered after 3 rings\n"), "\(status)")
        #expect(harness.log().contains("timer 1 (\"eggs\") finished: unanswered after 3 rings"))
        #expect(harness.stopDaemon() == 0)
    }

    @Test("usage errors before any daemon: --ring with --heartbeat, --warn with a bad duration, snooze arity")
    func usageErrors() throws {
        let harness = try Harness()
        let cases: [([String], String)] = [
            (
                ["start", "5m", "--heartbeat", "--ring"],
                "Error: option '--ring' goes with 'start DURATION...' or 'start --at TIME' (not --heartbeat, --on, "
                    + "--every)\nSee 'timerctl start --help'.\n"
            ),
            (
                ["start", "5m", "--warn", "soon"],
                "Error: --warn: invalid duration \"soon\": use a number with units (90s, 25m, 1h30m, 1.5h, "
                    + "\"1h 30min\"), H:MM[:SS] (01:30:00) or ISO 8601 (PT1H30M)\nSee 'timerctl start --help'.\n"
            ),
            (
                ["snooze", "tea", "5m", "x"],
                "Error: 'snooze' takes ID|NAME [DURATION]\nSee 'timerctl snooze --help'.\n"
            ),
            (["ack"], "Error: 'ack' takes exactly one ID or NAME\nSee 'timerctl ack --help'.\n"),
        ]
        for (arguments, expected) in cases {
            let run = harness.ctl(arguments, socket: false)
            #expect(run.status == 64 && run.stdout.isEmpty && run.stderr == expected, "\(arguments): \(run)")
        }
    }

    @Test("shared mode refuses --ring, --warn, ack and snooze with -32601 and says where to start alarms")
    func sharedRefuses() throws {
        guard TestBackend.available.contains(.shared) else {
            Issue.record("the PostgreSQL test cluster is needed (TIMERD_TEST_PG or scripts/pg-cluster)")
            return
        }
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try TestBackend.shared.daemonArguments())
        let tail =
            " is not available in shared mode (timerd --shared): the shared schema stores no ringing state and no "
            + "warning, so no host could ring, warn, acknowledge or snooze; start alarms (--ring, --warn) on a "
            + "one-host timerd with the file store (timerctl --socket /run/timerd/timerd.sock start … --ring)\n"
        let ring = harness.ctl(["start", "5m", "--ring"])
        #expect(ring.status == 1 && ring.stderr == "Error: \"ring\" of timer.start (--ring)" + tail, "\(ring)")
        let warn = harness.ctl(["start", "5m", "--warn", "1m"])
        #expect(warn.status == 1 && warn.stderr == "Error: \"warn\" of timer.start (--warn)" + tail, "\(warn)")
        let ack = harness.ctl(["ack", "tea"])
        #expect(ack.status == 1 && ack.stderr == "Error: timerctl ack" + tail, "\(ack)")
        let snooze = harness.ctl(["snooze", "tea", "5m"])
        #expect(snooze.status == 1 && snooze.stderr == "Error: timerctl snooze" + tail, "\(snooze)")
        #expect(harness.stopDaemon() == 0)
    }
}

/// The members of a timer these tests read from `--json`.
private struct RingTimer: Decodable {
    struct Alarm: Decodable {
        var ringCount: Int
        var snoozeCount: Int
        var outcome: String?
    }

    var state: String
    var alarm: Alarm?
}

/// A one-host timerd on the PostgreSQL store (`--store` without `--shared`): its schema's state
/// column has no ringing state, so it refuses `--ring` (and serves `--warn`).
@Suite("Alarms on the one-host PostgreSQL store", .tags(.endToEnd))
struct RingPostgresStoreEndToEndTests {
    @Test("--ring is refused with exit 64 and the reason; --warn starts")
    func ringRefused() throws {
        guard TestBackend.available.contains(.shared) else {
            Issue.record("the PostgreSQL test cluster is needed (TIMERD_TEST_PG or scripts/pg-cluster)")
            return
        }
        let harness = try Harness()
        // The shared backend's fresh schema, served by one host: its arguments without --shared.
        let arguments = try TestBackend.shared.daemonArguments().filter { $0 != "--shared" }
        try harness.startDaemon(extraArguments: arguments)
        let ring = harness.ctl(["start", "5m", "--ring"])
        #expect(
            ring.status == 64
                && ring.stderr
                    == "Error: ringing timers (\"ring\" of timer.start, timerctl start … --ring) are not available "
                    + "with the PostgreSQL store (timerd --store): its schema has no ringing state; start them on a "
                    + "timerd with the file store (the default, --state-dir)\nSee 'timerctl start --help'.\n",
            "\(ring)")
        let warn = harness.ctl(["start", "5m", "--warn", "1m"])
        #expect(warn.status == 0 && warn.stdout == "started 1: 5m, warns 1m before the end\n", "\(warn)")
        #expect(harness.stopDaemon() == 0)
    }
}
