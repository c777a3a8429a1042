import Foundation
import Glibc
import Testing

/// `timerctl start DURATION... --loops N` through the real binaries on both backends: the group run N
/// times, `next` across a loop's end, the end after every loop, and a SIGKILL inside a loop. Sleeps are
/// real (the daemon counts on the boot-time clock), with bounds of a second or more.
@Suite("Loops of a group end to end", .tags(.endToEnd))
struct LoopsEndToEndTests {
    private struct Child: Decodable {
        var duration: Double
        var state: String
    }

    private struct Timer: Decodable {
        var id: String
        var state: String
        var duration: Double
        var currentChild: Int?
        var children: [Child]?
        var createdAt: String?
        var endedAt: String?
    }

    /// An ISO 8601 instant with milliseconds, as timerd writes them.
    private static func instant(_ text: String?) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return text.flatMap { formatter.date(from: $0) }
    }

    @Test(
        "25m 5m --loops 3 is 6 steps; next crosses into the second loop; refusals name the limit",
        arguments: TestBackend.available)
    func loopsAndNext(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let started = harness.ctl(["start", "25m", "5m", "--loops", "3", "--name", "pomo"])
        #expect(started.status == 0 && started.stdout == "started 1 \"pomo\": 25m + 5m + 25m + 5m + 25m + 5m\n")
        let timer = try #require(try harness.ctlJSON(["status", "pomo"], as: [Timer].self).first)
        // 3 × (1,500 s + 300 s) = 5,400 s, the children alternating as given.
        #expect(timer.duration == 5_400)
        #expect(timer.children?.map(\.duration) == [1_500, 300, 1_500, 300, 1_500, 300])
        // Two `next`s: past the first loop's 25m and 5m, into the second loop's 25m (child 2): 5,400 − 1,800 s = 1:00:00 left.
        #expect(harness.ctl(["next", "pomo"]).stdout.hasSuffix("step 2/6 (5m)\n"))
        let second = harness.ctl(["next", "pomo"])
        #expect(second.stdout == "skipped to the next step of 1 \"pomo\": 1:00:00 left, step 3/6 (25m)\n", "\(second)")
        // 51 loops of 2 durations are 102 steps, over TimerLimits.maximumGroupSize (100): timerd's -32602.
        let over = harness.ctl(["start", "1s", "1s", "--loops", "51"])
        #expect(over.status == 64)
        #expect(over.stderr.hasPrefix("Error: 51 loops of 2 durations are 102 steps; a timer takes at most 100\n"))
        let zero = harness.ctl(["start", "1s", "--loops", "0"])
        #expect(zero.status == 64 && zero.stderr.hasPrefix("Error: --loops must be a whole number of loops, 1 or more"))
        let heartbeat = harness.ctl(["start", "1s", "--heartbeat", "--loops", "2"])
        #expect(
            heartbeat.status == 64 && heartbeat.stderr.hasPrefix("Error: option '--loops' goes with 'start DURATION"))
        // Only the first start made a timer.
        #expect(try harness.ctlJSON(["status", "--all"], as: [Timer].self).map(\.id) == ["1"])
    }

    @Test(
        "1s 2s --loops 2 killed with SIGKILL inside the first loop resumes and ends once, 6 s after its start",
        arguments: TestBackend.available)
    func killInsideALoop(backend: TestBackend) throws {
        let harness = try Harness()
        let arguments = try backend.daemonArguments()
        try harness.startDaemon(extraArguments: arguments)
        let started = harness.ctl(["start", "1s", "2s", "--loops", "2", "--name", "laps"])
        #expect(started.status == 0, "\(started)")
        // 1.5 s in: the first loop's 2 s step (child 1) runs.
        usleep(1_500_000)
        #expect(try harness.ctlJSON(["status", "laps"], as: [Timer].self).first?.currentChild == 1)
        #expect(harness.stopDaemon(signal: SIGKILL) == SIGKILL)
        try harness.startDaemon(extraArguments: arguments)
        let resumed = try #require(try harness.ctlJSON(["status", "laps"], as: [Timer].self).first)
        #expect(resumed.state == "running" && resumed.duration == 6)
        #expect(harness.ctl(["wait", "laps"]).status == 0)
        let ended = try #require(try harness.ctlJSON(["status", "laps"], as: [Timer].self).first)
        #expect(ended.state == "finished")
        #expect(ended.children?.map(\.state) == ["finished", "finished", "finished", "finished"])
        // The boot-time clock ran on while timerd was down: the group still ends 6 s after its start
        // (wall clock, with a generous bound for a loaded machine).
        if let created = Self.instant(ended.createdAt), let end = Self.instant(ended.endedAt) {
            let length = end.timeIntervalSince(created)
            #expect(length >= 5.99 && length < 8, "ended \(length) s after its start")
        } else {
            Issue.record("createdAt or endedAt missing: \(ended)")
        }
    }
}
