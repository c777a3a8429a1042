import Foundation
import Glibc
import Testing

/// Events and other users and other clients (docs/fairness.md): a second uid
/// subscribed to `all` hears nothing of the first uid's timers, and a subscriber that never reads
/// does not make timers fire late for anyone.
@Suite("Events: per-user isolation and a stalled subscriber", .serialized, .tags(.endToEnd))
struct EventFairnessEndToEndTests {
    /// The lines a child process writes to its stdout, read with a time-out.
    private final class ChildLines {
        let process = Process()
        private let output = Pipe()
        private var buffer: [UInt8] = []

        init(_ executable: String, _ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// The next line, or `nil` after `timeout` seconds or at end of output.
        func readLine(timeout: Double = 10) -> String? {
            let fd = output.fileHandleForReading.fileDescriptor
            let deadline = Date().addingTimeInterval(timeout)
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                if let newline = buffer.firstIndex(of: 10) {
                    defer { buffer.removeFirst(newline + 1) }
                    return String(decoding: buffer[..<newline], as: UTF8.self)
                }
                let left = deadline.timeIntervalSinceNow
                if left <= 0 { return nil }
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, Int32(left * 1_000) + 1) <= 0 { continue }
                let count = read(fd, &chunk, chunk.count)
                if count <= 0 { return nil }
                buffer += chunk[0..<count]
            }
        }

