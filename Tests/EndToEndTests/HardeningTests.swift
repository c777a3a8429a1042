import Foundation
import Glibc
import Synchronization
import Testing
import TimerModel
import TimerProtocol

/// Regression tests for abuse of the real daemon: floods, half-closed sockets, descriptor
/// exhaustion. Each bounds its load in count and time.
@Suite("Hostile clients", .serialized, .tags(.endToEnd))
struct HardeningTests {
    /// Resident memory of a process, in KiB (`VmRSS` of /proc/PID/status).
    private func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test("a client that pipelines requests and never reads starves nobody and is closed at 16 MiB")
    func floodingClientIsBounded() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let pid = try #require(harness.daemon?.processIdentifier)
        let setup = try RawClient(path: harness.socketPath)
        let starts = (0..<300).map {
            #"{"jsonrpc":"2.0","id":\#($0),"method":"timer.start","params":{"durations":[3600]}}"#
        }
        setup.send(starts.joined(separator: "\n") + "\n")
        for _ in 0..<300 { _ = try #require(setup.readLine()) }

        // Each timer.list reply is ~100 KB: unbounded, a few KB of requests queue gigabytes.
        let flooder = try RawClient(path: harness.socketPath)
        let fd = flooder.fd
        let done = Atomic<Bool>(false)
        let chunk = Array(
            String(repeating: #"{"jsonrpc":"2.0","id":1,"method":"timer.list"}"# + "\n", count: 1_000).utf8)
        let thread = Thread {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let sent = chunk.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent < 0 { break }  // closed by the daemon
            }
            done.store(true, ordering: .sequentiallyConsistent)
        }
        thread.start()
        usleep(500_000)
        for round in 0..<5 {
            let started = Date()
            let other = try RawClient(path: harness.socketPath)
            let ping = try other.request(#"{"jsonrpc":"2.0","id":\#(round),"method":"daemon.ping"}"#)
            #expect(ping["id"] as? Int == round)
            #expect(Date().timeIntervalSince(started) < 3, "round \(round): the flood starved other clients")
            #expect(residentKiB(pid) < 300_000, "round \(round): the daemon buffers the flood's replies")
            usleep(200_000)
        }
        let deadline = Date().addingTimeInterval(25)
        while !done.load(ordering: .sequentiallyConsistent) && Date() < deadline { usleep(50_000) }
        withExtendedLifetime(flooder) {}
        #expect(harness.log().contains("does not read its replies (over 16 MiB queued); closing it"))
        #expect(harness.stopDaemon() == 0)
    }

    @Test("out of file descriptors, timerd refuses new clients with -32006 instead of spinning")
    func descriptorExhaustion() throws {
        let harness = try Harness()
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/bin/sh")
        // A hard limit of 64 descriptors: raising the soft limit cannot help here.
        daemon.arguments = [
            "-c", #"ulimit -n 64 && exec "$0" --socket "$1" --state-dir "$2" 2>"$3""#, Harness.timerd,
            harness.socketPath, harness.stateDirectory, harness.directory + "/limited.log",
        ]
        daemon.standardOutput = FileHandle.nullDevice  // never hold the test runner's pipes
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(10)
        while harness.ctl(["ping"]).status != 0 && Date() < deadline { usleep(20_000) }
        var clients: [RawClient] = []
        for _ in 0..<100 { clients.append(try RawClient(path: harness.socketPath)) }
        var served = 0
        var refused = 0
        for (index, client) in clients.enumerated() {
            // A refused client is already closed: send without SIGPIPE.
            let request = Array(#"{"jsonrpc":"2.0","id":\#(index),"method":"daemon.ping"}"#.utf8) + [10]
            _ = request.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let reply = try JSONObject.parse(try #require(client.readLine(timeout: 5), "client \(index) got no reply"))
            if reply["result"] != nil {
                served += 1
            } else {
                let error = reply["error"] as? [String: Any]
                #expect(error?["code"] as? Int == -32006)
                #expect((error?["message"] as? String)?.contains("run out of file descriptors") == true)
                refused += 1
            }
        }
        #expect(served > 0 && refused > 0)
        clients.removeAll()
        usleep(200_000)
        #expect(harness.ctl(["ping"]).status == 0)
        let log = (try? String(contentsOfFile: harness.directory + "/limited.log", encoding: .utf8)) ?? ""
        #expect(log.split(separator: "\n").count < 10, "log flooded: \(log.prefix(500))")
        #expect(log.contains("out of file descriptors (limit 64)"))
    }
}
