import Foundation
import Glibc
import Testing

/// Cost of durability, measured through the real daemon; runs only with `TIMERD_BENCHMARK=1`:
///
///     TIMERD_BENCHMARK=1 swift test --filter DurabilityBenchmarkTests
@Suite(
    "Durable timer.start cost", .serialized, .tags(.endToEnd),
    .enabled(if: ProcessInfo.processInfo.environment["TIMERD_BENCHMARK"] == "1"))
struct DurabilityBenchmarkTests {
    init() {
        signal(SIGPIPE, SIG_IGN)
    }

    private static func start(_ client: RawClient, _ number: Int, prefix: String) -> Bool {
        client.send(
            #"{"jsonrpc":"2.0","id":\#(number),"method":"timer.start","params":{"durations":[3600],"name":"\#(prefix)-\#(number)"}}"#
                + "\n")
        return client.readLine()?.contains("\"result\"") == true
    }

    @Test("median round trip of 1,000 sequential durable timer.start requests")
    func sequential() throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: ["--max-timers-per-user", "1000000"])
        let client = try RawClient(path: harness.socketPath)
        var samples: [Double] = []
        for number in 0..<1_000 {
            let before = DispatchTime.now().uptimeNanoseconds
            #expect(Self.start(client, number, prefix: "seq"))
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - before) / 1e3)
        }
        samples.sort()
        print(
            "sequential timer.start: median \(Int(samples[500])) µs, p99 \(Int(samples[990])) µs, total \(Int(samples.reduce(0, +) / 1e3)) ms"
        )
        #expect(harness.stopDaemon() == 0)
    }

    @Test("throughput of 16 concurrent clients (group commit)")
    func concurrent() throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: ["--max-timers-per-user", "1000000"])
        let perClient = 500
        let group = DispatchGroup()
        let started = Date()
        for client in 0..<16 {
            let path = harness.socketPath
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let connection = try? RawClient(path: path) else { return }
                for number in 0..<perClient where !Self.start(connection, number, prefix: "c\(client)") { return }
            }
        }
        group.wait()
        let seconds = Date().timeIntervalSince(started)
        let listed = try harness.ctlJSON(["status"], as: [TimerInfoCount].self).count
        print(
            "16 clients: \(listed) durable timer.start in \(Int(seconds * 1_000)) ms = \(Int(Double(listed) / seconds)) req/s"
        )
        #expect(listed == 16 * perClient)
        #expect(harness.stopDaemon() == 0)
    }
}

/// Decodes only what the count needs.
private struct TimerInfoCount: Decodable {
    var id: String
}