        /// Ends the child and waits for it. SIGKILL: the test runner blocks SIGTERM, and a child
        /// started by `Process` inherits that mask, so `terminate()` would not end it.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    private func asUser(_ uid: Int, _ harness: Harness, _ arguments: [String]) -> Harness.Run {
        Harness.run(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", Harness.timerctl, "--socket", harness.socketPath]
                + arguments)
    }

    /// Needs root (CI runs as root) to run clients as two other uids with `setpriv`, as
    /// IsolationTests does.
    @Test("a second uid subscribed to all receives none of the first uid's events", .enabled(if: getuid() == 0))
    func isolation() throws {
        let harness = try Harness()
        chmod(harness.directory, 0o711)
        try harness.startDaemon(extraArguments: ["--socket-mode", "0666"])
        let alice = 64_121
        let bob = 64_122
        let root = try RawClient(path: harness.socketPath)
        _ = try root.subscribe()
        let bobEvents = try ChildLines(
            "/usr/bin/setpriv",
            ["--reuid=\(bob)", "--regid=\(bob)", "--clear-groups", Harness.timerctl, "--socket", harness.socketPath]
                + ["events", "--json"])
        // `timerctl events` prints nothing until an event: wait until its subscription is in place
        // (bob's own marker timer is its first line), then let alice act, then bob again.
        var bobLines: [String] = []
        let deadline = Date().addingTimeInterval(10)
        var readyTimers = 0
        while bobLines.isEmpty && Date() < deadline {
            #expect(asUser(bob, harness, ["start", "1h", "--name", "ready-\(readyTimers)"]).status == 0)
            readyTimers += 1
            if let line = bobEvents.readLine(timeout: 0.5) { bobLines.append(line) }
        }
        try #require(bobLines.count == 1)
        #expect(asUser(alice, harness, ["start", "1h", "--name", "tea"]).status == 0)
        #expect(asUser(alice, harness, ["pause", "tea"]).status == 0)
        #expect(asUser(alice, harness, ["stop", "tea"]).status == 0)
        #expect(asUser(bob, harness, ["start", "2h", "--name", "marker"]).status == 0)
        #expect(asUser(bob, harness, ["stop", "marker"]).status == 0)
        // Events reach each subscriber in seq order, so once bob has his marker's stop, anything
        // of alice's (which came before it) would have been printed already.
        while let line = bobEvents.readLine(timeout: 10) {
            bobLines.append(line)
            if line.contains(#""event":"stopped""#) { break }
        }
        bobEvents.stop()
        let bobSeen = bobLines.compactMap(Notification.init)
        let names = bobSeen.map { ($0.params["timer"] as? [String: Any])?["name"] as? String ?? "" }
        // Only bob's own timers: his ready-N starts, then his marker's start and stop.
        #expect(names.allSatisfy { $0.hasPrefix("ready-") || $0 == "marker" }, "\(names)")
        #expect(Array(names.suffix(2)) == ["marker", "marker"])
        #expect(bobSeen.suffix(2).map(\.event) == ["started", "stopped"])
        #expect(!bobLines.joined().contains(#""name":"tea""#))
        // root, subscribed to all, heard everyone: bob's ready timers, alice's three, bob's two.
        var rootSeen: [Notification] = []
        while let notification = root.nextNotification(timeout: 5) {
            rootSeen.append(notification)
            if notification.event == "stopped",
                (notification.params["timer"] as? [String: Any])?["name"] as? String == "marker"
            {
                break
            }
        }
        #expect(rootSeen.suffix(5).map(\.event) == ["started", "paused", "stopped", "started", "stopped"])
        #expect(
            rootSeen.suffix(5).map { ($0.params["timer"] as? [String: Any])?["name"] as? String }
                == ["tea", "tea", "tea", "marker", "marker"])
        #expect(harness.stopDaemon() == 0)
    }

    /// Lateness of 1,000 timers that end within one second, from `daemon.stats`, with or without a
    /// subscriber to every event that never reads. Before the timers, 1,500 others are started and
    /// stopped (3,000 events, about 1.8 MB of notifications) so that, in the stalled case, the
    /// subscriber's socket and its 1 MiB backlog are full and its backlog is being dropped for
    /// gaps while the timers fire; the run without does the same work.
    private func lateness(stalled: Bool) throws -> Double {
        let harness = try Harness()
        try harness.startDaemon()
        let stalledClient = try RawClient(path: harness.socketPath)
        if stalled { _ = try stalledClient.subscribe() }
        let changer = try RawClient(path: harness.socketPath)
        let start = #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[3600]}}"#
        EventsEndToEndTests.pipeline(changer, Array(repeating: start, count: 1_500))
        EventsEndToEndTests.pipeline(
            changer, (1...1_500).map { #"{"jsonrpc":"2.0","id":1,"method":"timer.stop","params":{"timer":\#($0)}}"# })
        EventsEndToEndTests.pipeline(
            changer,
            (0..<1_000).map { index in
                #"{"jsonrpc":"2.0","id":\#(index),"method":"timer.start","params":{"durations":[\#(0.5 + Double(index) / 1_000)]}}"#
            })
        let deadline = Date().addingTimeInterval(30)
        var summary: [String: Any] = [:]
        while Date() < deadline {
            usleep(200_000)
            let stats = try changer.request(#"{"jsonrpc":"2.0","id":1,"method":"daemon.stats"}"#)
            let result = stats["result"] as? [String: Any] ?? [:]
            if result["firedTimers"] as? Int == 1_000 {
                summary = result["latenessMicroseconds"] as? [String: Any] ?? [:]
                break
            }
        }
        if stalled { #expect(harness.log().contains("does not read its events")) }
        #expect(harness.stopDaemon() == 0)
        return try #require(summary["p50"] as? Double)
    }

    /// The daemon's median lateness (p50 of `daemon.stats`, microseconds) in three runs without
    /// and three with a stalled subscriber, interleaved so that the load of a shared machine falls
    /// on both alike; the medians of the three are compared (one run's p50 varied 40-200 µs here
    /// under other builds).
    @Test("a subscriber that never reads does not delay firing: lateness within 2x (or 5 ms) of the figure without")
    func stalledSubscriber() throws {
        var without: [Double] = []
        var with: [Double] = []
        for _ in 0..<3 {
            without.append(try lateness(stalled: false))
            with.append(try lateness(stalled: true))
        }
        let withoutMedian = percentile(without, 50)
        let withMedian = percentile(with, 50)
        print(
            "firing lateness p50 of 1,000 timers (daemon.stats, 3 runs each): without a stalled subscriber "
                + "\(without) µs (median \(withoutMedian)); with one \(with) µs (median \(withMedian))")
        // A loop that waited on the stalled socket would hold firing for the whole backlog (seconds);
        // what the extra work of dropping the backlog costs on a loaded 2-core machine is scheduling
        // noise of a few milliseconds (seen: 1.0 ms without, 2.9 ms with, at a load average of 12).
        // So: within 2x, or within 5 ms of the figure without, whichever is larger.
        #expect(withMedian <= max(2 * withoutMedian, withoutMedian + 5_000))
    }
}
