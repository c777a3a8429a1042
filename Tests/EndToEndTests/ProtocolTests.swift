import Foundation
import Glibc
import Synchronization
import Testing
import TimerModel
import TimerProtocol
import TimerService

/// Bad input over the real socket: each gets its documented reply (docs/protocol.md), the
/// daemon stays up and other clients are served. Each test runs on every backend
/// (``TestBackend``) with the same expected replies.
@Suite("JSON-RPC over the daemon's socket", .serialized, .tags(.endToEnd))
struct ProtocolTests {
    private func error(_ reply: [String: Any]) -> (code: Int?, message: String?) {
        let error = reply["error"] as? [String: Any]
        return (error?["code"] as? Int, error?["message"] as? String)
    }

    @Test(
        "malformed JSON, unknown method, wrong parameter type, a 1 MiB line, a silent client",
        arguments: TestBackend.available)
    func badInput(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let silent = try RawClient(path: harness.socketPath)  // connects and says nothing
        let client = try RawClient(path: harness.socketPath)

        let malformed = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"#)
        #expect(error(malformed).code == -32700)
        #expect(error(malformed).message == "request is not valid JSON: send one JSON-RPC 2.0 object per line")
        #expect(malformed["id"] is NSNull)

        let unknown = try client.request(#"{"jsonrpc":"2.0","id":2,"method":"timer.explode"}"#)
        #expect(error(unknown).code == -32601)
        #expect(
            error(unknown).message
                == "unknown method \"timer.explode\"; methods: timer.start, timer.stop, timer.pause, timer.resume, timer.status, timer.list, timer.wait, daemon.ping, daemon.reload, daemon.stats"
                + ", timer.subscribe, timer.unsubscribe, timer.extend, timer.restart, timer.beat, timer.rename, timer.skip"
                + ", timer.remove, timer.runs, daemon.metrics, timer.ack, timer.snooze"
        )
        #expect(unknown["id"] as? Int == 2)

        let wrongType = try client.request(
            #"{"jsonrpc":"2.0","id":3,"method":"timer.start","params":{"durations":"25m"}}"#)
        #expect(error(wrongType).code == -32602)
        #expect(
            error(wrongType).message
                == "\"durations\" of timer.start must be an array of durations (seconds as numbers, or strings such as \"25m\"), got string"
        )

        // 1 MiB without a newline, then the newline: one error, then the connection works again.
        client.send([UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20) + [10])
        let tooLong = try JSONObject.parse(try #require(client.readLine()))
        #expect(error(tooLong).code == -32600)
        #expect(error(tooLong).message == TimerService.tooLongMessage)
        let after = try client.request(#"{"jsonrpc":"2.0","id":4,"method":"daemon.ping"}"#)
        #expect((after["result"] as? [String: Any])?["protocolVersion"] as? Int == 1)

        // The silent client got nothing and blocked nobody; a new client is served.
        #expect(silent.readLine(timeout: 0.2) == nil)
        let other = try RawClient(path: harness.socketPath)
        let ping = try other.request(#"{"jsonrpc":"2.0","id":"x","method":"daemon.ping"}"#)
        #expect(ping["id"] as? String == "x")
        #expect(harness.stopDaemon() == 0)
    }

    @Test("a request line left incomplete is dropped after the request time-out", arguments: TestBackend.available)
    func partialLineTimeout(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: ["--request-timeout", "0.5"] + (try backend.daemonArguments()))
        let client = try RawClient(path: harness.socketPath)
        client.send(#"{"jsonrpc":"2.0","#)
        let reply = try JSONObject.parse(try #require(client.readLine(timeout: 10)))
        #expect(error(reply).code == -32005)
        #expect(error(reply).message == "request line not completed within 0.5 s; closing the connection")
        #expect(client.readLine(timeout: 2) == nil)  // closed
        let other = try RawClient(path: harness.socketPath)
        #expect((try other.request(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#))["result"] != nil)
        #expect(harness.stopDaemon() == 0)
    }

    @Test(
        "a wait answers when the timer ends, while the same connection goes on being served",
        arguments: TestBackend.available)
    func pipelinedWait(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let client = try RawClient(path: harness.socketPath)
        _ = try client.request(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[0.3],"name":"t"}}"#)
        client.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.wait","params":{"timer":"t"}}"# + "\n")
        client.send(#"{"jsonrpc":"2.0","id":3,"method":"daemon.ping"}"# + "\n")
        let first = try JSONObject.parse(try #require(client.readLine()))
        #expect(first["id"] as? Int == 3)
        let second = try JSONObject.parse(try #require(client.readLine()))
        #expect(second["id"] as? Int == 2)
        #expect((second["result"] as? [String: Any])?["state"] as? String == "finished")
        #expect(harness.stopDaemon() == 0)
    }

    @Test(
        "a client that half-closes (as socat and nc do) still gets its last line's reply and its wait",
        arguments: TestBackend.available)
    func halfClose(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let waiter = try RawClient(path: harness.socketPath)
        waiter.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[0.3],"name":"h"}}"# + "\n")
        waiter.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.wait","params":{"timer":"h"}}"#)  // no newline
        shutdown(waiter.fd, Int32(SHUT_WR))
        let started = try JSONObject.parse(try #require(waiter.readLine()))
        #expect(started["id"] as? Int == 1)
        let ended = try JSONObject.parse(try #require(waiter.readLine()))
        #expect(ended["id"] as? Int == 2)
        #expect((ended["result"] as? [String: Any])?["state"] as? String == "finished")
        #expect(waiter.readLine(timeout: 5) == nil)  // then the daemon closes the connection
        let pinger = try RawClient(path: harness.socketPath)
        pinger.send(#"{"jsonrpc":"2.0","id":"p","method":"daemon.ping"}"#)
        shutdown(pinger.fd, Int32(SHUT_WR))
        #expect(try JSONObject.parse(try #require(pinger.readLine()))["id"] as? String == "p")
        #expect(pinger.readLine(timeout: 5) == nil)
        #expect(harness.stopDaemon() == 0)
    }

    @Test("many clients at once each get their own answers", arguments: TestBackend.available)
    func concurrentClients(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let path = harness.socketPath
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            do {
                let client = try RawClient(path: path)
                for index in 0..<20 {
                    let reply = try client.request(
                        #"{"jsonrpc":"2.0","id":\#(index),"method":"timer.start","params":{"durations":[3600],"name":"w\#(worker)-\#(index)"}}"#
                    )
                    if reply["id"] as? Int != index || reply["result"] == nil {
                        failures.withLock { $0.append("worker \(worker): \(reply)") }
                    }
                }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let timers = try harness.ctlJSON(["status"], as: [TimerInfo].self)
        #expect(timers.count == 320)
        #expect(Set(timers.map(\.id)).count == 320)
        #expect(harness.stopDaemon() == 0)
    }
}
