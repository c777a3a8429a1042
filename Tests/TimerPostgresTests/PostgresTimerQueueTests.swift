import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
import TimerPostgres

/// The several-hosts claim protocol (docs/multihost.md) with hosts as threads, each on its own
/// connection, on one schema of the test cluster.
@Suite("PostgresTimerQueue: claims, fences, rescue, cross-host pause", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresTimerQueueTests {
    /// A connection with the schema migrated.
    private func queue(_ connectionString: String, host: String) throws -> PostgresTimerQueue {
        let connection = try PostgresConnection(connectionString: connectionString)
        try PostgresSchema.migrate(connection)
        return PostgresTimerQueue(connection: connection, hostID: host)
    }

    @Test("Three hosts, one killed mid-run and back later: every timer finishes exactly once, its claims are rescued")
    func exactlyOnceUnderHostDeath() throws {
        // 600 timers over ~2.4 s by default; TIMERD_PG_QUEUE_TIMERS=5000 is the acceptance
        // size (spread over 20 s).
        let total = Int(ProcessInfo.processInfo.environment["TIMERD_PG_QUEUE_TIMERS"] ?? "") ?? 600
        let spreadMilliseconds = UInt64(max(2_000, total * 4))
        let groups = (0..<total).filter { $0 % 3 == 2 }.count
        let schema = try freshSchema()
        let connectionString = schema.connectionString
        let starter = try queue(connectionString, host: "starter")
        let lease = 1.5
        let poll = 0.1
        let tally = Mutex(Tally())
        let lostClaims = Mutex<[PostgresTimerQueue.Claim]>([])
        let deadline = Date().addingTimeInterval(Double(spreadMilliseconds) / 1_000 + 60)
        // Three hosts, each a thread on its own connection (made on that thread). Once a third of
        // the timers finished, host 2 dies holding its next batch of claims (no completion, no
        // renewal, as a SIGKILLed timerd), comes back 3 s later as a new process with the same
        // host id and works on, and at the end tries to complete the claims it died with.
        let threads = (0..<3).map { index in
            Thread {
                do {
                    var host = PostgresTimerQueue(
                        connection: try PostgresConnection(connectionString: connectionString), hostID: "host-\(index)")
                    var died = false
                    while Date() < deadline && tally.withLock({ $0.finished }) < total {
                        try host.renewLeases(leaseSeconds: lease)
                        let claims = try host.claimDue(limit: 20, leaseSeconds: lease)
                        if index == 2 && !died && !claims.isEmpty && tally.withLock({ $0.finished }) >= total / 3 {
                            died = true
                            lostClaims.withLock { $0 = claims }
                            usleep(3_000_000)
                            host = PostgresTimerQueue(
                                connection: try PostgresConnection(connectionString: connectionString),
                                hostID: "host-2")
                            continue
                        }
                        for claim in claims {
                            let completion = try host.complete(claim)
                            tally.withLock { $0.record(claim, completion) }
                        }
                        if claims.isEmpty { usleep(UInt32(try host.secondsUntilNextDue(cap: poll) * 1e6)) }
                    }
                    if died {
                        let late = try lostClaims.withLock { $0 }.map { try host.complete($0) }
                        tally.withLock { $0.lateCompletions = late }
                    }
                } catch {
                    tally.withLock { $0.errors.append("\(error)") }
                }
                tally.withLock { $0.hostsDone += 1 }
            }
        }
        for thread in threads { thread.start() }
        // Plain timers due 0.5 s … 0.5 s + spread after their start, every third a group of three
        // 0.3 s steps, all on the database clock (seed 14 picks the plain timers' lengths).
        var generator = SplitMix64(seed: 14)
        for index in 0..<total {
            if index % 3 == 2 {
                try starter.start(
                    owner: 0, name: "g\(index)", segmentsNanoseconds: Array(repeating: 300_000_000, count: 3))
            } else {
                let milliseconds = 500 + Int64(generator.next() % spreadMilliseconds)
                try starter.start(owner: 0, name: "t\(index)", segmentsNanoseconds: [milliseconds * 1_000_000])
            }
        }
        while tally.withLock({ $0.hostsDone }) < 3 { usleep(20_000) }
        let lost = lostClaims.withLock { $0 }
        let lateCompletions = tally.withLock { $0.lateCompletions }
        let result = tally.withLock { $0 }
        let check = try PostgresConnection(connectionString: schema.connectionString)
        let finishRows = try check.query(
            "SELECT count(*), count(DISTINCT timer_id) FROM timerd_events WHERE kind = 'finished'")
        let stepRows = try check.query("SELECT count(*) FROM timerd_events WHERE kind = 'step'")
        let unfinished = try check.query("SELECT count(*) FROM timerd_timers WHERE state <> 'finished'")
        print(
            "exactly-once: \(total) timers (\(groups) groups), finished \(result.finished), steps \(result.steps), rescued \(result.rescued) "
                + "of \(lost.count) lost claims, late completions refused \(lateCompletions.filter { $0 == .fenceLost }.count), "
                + "lateness p99 \(result.p99(rescued: false)) s (rescued max \(result.maxLateness(rescued: true)) s)")
        #expect(result.errors == [])
        #expect(!lost.isEmpty)
        #expect(result.finished == total)
        #expect(result.steps == 2 * groups)  // two step transitions per group of three

        #expect(finishRows.rows == [[String(total), String(total)]])  // one finished row per timer, none twice
        #expect(stepRows.int64(0, 0) == Int64(2 * groups))
        #expect(unfinished.int64(0, 0) == 0)
        // Every claim the dead host held was rescued. A survivor stalled past its lease on a loaded
        // machine is rescued too, and then its own completion is refused: one for one.
        #expect(result.rescued >= lost.count)
        #expect(result.rescued - lost.count == result.fenceLost)
        #expect(lateCompletions == Array(repeating: .fenceLost, count: lost.count))
        // Rescued timers wait out the lease; the others at most the poll bound plus one batch of
        // work on this shared 2-core machine (1 s allowance).
        #expect(result.maxLateness(rescued: true) <= lease + poll + 1.0)
        #expect(result.p99(rescued: false) <= poll + 1.0)
    }

    @Test("Pause on one host, resume on another: the time left is kept, on the database clock; owners are apart")
    func crossHostPause() throws {
        let schema = try freshSchema()
        let hostA = try queue(schema.connectionString, host: "a")
        let hostB = try queue(schema.connectionString, host: "b")
        let hostC = try queue(schema.connectionString, host: "c")
        let id = try hostA.start(owner: 1000, name: "tea", segmentsNanoseconds: [10_000_000_000])
        usleep(300_000)
        // Another owner finds nothing to pause (owners are isolated across hosts too).
        #expect(try hostB.pause(id: id, owner: 1001) == nil)
        let left = try #require(try hostB.pause(id: id, owner: 1000))
        // 10 s less the ~0.3 s that ran (at most 2 s on a loaded machine).
        #expect(left <= 9_700_000_000 && left >= 8_000_000_000)
        usleep(500_000)
        let resumed = try #require(try hostC.resume(id: id, owner: 1000))
        // Paused time does not count: what resume re-arms is what pause kept, to the microsecond
        // that make_interval rounds to.
        #expect(abs(resumed - left) <= 2_000)
        #expect(try hostA.stop(id: id, owner: 1000))
        #expect(try hostA.stop(id: id, owner: 1000) == false)
        let kinds = try hostA.connection.query(
            "SELECT string_agg(kind || ':' || host_id, ',' ORDER BY seq) FROM timerd_events WHERE timer_id = $1",
            [String(id)])
        #expect(kinds.value(0, 0) == "started:a,paused:b,resumed:c,stopped:a")
    }

    @Test("A claim paused under it cannot complete; the next earliest deadline is woken by NOTIFY")
    func fenceAndWake() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let listener = try PostgresConnection(connectionString: schema.connectionString)
        // The schema's own channel (PostgresTimerQueue.notifySQL): other tests' schemas on the
        // same database notify theirs.
        try PostgresTimerQueue(connection: listener, hostID: "listener").listenForWakeUps()
        let first = try host.start(owner: 0, name: nil, segmentsNanoseconds: [1_000_000])
        // A later deadline than the first: no NOTIFY for it.
        _ = try host.start(owner: 0, name: nil, segmentsNanoseconds: [60_000_000_000])
        usleep(50_000)
        let claims = try host.claimDue(limit: 10, leaseSeconds: 30)
        #expect(claims.map(\.id) == [first])
        #expect(try host.pause(id: first, owner: 0) != nil)
        #expect(try host.complete(claims[0]) == .fenceLost)
        var notes: [(channel: String, payload: String)] = []
        for _ in 0..<20 where notes.isEmpty {
            notes = try listener.takeNotifications()
            if notes.isEmpty { usleep(50_000) }
        }
        #expect(notes.map(\.payload) == [String(first)])
    }
}

/// What the surviving hosts saw.
struct Tally: Sendable {
    var finished = 0
    var steps = 0
    var fenceLost = 0
    var rescued = 0
    var hostsDone = 0
    var lateCompletions: [PostgresTimerQueue.Completion] = []
    var errors: [String] = []
    var lateness: [(rescued: Bool, seconds: Double)] = []

    mutating func record(_ claim: PostgresTimerQueue.Claim, _ completion: PostgresTimerQueue.Completion) {
        switch completion {
        case .finished: finished += 1
        case .nextStep: steps += 1
        case .fenceLost: fenceLost += 1
        }
        if claim.isRescue { rescued += 1 }
        lateness.append((claim.isRescue, claim.lateness))
    }

    func p99(rescued: Bool) -> Double {
        let values = lateness.filter { $0.rescued == rescued }.map(\.seconds).sorted()
        guard !values.isEmpty else { return 0 }
        return values[min(values.count - 1, Int(Double(values.count) * 0.99))]
    }

    func maxLateness(rescued: Bool) -> Double {
        lateness.filter { $0.rescued == rescued }.map(\.seconds).max() ?? 0
    }
}
