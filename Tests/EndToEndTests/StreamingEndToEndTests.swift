import Foundation
import Glibc
import Testing
import TimerProtocol

/// Against the real daemon: a listing over 16 MiB is streamed, not refused.
@Suite("Long listings are streamed", .serialized, .tags(.endToEnd))
struct StreamingEndToEndTests {
    /// The case of the issue: 700 groups of 100 steps. Each timer's JSON is about 25 KiB (100
    /// children), so `timerctl status` needs about 17 MiB: on main the daemon closed the connection
    /// at 16 MiB ("does not read its replies") and timerctl failed.
    @Test("timerctl status lists 700 groups of 100 steps (over 16 MiB)", arguments: TestBackend.available)
    func hugeStatus(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let client = try RawClient(path: harness.socketPath)
        let durations = (1...100).map { String(3_600 + $0) }.joined(separator: ",")
        var replyBytes = 0
        for batch in 0..<14 {
            for index in 0..<50 {
                let id = batch * 50 + index
                client.send(
                    #"{"jsonrpc":"2.0","id":\#(id),"method":"timer.start","params":{"durations":[\#(durations)]}}"#
                        + "\n")
            }
            for _ in 0..<50 {
                let line = try #require(client.readLine(timeout: 120))
                #expect(line.contains(#""result""#))
                replyBytes += line.utf8.count + 1
            }
        }
        // The start replies carry the same 700 timers: they show the listing is over 16 MiB.
        #expect(replyBytes > 16 << 20, "start replies: \(replyBytes) bytes")
        let run = harness.ctl(["status", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let timers = try JSONDecoder().decode([TimerInfo].self, from: Data(run.stdout.utf8))
        #expect(timers.count == 700)
        #expect(timers.map(\.id) == (1...700).map(String.init))
        #expect(timers.allSatisfy { $0.children?.count == 100 })
        // The same connection goes on answering after a streamed listing, in order.
        client.send(#"{"jsonrpc":"2.0","id":"l","method":"timer.list"}"# + "\n")
        client.send(#"{"jsonrpc":"2.0","id":"p","method":"daemon.ping"}"# + "\n")
        let listing = try #require(client.readLine(timeout: 120))
        #expect(listing.hasPrefix(#"{"id":"l","jsonrpc":"2.0","result":[{"#) && listing.hasSuffix("]}"))
        let ping = try #require(client.readLine(timeout: 30))
        #expect(ping.hasPrefix(#"{"id":"p","jsonrpc":"2.0","result":{"#))
        #expect(!harness.log().contains("does not read its replies"))
        #expect(harness.stopDaemon() == 0)
    }

    /// The other half: the bytes of listings are produced against a budget shared by
    /// every client (256 KiB per turn, `Daemon.listingBytesPerTurn`), a part at a time as each
    /// client drains. 60 clients each pipeline three `timer.list` with `all` over 3,000 timers
    /// (about 200 MB of replies) and read nothing at first. A daemon that built each reply whole
    /// (main before this item) holds them all: docs/fairness.md measured 741 MB for 200 clients.
    /// Streamed, timerd's peak resident memory stays near its idle size (43 MB there for 200
    /// clients); the bound asserted here, 120 MB, is well under the replies' total, which the test
    /// checks too. Meanwhile another client's ping is answered (within 2 s, a generous bound for a
    /// debug build on a loaded machine; the measured p99 was 16 ms), and afterwards every client
    /// gets all three complete replies, in order.
    @Test("60 clients listing 3,000 timers three times at once: memory stays bounded, a ping is answered")
    func manyListingsAtOnce() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let pid = try #require(harness.daemon?.processIdentifier)
        let setup = try RawClient(path: harness.socketPath)
        for batch in 0..<60 {
            for index in 0..<50 {
                setup.send(
                    #"{"jsonrpc":"2.0","id":\#(batch * 50 + index),"method":"timer.start","params":{"durations":[3600]}}"#
                        + "\n")
            }
            for _ in 0..<50 { #expect(setup.readLine(timeout: 30)?.contains(#""result""#) == true) }
        }
        let clients = try (0..<60).map { _ in try RawClient(path: harness.socketPath) }
        let list = #"{"jsonrpc":"2.0","id":7,"method":"timer.list","params":{"all":true}}"# + "\n"
        for client in clients { client.send(list + list + list) }
        usleep(300_000)
        let pinger = try RawClient(path: harness.socketPath)
        let pingSent = Date()
        pinger.send(#"{"jsonrpc":"2.0","id":"p","method":"daemon.ping"}"# + "\n")
        let ping = try #require(pinger.readLine(timeout: 30))
        let pingWait = Date().timeIntervalSince(pingSent)
        #expect(ping.hasPrefix(#"{"id":"p","jsonrpc":"2.0","result":{"#))
        #expect(pingWait < 2, "ping waited \(pingWait) s")
        var totalBytes = 0
        for client in clients {
            for _ in 0..<3 {
                let reply = try #require(client.readLine(timeout: 120))
                #expect(reply.hasPrefix(#"{"id":7,"jsonrpc":"2.0","result":[{"#) && reply.hasSuffix("}]}"))
                // One `"state":` per timer: each reply lists all 3,000.
                #expect(reply.components(separatedBy: #""state":"#).count - 1 == 3_000)
                totalBytes += reply.utf8.count + 1
            }
        }
        let peak = try Self.peakResidentBytes(pid)
        print("many listings: \(totalBytes) bytes of replies, timerd VmHWM \(peak) bytes, ping waited \(pingWait) s")
        #expect(totalBytes > 150_000_000, "replies: \(totalBytes) bytes")
        #expect(peak < 120_000_000, "timerd's VmHWM: \(peak) bytes for \(totalBytes) bytes of replies")
        #expect(harness.stopDaemon() == 0)
    }

    /// `VmHWM` of /proc/PID/status (the peak resident set), in bytes.
    static func peakResidentBytes(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kibibytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        return kibibytes * 1_024
    }
}
