import Foundation
import Glibc
import Testing
import TimerProtocol
import TimerSystem

/// What the framing and the request reader promise (docs/protocol.md) and what the log tells
/// (docs/actions.md, docs/durability.md), checked against the real timerd: whole lines around a
/// streamed listing, duplicate member names refused, a large id read exactly as a number, an
/// action's `cwd` checked at start, its output escaped and capped by lines, the log line of a
/// change written before its reply, and removed state files named in the log.
@Suite("Protocol and log edges through the real timerd", .serialized, .tags(.endToEnd))
struct ProtocolEdgesEndToEndTests {
    /// The number of timers `timerctl status --json` lists.
    private func timerCount(_ harness: Harness) throws -> Int {
        try JSONDecoder().decode([TimerInfo].self, from: Data(harness.ctl(["status", "--json"]).stdout.utf8)).count
    }

    /// Starts `count` one-hour timers through `client`, 100 requests at a time.
    private func startTimers(_ count: Int, through client: RawClient) throws {
        for batch in stride(from: 0, to: count, by: 100) {
            let size = min(100, count - batch)
            var lines = ""
            for index in 0..<size {
                lines +=
                    #"{"jsonrpc":"2.0","id":\#(batch + index),"method":"timer.start","params":{"durations":[3600]}}"#
                    + "\n"
            }
            client.send(lines)
            for _ in 0..<size { _ = try #require(client.readLine(timeout: 30)) }
        }
    }

    /// A subscriber lists 2,000 timers (streamed in 64 KiB parts) while another client starts a
    /// timer every 2 ms: every line it reads is one JSON object, and the listing is one of them
    /// with all 2,000 timers at least. Before, the started events went out between the listing's
    /// parts, so the listing line was never valid JSON (5 of 5 trials in the report).
    @Test("notifications go before or after a streamed listing, never inside it")
    func notificationsOutsideStreamedListing() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let setup = try RawClient(path: harness.socketPath)
        try startTimers(2_000, through: setup)
        let subscriber = try RawClient(path: harness.socketPath)
        let subscribed = try subscriber.request(#"{"jsonrpc":"2.0","id":"s","method":"timer.subscribe"}"#)
        #expect((subscribed["result"] as? [String: Any])?["subscription"] != nil)
        let starter = Thread {
            guard let client = try? RawClient(path: harness.socketPath) else { return }
            for index in 0..<400 {
                client.send(
                    #"{"jsonrpc":"2.0","id":\#(index),"method":"timer.start","params":{"durations":[3600]}}"# + "\n")
                usleep(2_000)
            }
            for _ in 0..<400 { _ = client.readLine(timeout: 30) }
        }
        starter.start()
        usleep(50_000)
        var listings = 0
        var events = 0
        for round in 0..<3 {
            subscriber.send(#"{"jsonrpc":"2.0","id":"l\#(round)","method":"timer.list","params":{"all":true}}"# + "\n")
            while true {
                let line = try #require(subscriber.readLine(timeout: 30))
                let object = try JSONObject.parse(line)  // throws when the line is not one JSON object
                if object["method"] as? String == "timer.event" {
                    events += 1
                    continue
                }
                #expect(object["id"] as? String == "l\(round)")
                #expect(((object["result"] as? [Any])?.count ?? 0) >= 2_000)
                listings += 1
                break
            }
        }
        #expect(listings == 3)
        #expect(events > 0, "no event arrived during the listings: the test did not interleave")
        usleep(1_000_000)
        #expect(harness.stopDaemon() == 0)
    }

    /// A request with a member name twice is refused with -32600 (docs/protocol.md, "Errors"),
    /// at the top level and inside `params`: a proxy that reads the last of duplicates would see
    /// another request than the one timerd answered.
    @Test("duplicate member names are refused")
    func duplicateKeys() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let client = try RawClient(path: harness.socketPath)
        client.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping","method":"timer.list"}"# + "\n")
        #expect(
            client.readLine()
                == #"{"error":{"code":-32600,"message":"member \"method\" appears twice in one object; send each name once"},"id":null,"jsonrpc":"2.0"}"#
        )
        client.send(
            #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[60],"durations":[1]}}"# + "\n")
        #expect(
            client.readLine()
                == #"{"error":{"code":-32600,"message":"member \"durations\" appears twice in one object; send each name once"},"id":null,"jsonrpc":"2.0"}"#
        )
        // Nothing was started by either.
        #expect(try timerCount(harness) == 0)
        #expect(harness.stopDaemon() == 0)
    }

    /// The largest id, 2^64 − 1, as a JSON number gets the same answer as the same digits in a
    /// string ("not found", docs/protocol.md: an id is a whole number ≥ 0 or its digits); before,
    /// the number was refused with "got number" because a Double rounds it past 1.8e19.
    @Test("the largest id as a number is read like the same id as a string")
    func largestIDAsNumber() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let client = try RawClient(path: harness.socketPath)
        client.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.status","params":{"timer":"18446744073709551615"}}"# + "\n")
        let asString = try #require(client.readLine())
        client.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.status","params":{"timer":18446744073709551615}}"# + "\n")
        let asNumber = try #require(client.readLine())
        #expect(asNumber == asString)
        #expect(asString.contains("18446744073709551615"), "\(asString)")
        #expect(!asNumber.contains("got number"))
        #expect(harness.stopDaemon() == 0)
    }

