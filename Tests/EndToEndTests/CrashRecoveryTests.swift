import Foundation
import Glibc
import TestSupport
import Testing
import TimerModel
import TimerProtocol

/// What the clients of one round sent and which requests were acknowledged.
private final class RoundLog: @unchecked Sendable {
    struct Acknowledged {
        var id: String
        var duration: Double
        var acknowledgedAt: Date
    }

    private let lock = NSLock()
    private(set) var sent: [String: Double] = [:]
    private(set) var acknowledged: [String: Acknowledged] = [:]

    func recordSent(_ name: String, _ duration: Double) { lock.withLock { sent[name] = duration } }

    func recordAcknowledged(_ name: String, _ record: Acknowledged) { lock.withLock { acknowledged[name] = record } }
}

/// One timer as `timer.list` reports it.
private struct Listed {
    var id: String
    var name: String
    var state: String
    var duration: Double
    var remaining: Double
}

/// Every timer, and when the request was sent and its reply had arrived: the daemon read the clock
/// in between (building the reply for thousands of timers takes a debug build about a second).
private func listAll(_ harness: Harness) throws -> (timers: [Listed], sent: Date, at: Date) {
    let client = try RawClient(path: harness.socketPath)
    let sent = Date()
    client.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.list","params":{"all":true}}"# + "\n")
    guard let line = client.readLine() else { throw SystemFailure("no reply to timer.list") }
    let at = Date()
    let reply = try JSONObject.parse(line)
    guard let result = reply["result"] as? [[String: Any]] else { throw SystemFailure("timer.list: \(reply)") }
    let timers = try result.map { object in
        guard let id = object["id"] as? String, let name = object["name"] as? String,
            let state = object["state"] as? String, let duration = object["duration"] as? Double,
            let remaining = object["remaining"] as? Double
        else { throw SystemFailure("incomplete timer in timer.list: \(object)") }
        return Listed(id: id, name: name, state: state, duration: duration, remaining: remaining)
    }
    return (timers, sent, at)
}

/// Crash safety through the real binaries: acknowledged means durable, and a reboot is told
/// apart from a restart by the boot id (`TIMERD_BOOT_ID`, timerd's test hook).
@Suite("timerd survives SIGKILL and reboots", .serialized, .tags(.endToEnd))
struct CrashRecoveryTests {
    init() {
        signal(SIGPIPE, SIG_IGN)  // a client writing to a killed daemon gets EPIPE, not death
    }

