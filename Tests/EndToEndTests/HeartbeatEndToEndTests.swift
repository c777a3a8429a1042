import Foundation
import Glibc
import Testing

/// Heartbeat timers through the real binaries: `timerctl start DURATION --heartbeat`, `timerctl beat`,
/// the alert when the beats stop, and a beat's durability across a SIGKILL (docs/durability.md).
/// Sleeps are real (the daemon counts on the boot-time clock), with bounds of a second or more.
@Suite("Heartbeat timers end to end", .tags(.endToEnd))
struct HeartbeatEndToEndTests {
    private struct Heartbeat: Decodable {
        var beatCount: Int
        var lastBeatAt: String?
    }

    private struct Timer: Decodable {
        var id: String
        var state: String
        var remaining: Double
        var endsAt: String?
        var endedAt: String?
        var missed: Bool?
        var heartbeat: Heartbeat?
    }

    /// An ISO 8601 instant with milliseconds, as timerd writes them.
    private static func instant(_ text: String?) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return text.flatMap { formatter.date(from: $0) }
    }

    /// The file's text once `isDone` accepts it, or what it holds after `timeout` seconds.
    private static func contents(of path: String, timeout: Double = 10, until isDone: (String) -> Bool) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        while Date() < deadline {
            text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if isDone(text) { return text }
            usleep(20_000)
        }
        return text
    }

    @Test(
        "a 3 s heartbeat beaten every second for 5 s keeps running; when the beats stop it finishes and alerts",
        arguments: TestBackend.available)
    func beatsThenAlert(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let alerts = harness.directory + "/alerts.txt"
        let action = "echo \"$TIMER_NAME $TIMER_EVENT\" >> '\(alerts)'"
        let started = harness.ctl(["start", "3s", "--heartbeat", "--name", "svc", "--exec", action])
        #expect(started.status == 0 && started.stdout == "started 1 \"svc\": heartbeat 3s\n", "\(started)")
        for second in 1...5 {
            usleep(1_000_000)
            let beat = harness.ctl(["beat", "svc"])
            // Each beat re-arms the whole 3 s: 0:00:03 left, counted.
            #expect(beat.status == 0 && beat.stdout == "beat 1 \"svc\": 0:00:03 left (beat \(second))\n", "\(beat)")
        }
        // 5 s in, longer than the duration: still running, 5 beats, nothing ran.
        let live = try harness.ctlJSON(["status", "svc"], as: [Timer].self)
        #expect(live.first?.state == "running" && live.first?.heartbeat?.beatCount == 5)
        #expect(!FileManager.default.fileExists(atPath: alerts))
        // No more beats: 3 s after the last it finishes and the alert runs, once.
        #expect(harness.ctl(["wait", "svc"]).status == 0)
        #expect(Self.contents(of: alerts, until: { !$0.isEmpty }) == "svc finished\n")
        let ended = try harness.ctlJSON(["status", "svc"], as: [Timer].self)
        #expect(ended.first?.state == "finished" && ended.first?.missed == nil)
        // A late beat is refused: the alert has run.
        let late = harness.ctl(["beat", "svc"])
        #expect(late.status == 1)
        #expect(
            late.stderr
                == "Error: cannot beat timer 1 (\"svc\"): it has finished; only a running or paused heartbeat timer "
                + "takes a beat; once it has ended, its alert has run: 'timerctl restart' watches again\n")
    }

    @Test(
        "beat on both backends: ordinary refused, paused resumed with a beat event, restart counts afresh, stopped refused",
        arguments: TestBackend.available)
    func beatRules(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let subscriber = try RawClient(path: harness.socketPath)
        let subscribed = try subscriber.request(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe","params":{"events":["beat"]}}"#)
        #expect(subscribed["result"] != nil, "\(subscribed)")

        #expect(harness.ctl(["start", "60s", "--name", "plain"]).status == 0)
        let plain = harness.ctl(["beat", "plain"])
        // CountdownError.notAHeartbeat's text, as timerctl prints a -32002.
        #expect(plain.status == 1)
        #expect(
            plain.stderr
                == "Error: cannot beat timer 1 (\"plain\"): it is not a heartbeat timer; beats re-arm timers started "
                + "with 'timerctl start DURATION --heartbeat' (use extend or restart for other timers)\n")

        let started = harness.ctl(["start", "60s", "--heartbeat", "--name", "hb"])
        #expect(started.status == 0 && started.stdout == "started 2 \"hb\": heartbeat 1m\n", "\(started)")
        #expect(harness.ctl(["pause", "hb"]).status == 0)
        // A beat resumes a paused heartbeat timer with its whole 60 s (0:01:00 rounds the few
        // milliseconds of the call up, as status does).
        let beat = harness.ctl(["beat", "hb"])
        #expect(beat.status == 0 && beat.stdout == "beat 2 \"hb\": 0:01:00 left (beat 1)\n", "\(beat)")
        let line = try #require(subscriber.readLine(timeout: 10))
        let params = try #require(try JSONObject.parse(line)["params"] as? [String: Any])
        let eventTimer = try #require(params["timer"] as? [String: Any])
        let eventBeats = try #require(eventTimer["heartbeat"] as? [String: Any])
        #expect(params["event"] as? String == "beat" && eventTimer["id"] as? String == "2", "\(line)")
        #expect(eventTimer["state"] as? String == "running" && eventBeats["beatCount"] as? Int == 1, "\(line)")
        let live = try #require(try harness.ctlJSON(["status", "hb"], as: [Timer].self).first)
        #expect(live.state == "running" && live.heartbeat?.beatCount == 1)
        #expect(live.heartbeat?.lastBeatAt != nil && live.heartbeat?.lastBeatAt == eventBeats["lastBeatAt"] as? String)

        // restart watches afresh: no beats, no last beat.
        #expect(harness.ctl(["restart", "hb"]).status == 0)
        let restarted = try #require(try harness.ctlJSON(["status", "hb"], as: [Timer].self).first)
        #expect(restarted.state == "running" && restarted.heartbeat?.beatCount == 0)
        #expect(restarted.heartbeat?.lastBeatAt == nil)

        #expect(harness.ctl(["stop", "hb"]).status == 0)
        let stopped = harness.ctl(["beat", "hb"])
        #expect(stopped.status == 1)
        #expect(
            stopped.stderr
                == "Error: cannot beat timer 2 (\"hb\"): it was stopped; only a running or paused heartbeat timer "
                + "takes a beat; once it has ended, its alert has run: 'timerctl restart' watches again\n")
    }

    @Test("SIGKILL after an acknowledged beat: the restarted timerd keeps the beat's deadline and finishes then")
    func beatSurvivesSigkill() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let alerts = harness.directory + "/alerts.txt"
        let started = try harness.ctlJSON(
            ["start", "3s", "--heartbeat", "--name", "svc", "--exec", "echo \"$TIMER_EVENT\" >> '\(alerts)'"],
            as: Timer.self)
        let startEnd = try #require(Self.instant(started.endsAt))
        usleep(1_500_000)
        let beat = try harness.ctlJSON(["beat", "svc"], as: Timer.self)
        let beatEnd = try #require(Self.instant(beat.endsAt))
        // The beat moved the end by the 1.5 s slept (and the call's own time).
        #expect(beatEnd.timeIntervalSince(startEnd) >= 1.5)
        #expect(harness.stopDaemon(signal: SIGKILL) == SIGKILL)

        try harness.startDaemon()
        let restored = try #require(try harness.ctlJSON(["status", "svc"], as: [Timer].self).first)
        #expect(restored.state == "running")
        #expect(restored.heartbeat?.beatCount == 1 && restored.heartbeat?.lastBeatAt == beat.heartbeat?.lastBeatAt)
        // The deadline is the beat's (to the millisecond the instants are written with, and a few of
        // rounding between the two clocks), not the start's 1.5 s earlier.
        let restoredEnd = try #require(Self.instant(restored.endsAt))
        #expect(abs(restoredEnd.timeIntervalSince(beatEnd)) < 0.05, "\(restoredEnd) vs \(beatEnd)")
        #expect(harness.ctl(["wait", "svc"]).status == 0)
        let ended = try #require(try harness.ctlJSON(["status", "svc"], as: [Timer].self).first)
        let endedAt = try #require(Self.instant(ended.endedAt))
        #expect(ended.state == "finished" && ended.missed == nil)
        #expect(abs(endedAt.timeIntervalSince(beatEnd)) < 0.05, "\(endedAt) vs \(beatEnd)")
        #expect(Self.contents(of: alerts, until: { !$0.isEmpty }) == "finished\n")
    }
}
