import Foundation
import Glibc
import Testing

/// A notification as a test reads it: its method and params (docs/protocol.md, "Events").
struct Notification {
    var method: String
    var params: [String: Any]

    /// The event kind of a `timer.event`.
    var event: String? { params["event"] as? String }
    /// The sequence number of a `timer.event`.
    var seq: Int? { params["seq"] as? Int }
    /// The timer's id of a `timer.event`.
    var timerID: String? { (params["timer"] as? [String: Any])?["id"] as? String }

    /// Reads `line` as a notification; `nil` for a reply (it has an `id`).
    init?(_ line: String) {
        guard let object = try? JSONObject.parse(line), object["id"] == nil, let method = object["method"] as? String
        else { return nil }
        self.method = method
        params = object["params"] as? [String: Any] ?? [:]
    }
}

extension RawClient {
    /// The next notification, skipping replies, within `timeout` seconds.
    func nextNotification(timeout: Double = 10) -> Notification? {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let line = readLine(timeout: deadline.timeIntervalSinceNow) else { return nil }
            if let notification = Notification(line) { return notification }
        }
        return nil
    }

    /// Subscribes with `params` (JSON members) and returns the result's `seq`.
    func subscribe(_ params: String = "", id: Int = 1) throws -> Int {
        let reply = try request(
            #"{"jsonrpc":"2.0","id":\#(id),"method":"timer.subscribe","params":{\#(params)}}"#)
        guard let result = reply["result"] as? [String: Any], let seq = result["seq"] as? Int else {
            throw SystemFailure("timer.subscribe failed: \(reply)")
        }
        return seq
    }
}

/// The nearest-rank percentile `p` (0…100) of `samples`.
func percentile(_ samples: [Double], _ p: Double) -> Double {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[max(0, min(sorted.count - 1, rank - 1))]
}

/// Server-pushed events against the real daemon (docs/protocol.md):
/// order, kinds, consecutive numbers and latency; `afterSeq` replay, the ring gap,
/// and the slow-subscriber gap.
@Suite("Server-pushed events on a real timerd", .serialized, .tags(.endToEnd))
struct EventsEndToEndTests {
    /// A generous bound for one notification after its change on a loaded 2-core machine: the
    /// issue asks for 50 ms and for the figures to be reported, not asserted tightly.
    static let generousBound = 2.0