    /// `action.cwd` is checked when the timer is started (-32602 naming the directory), and again
    /// when the action runs: a directory removed meanwhile is named in the log, not `/bin/sh`.
    @Test("action.cwd is checked at start and at run time, and the error names the directory")
    func actionDirectory() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let client = try RawClient(path: harness.socketPath)
        let missing = harness.directory + "/missing"
        client.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[1],"action":{"exec":"true","cwd":"\#(missing)"}}}"#
                + "\n")
        #expect(
            client.readLine()
                == #"{"error":{"code":-32602,"message":"\"cwd\" of \"action\" cannot be used: \#(missing): No such file or directory"},"id":1,"jsonrpc":"2.0"}"#
        )
        let doomed = harness.directory + "/doomed"
        #expect(mkdir(doomed, 0o700) == 0)
        let started = try client.request(
            #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[1],"action":{"exec":"true","cwd":"\#(doomed)"}}}"#
        )
        #expect(started["result"] != nil, "\(started)")
        #expect(rmdir(doomed) == 0)
        #expect(harness.ctl(["wait", "1"]).status == 0)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !harness.log().contains("could not start") { usleep(20_000) }
        let log = harness.log()
        #expect(
            log.contains("error: timer 1 exec could not start: working directory \(doomed): No such file or directory"))
        #expect(!log.contains("/bin/sh"))
        #expect(harness.stopDaemon() == 0)
    }

    /// An action's output reaches the log with its control bytes escaped (ESC as `\x1b`, CR as
    /// `\r`) and at most `Daemon.actionOutputLineLimit` (200) lines a run: 1,000 one-byte lines
    /// give 200 output lines and one line saying the rest is not logged.
    @Test("action output: control bytes escaped, lines capped per run")
    func actionOutputEscapedAndCapped() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let client = try RawClient(path: harness.socketPath)
        let command = #"printf 'a\\033[2Jb\\rc\\\\d\\n'; yes x | head -n 1000"#
        let started = try client.request(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[1],"action":{"exec":"\#(command)","cwd":"/"}}}"#
        )
        #expect(started["result"] != nil, "\(started)")
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, !harness.log().contains("exec exited") { usleep(20_000) }
        let log = harness.log()
        #expect(!log.utf8.contains(0x1B) && !log.utf8.contains(0x0D))
        let output = log.split(separator: "\n").filter { $0.contains("timer 1 exec output: ") }
        #expect(output.first?.hasSuffix(#"timer 1 exec output: a\x1b[2Jb\rc\\d"#) == true, "\(output.first ?? "")")
        #expect(output.count == 201)
        #expect(
            output.last?.hasSuffix("timer 1 exec output: more than 65536 bytes or 200 lines; the rest is not logged")
                == true)
        #expect(harness.stopDaemon() == 0)
    }

    /// The log line of an acknowledged change is written before its reply: right after each of
    /// 300 replies to `timer.start`, the log already holds that start's line. Before, the turn's
    /// log lines were written after its replies, and a SIGKILL between the two lost the line of a
    /// change the client was told was done.
    @Test("the log line of a change is written before its reply")
    func logLineBeforeReply() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let client = try RawClient(path: harness.socketPath)
        var missing: [Int] = []
        for id in 1...300 {
            _ = try client.request(
                #"{"jsonrpc":"2.0","id":\#(id),"method":"timer.start","params":{"durations":[3600]}}"#)
            if !harness.log().contains("started timer \(id), ") { missing.append(id) }
        }
        #expect(missing.isEmpty, "no log line when the reply came for \(missing.count) starts: \(missing.prefix(10))")
        #expect(harness.stopDaemon() == 0)
    }

    /// Both state files removed while `lock` stays: timerd starts with no timers (as docs/durability.md
    /// says for "neither file") but says in its log that an earlier timerd's state is gone.
    @Test("removed state files are named in the log")
    func removedStateFiles() throws {
        let harness = try Harness()
        try harness.startDaemon()
        #expect(harness.ctl(["start", "1h"]).status == 0)
        #expect(harness.stopDaemon() == 0)
        for file in ["snapshot", "journal"] { unlink(harness.stateDirectory + "/" + file) }
        #expect(FileManager.default.fileExists(atPath: harness.stateDirectory + "/lock"))
        try harness.startDaemon()
        #expect(
            harness.log().contains(
                "WARNING: \(harness.stateDirectory): no snapshot and no journal, but the lock file of an earlier "
                    + "timerd: the state files were removed; starting with no timers"))
        #expect(try timerCount(harness) == 0)
        #expect(harness.stopDaemon() == 0)
        // A first start in a new directory says nothing of the kind.
        let fresh = try Harness()
        try fresh.startDaemon()
        #expect(!fresh.log().contains("no snapshot and no journal"))
        #expect(fresh.stopDaemon() == 0)
    }

    /// What a client that connects and pings gets: `answered`, `stopping` (the -32603 timerd sends
    /// when it stops before answering), `refused` (no socket, nobody listening, or the connection
    /// closed before the ping could be sent), `reset`
    /// (ECONNRESET) or `no reply` (the connection closed with nothing).
    private static func pingOutcome(_ path: String) -> String {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        guard let (found, length) = try? UnixSocket.address(path) else { return "refused" }
        var address = found
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else { return "refused" }
        let ping = Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#.utf8) + [10]
        if ping.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) < 0 {
            // EPIPE: timerd had closed the connection before the request was written (it stopped
            // between the accept and the send), as good as refused: nothing was asked.
            return errno == ECONNRESET ? "reset" : errno == EPIPE ? "refused" : "no reply"
        }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 5_000) > 0 else { return "no reply" }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = read(fd, &buffer, buffer.count)
        if count < 0 { return errno == ECONNRESET ? "reset" : "no reply" }
        let text = String(decoding: buffer[0..<max(0, count)], as: UTF8.self)
        if text.contains(#""result""#) { return "answered" }
        if text.contains("timerd is stopping") { return "stopping" }
        return "no reply"
    }

    /// A client that connects while timerd stops (SIGTERM, then at once a connection and a ping,
    /// as `systemctl restart timerd; timerctl status` can race) gets a reply, the stopping error or
    /// no socket: never a reset. Before, closing the listener reset the connections still in its
    /// queue: 29 of 100 such connections here.
    @Test("connections made while timerd stops are answered or refused, never reset")
    func connectWhileStopping() throws {
        let harness = try Harness()
        var outcomes: [String: Int] = [:]
        for _ in 0..<30 {
            try harness.startDaemon()
            let pid = try #require(harness.daemon?.processIdentifier)
            kill(pid, SIGTERM)
            outcomes[Self.pingOutcome(harness.socketPath), default: 0] += 1
            harness.stopDaemon()
        }
        #expect(outcomes["reset"] == nil && outcomes["no reply"] == nil, "\(outcomes)")
    }
}