    @Test("20 rounds of SIGKILL under concurrent starts: every acknowledged timer is back exactly once")
    func killUnderLoad() throws {
        let seed: UInt64 = 20_261_129
        var random = SplitMix64(seed: seed)
        let harness = try Harness()
        let arguments = ["--max-timers-per-user", "1000000", "--journal-max-records", "300"]
        let clients = 4
        let requestsPerClient = 120
        var durable: [String: RoundLog.Acknowledged] = [:]  // acknowledged in earlier rounds, by name
        var knownIDs: [String: String] = [:]  // every name seen after a restart → its id
        var checked = 0
        let rounds = 20
        for round in 1...rounds {
            try harness.startDaemon(extraArguments: arguments)
            let log = RoundLog()
            let group = DispatchGroup()
            for client in 0..<clients {
                let clientSeed = random.next()
                let socketPath = harness.socketPath
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    var random = SplitMix64(seed: clientSeed)
                    guard let connection = try? RawClient(path: socketPath) else { return }
                    for number in 0..<requestsPerClient {
                        let name = "r\(round)-c\(client)-n\(number)"
                        let duration = Double(3_600 + Int.random(in: 0..<3_600, using: &random))
                        log.recordSent(name, duration)
                        connection.send(
                            #"{"jsonrpc":"2.0","id":\#(number),"method":"timer.start","params":{"durations":[\#(Int(duration))],"name":"\#(name)"}}"#
                                + "\n")
                        guard let line = connection.readLine(timeout: 5), let reply = try? JSONObject.parse(line),
                            let result = reply["result"] as? [String: Any], let id = result["id"] as? String
                        else { return }
                        log.recordAcknowledged(
                            name, .init(id: id, duration: duration, acknowledgedAt: Date()))
                    }
                }
            }
            usleep(UInt32.random(in: 5_000..<150_000, using: &random))
            #expect(harness.stopDaemon(signal: SIGKILL) == SIGKILL, "seed \(seed) round \(round)")
            group.wait()
            try harness.startDaemon(extraArguments: arguments)
            let (timers, sentAt, listedAt) = try listAll(harness)
            #expect(harness.stopDaemon(signal: SIGKILL) == SIGKILL)

            let context = "seed \(seed), round \(round)"
            #expect(Set(timers.map(\.id)).count == timers.count, "duplicate ids, \(context)")
            #expect(Set(timers.map(\.name)).count == timers.count, "duplicate names, \(context)")
            let byName = Dictionary(timers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for (name, id) in knownIDs {
                #expect(byName[name]?.id == id, "timer \(name) (\(id)) seen before is gone, \(context)")
            }
            durable.merge(log.acknowledged) { _, new in new }
            for (name, acknowledged) in durable {
                guard let timer = byName[name] else {
                    Issue.record("acknowledged timer \(name) (\(acknowledged.id)) is missing, \(context)")
                    continue
                }
                // What was left when the daemon read its clock, between sending the request and the reply.
                let least = acknowledged.duration - listedAt.timeIntervalSince(acknowledged.acknowledgedAt)
                let most = acknowledged.duration - sentAt.timeIntervalSince(acknowledged.acknowledgedAt)
                #expect(timer.id == acknowledged.id, "\(name), \(context)")
                #expect(timer.state == "running", "\(name), \(context)")
                #expect(
                    timer.remaining >= least - 1 && timer.remaining <= most + 1,
                    "\(name): \(timer.remaining) s left, expected \(least) to \(most), \(context)")
                checked += 1
            }
            for timer in timers where durable[timer.name] == nil && knownIDs[timer.name] == nil {
                // Not acknowledged (its reply was lost in the kill): must be whole and as sent.
                #expect(log.sent[timer.name] == timer.duration, "\(timer.name) appeared half-made, \(context)")
                #expect(timer.state == "running", "\(timer.name), \(context)")
            }
            for timer in timers { knownIDs[timer.name] = timer.id }
        }
        print("crash test: \(rounds) rounds, \(checked) acknowledged timer checks, \(knownIDs.count) timers at the end")
        #expect(checked > 0)
    }

    @Test("After a reboot an expired timer is finished once as missed; a running one goes on")
    func reboot() throws {
        let harness = try Harness()
        try harness.startDaemon(environment: ["TIMERD_BOOT_ID": "boot-a"])
        let started = Date()
        #expect(harness.ctl(["start", "1s", "--name", "short"]).status == 0)
        #expect(harness.ctl(["start", "1h", "--name", "long"]).status == 0)
        #expect(harness.ctl(["start", "2h", "--name", "held"]).status == 0)
        #expect(harness.ctl(["pause", "held"]).status == 0)
        let held = try harness.ctlJSON(["status", "held"], as: [TimerInfo].self)[0]
        #expect(harness.stopDaemon(signal: SIGKILL) == SIGKILL)
        usleep(1_500_000)  // "short" ends while the machine is "off"

        try harness.startDaemon(environment: ["TIMERD_BOOT_ID": "boot-b"])
        let timers = try harness.ctlJSON(["status", "--all"], as: [TimerInfo].self)
        let short = try #require(timers.first { $0.name == "short" })
        #expect(short.state == .finished)
        #expect(short.missed == true)
        let endedAt = try #require(short.endedAt.flatMap(ISO8601.date(from:)))
        #expect(abs(endedAt.timeIntervalSince(started) - 1) < 1, "original end time, not the restart's")
        let long = try #require(timers.first { $0.name == "long" })
        #expect(long.state == .running)
        #expect(abs(long.remaining - (3_600 - Date().timeIntervalSince(started))) <= 1)
        let stillHeld = try #require(timers.first { $0.name == "held" })
        #expect(stillHeld.state == .paused)
        #expect(stillHeld.remaining == held.remaining)
        let log = harness.log()
        #expect(log.components(separatedBy: "finished while timerd was not running").count == 2, "\(log)")
        #expect(harness.stopDaemon() == 0)

        // The next start (same "boot") does not report it again.
        try harness.startDaemon(environment: ["TIMERD_BOOT_ID": "boot-b"])
        #expect(!harness.log().contains("finished while timerd was not running"))
        let again = try harness.ctlJSON(["status", "--all"], as: [TimerInfo].self)
        #expect(again.filter { $0.name == "short" }.map(\.missed) == [true])
        #expect(again.first { $0.name == "long" }?.state == .running)
        #expect(harness.stopDaemon() == 0)
    }
}