    @Test(
        "subscribe, then start/pause/resume/extend a group and let it step and finish: in order, numbered, prompt",
        arguments: TestBackend.available)
    func lifecycle(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let subscriber = try RawClient(path: harness.socketPath)
        let changer = try RawClient(path: harness.socketPath)
        let first = try subscriber.subscribe(#""timer":"all""#) + 1
        var latencies: [Double] = []
        /// Sends `request` on the changer and times the notification it causes.
        func change(_ request: String) throws -> Notification {
            let sent = Date()
            changer.send(request + "\n")
            let notification = try #require(subscriber.nextNotification())
            latencies.append(Date().timeIntervalSince(sent))
            _ = changer.readLine()  // its reply
            return notification
        }
        // Steps of 3 s: the start, pause, resume and extend must all come before the first step
        // ends, also in shared mode on a loaded machine (each a database transaction).
        let started = try change(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[3,3],"name":"g"}}"#)
        let paused = try change(#"{"jsonrpc":"2.0","id":2,"method":"timer.pause","params":{"timer":"g"}}"#)
        let resumed = try change(#"{"jsonrpc":"2.0","id":3,"method":"timer.resume","params":{"timer":"g"}}"#)
        // 0.2 s more for the running first step: kind "extended", `by` as applied (docs/protocol.md).
        let extended = try change(#"{"jsonrpc":"2.0","id":4,"method":"timer.extend","params":{"timer":"g","by":0.2}}"#)
        let step = try #require(subscriber.nextNotification())
        let stepLate = Date().timeIntervalSince(try #require(Self.date(step.params["at"])))
        let finished = try #require(subscriber.nextNotification())
        let finishLate = Date().timeIntervalSince(try #require(Self.date(finished.params["at"])))
        let all = [started, paused, resumed, extended, step, finished]
        #expect(all.map(\.method) == Array(repeating: "timer.event", count: 6))
        #expect(all.map(\.event) == ["started", "paused", "resumed", "extended", "step", "finished"])
        #expect(all.map(\.seq) == Array(first..<(first + 6)))
        #expect(all.map(\.timerID) == Array(repeating: "1", count: 6))
        #expect(extended.params["by"] as? Double == 0.2)
        #expect(step.params["child"] as? Int == 1)  // the second child (0-based) began
        #expect(latencies.allSatisfy { $0 < Self.generousBound } && stepLate < Self.generousBound)
        #expect(finishLate < Self.generousBound)

        // Latency figures: 200 pause/resume changes of a long timer, request sent → notification read.
        _ = try change(#"{"jsonrpc":"2.0","id":4,"method":"timer.start","params":{"durations":[3600],"name":"l"}}"#)
        latencies.removeAll()
        var seqs: [Int] = []
        for round in 0..<100 {
            for method in ["timer.pause", "timer.resume"] {
                let notification = try change(
                    #"{"jsonrpc":"2.0","id":\#(10 + round),"method":"\#(method)","params":{"timer":"l"}}"#)
                seqs.append(notification.seq ?? -1)
            }
        }
        #expect(seqs == Array((first + 7)..<(first + 207)))
        #expect(latencies.allSatisfy { $0 < Self.generousBound })
        let p50 = percentile(latencies, 50) * 1e3
        let p99 = percentile(latencies, 99) * 1e3
        print(
            "events latency, \(backend) (change sent -> notification read, \(latencies.count) samples): "
                + "p50 \(String(format: "%.3f", p50)) ms, p99 \(String(format: "%.3f", p99)) ms; "
                + "step \(String(format: "%.1f", stepLate * 1e3)) ms and finish "
                + "\(String(format: "%.1f", finishLate * 1e3)) ms after their due time")
        #expect(harness.stopDaemon() == 0)
    }

    @Test("afterSeq replays what a reconnecting client missed; past the ring, a gap comes first")
    func replayAndRingGap() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let changer = try RawClient(path: harness.socketPath)
        // 2,100 timers started then stopped: 4,200 events, more than the ring's 4,096.
        Self.pipeline(
            changer,
            (1...2_100).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"timer.start","params":{"durations":[3600]}}"# })
        Self.pipeline(
            changer,
            (1...2_100).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"timer.stop","params":{"timer":\#($0)}}"# })
        let reconnecting = try RawClient(path: harness.socketPath)
        #expect(try reconnecting.subscribe(#""afterSeq":4190"#) == 4_200)
        // The last ten: stops of timers 2091…2100, seq 4191…4200.
        var replayed: [Notification] = []
        for _ in 0..<10 { replayed.append(try #require(reconnecting.nextNotification())) }
        #expect(replayed.map(\.seq) == Array(4_191...4_200))
        #expect(replayed.map(\.timerID) == (2_091...2_100).map(String.init))
        #expect(Set(replayed.compactMap(\.event)) == ["stopped"])

        let late = try RawClient(path: harness.socketPath)
        #expect(try late.subscribe(#""afterSeq":0,"events":["started"]"#) == 4_200)
        // 4,200 − 4,096 = 104 forgotten: a ring gap 1…104, then the starts still kept: seq 105…2100.
        let gap = try #require(late.nextNotification())
        #expect(gap.method == "timer.gap")
        #expect(gap.params["fromSeq"] as? Int == 1 && gap.params["toSeq"] as? Int == 104)
        #expect(gap.params["reason"] as? String == "ring")
        var starts: [Int] = []
        for _ in 105...2_100 { starts.append(try #require(late.nextNotification()).seq ?? -1) }
        #expect(starts == Array(105...2_100))
        #expect(late.readLine(timeout: 0.3) == nil)  // no stop, by the kind filter
        #expect(harness.stopDaemon() == 0)
    }

    @Test(
        "a subscriber that stops reading gets a slow gap, then the events after it, numbers accounted for",
        arguments: TestBackend.available)
    func slowGap(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let slow = try RawClient(path: harness.socketPath)
        let first = try slow.subscribe() + 1
        let changer = try RawClient(path: harness.socketPath)
        // 4,000 events of ~600 bytes: 2.4 MB, well over the 1 MiB backlog and the socket buffers.
        Self.pipeline(
            changer,
            (1...2_000).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"timer.start","params":{"durations":[3600]}}"# })
        Self.pipeline(
            changer,
            (1...2_000).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"timer.stop","params":{"timer":\#($0)}}"# })
        // The daemon served the other client throughout (above); now the slow one reads it all.
        var covered: [Int] = []
        var gaps = 0
        while covered.last != first + 3_999, let notification = slow.nextNotification(timeout: 10) {
            if notification.method == "timer.gap" {
                let from = try #require(notification.params["fromSeq"] as? Int)
                let to = try #require(notification.params["toSeq"] as? Int)
                #expect(notification.params["reason"] as? String == "slow")
                covered += Array(from...to)
                gaps += 1
            } else {
                covered.append(notification.seq ?? -1)
            }
        }
        // Every number exactly once, in order, whether delivered or named by a gap.
        #expect(covered == Array(first...(first + 3_999)))
        #expect(gaps >= 1)
        #expect(harness.log().contains("does not read its events"))
        print("slow subscriber: \(gaps) gap(s), \(covered.count) event numbers accounted for")
        #expect(harness.stopDaemon() == 0)
    }

    /// `timerctl wait` on a terminal draws its bar from pushed events and a local clock: through a
    /// proxy that records what timerctl sends, a 1.5 s wait with a pause in it makes exactly three
    /// requests (on main it asked `timer.status` every 200 ms: about 8 more).
    @Test("timerctl wait on a terminal never polls: subscribe, one status, the wait", arguments: TestBackend.available)
    func waitDoesNotPoll(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let proxy = try RecordingProxy(
            path: harness.directory + "/proxy.sock", target: harness.socketPath,
            recordPath: harness.directory + "/requests.log")
        // The timer is paused 0.3 s in and resumed 0.8 s in, straight to timerd (not recorded);
        // `script` gives timerctl a terminal (its stderr is one, so the bar is drawn); -e: its status.
        let shell = harness.directory + "/wait.sh"
        let ctl = "'\(Harness.timerctl)' --socket '\(harness.socketPath)'"
        try """
        \(ctl) start 1.5s --name w >/dev/null || exit 9
        (sleep 0.3; \(ctl) pause w >/dev/null; sleep 0.5; \(ctl) resume w >/dev/null) &
        '\(Harness.timerctl)' --socket '\(proxy.path)' wait w
        """.write(toFile: shell, atomically: true, encoding: .utf8)
        let run = Harness.run("/usr/bin/script", ["-qec", "sh '\(shell)'", "/dev/null"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("[") && run.stdout.contains("1 \"w\" finished"), "\(run)")
        let methods = try proxy.methods()
        #expect(methods == ["timer.subscribe", "timer.status", "timer.wait"])
        #expect(harness.stopDaemon() == 0)
    }

    /// Sends `requests` pipelined in batches of 200 and reads their replies.
    static func pipeline(_ client: RawClient, _ requests: [String]) {
        var index = 0
        while index < requests.count {
            let batch = requests[index..<min(index + 200, requests.count)]
            client.send(batch.joined(separator: "\n") + "\n")
            for _ in batch { _ = client.readLine() }
            index += batch.count
        }
    }

    /// An ISO 8601 timestamp with milliseconds, as the protocol writes them.
    static func date(_ value: Any?) -> Date? {
        guard let text = value as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