extension ProtocolEdgesEndToEndTests {
    /// One user's subscribers that do not read are bounded together (docs/fairness.md,
    /// "Subscribers that do not read"): 40 subscribed connections of root read nothing while 400
    /// groups of 10 steps start (a started event is about 3.5 KiB, so each connection is offered
    /// about 1.4 MiB). Together they pass the user's 16 MiB well before any one reaches its own
    /// 1 MiB, so timerd drops queues for the user's bound (logged once per connection), and a
    /// subscriber that then reads gets a `timer.gap` with reason `slow`. Before, only the 1 MiB per
    /// connection applied: 40 such connections held 40 MiB.
    @Test("the unsent notifications of one user's connections are bounded together")
    func subscribersBoundedPerUser() throws {
        let harness = try Harness()
        try harness.startDaemon()
        var subscribers: [RawClient] = []
        for _ in 0..<40 {
            let client = try RawClient(path: harness.socketPath)
            var size: Int32 = 4_096
            setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = try client.request(
                #"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe","params":{"events":["started"]}}"#)
            subscribers.append(client)
        }
        let starter = try RawClient(path: harness.socketPath)
        let steps = Array(repeating: "3600", count: 10).joined(separator: ",")
        for batch in 0..<8 {
            var lines = ""
            for index in 0..<50 {
                lines +=
                    #"{"jsonrpc":"2.0","id":\#(batch * 50 + index),"method":"timer.start","params":{"durations":[\#(steps)]}}"#
                    + "\n"
            }
            starter.send(lines)
            for _ in 0..<50 { _ = try #require(starter.readLine(timeout: 30)) }
        }
        usleep(300_000)
        let log = harness.log()
        let userDrops = log.split(separator: "\n").filter { $0.contains("connections hold over 16 MiB of them") }
        #expect(userDrops.count >= 1, "\(log.suffix(2_000))")
        #expect(!log.contains("over 1 MiB queued"))
        // A subscriber that reads now finds a slow gap among its lines.
        var sawGap = false
        while !sawGap, let line = subscribers[0].readLine(timeout: 2) {
            sawGap = line.contains(#""method":"timer.gap""#) && line.contains(#""reason":"slow""#)
        }
        #expect(sawGap)
        #expect(harness.stopDaemon() == 0)
    }
}
