import Foundation
import Glibc
import TestSupport
import Testing

/// Real timerd processes with `--shared` on one throw-away cluster: a host stopped inside a
/// transaction, a duplicate host id, history pruning (docs/multihost.md, "Failure" and "History").
@Suite(
    "timerd --shared: stalled hosts, duplicate host ids, history limits", .serialized, .tags(.endToEnd),
    .enabled(if: PostgresTestCluster.isEnabled))
struct SharedHostsRobustnessEndToEndTests {
    typealias Cluster = SharedHostsEndToEndTests.Cluster

    /// PostgresSessionTimeouts.standard's idle_in_transaction_session_timeout (Sources/TimerPostgres).
    static let idleInTransaction = 3.0

    @Test(
        "A host SIGSTOPped inside a transaction holds no one: starts elsewhere p99 ≤ 1 s, due timers fire within lease + 1 s, none twice after SIGCONT"
    )
    func stalledHost() throws {
        // TIMERD_SHARED_STALL=30 is the issue's length of the stop; the default keeps CI short.
        let stopSeconds = ProcessInfo.processInfo.environment["TIMERD_SHARED_STALL"].flatMap(Double.init) ?? 10
        let cluster = try Cluster()
        let a = try SharedHostsEndToEndTests.host("s0", cluster)
        // b sits 1.5 s inside each completion transaction before its COMMIT (test-only), holding
        // the rows it completes, so that the SIGSTOP below finds it inside a transaction.
        let b = try SharedHostsEndToEndTests.host(
            "s1", cluster, environment: ["TIMERD_TEST_STALL_IN_TRANSACTION": "1.5"])
        let pidB = try #require(b.daemon?.processIdentifier)
        let client = try RawClient(path: a.socketPath)
        var requestID = 0
        /// Starts a timer through a and returns how long the reply took (seconds).
        func start(_ seconds: Double) throws -> Double {
            requestID += 1
            let began = Date()
            let reply = try client.request(
                #"{"jsonrpc":"2.0","id":\#(requestID),"method":"timer.start","params":{"durations":[\#(seconds)]}}"#)
            #expect(reply["result"] != nil, "\(reply)")
            return Date().timeIntervalSince(began)
        }
        // Timers falling due 1 s to 3 s from now, for both hosts to claim, until b is caught
        // inside its completion transaction.
        for index in 0..<40 { _ = try start(1 + Double(index) / 20) }
        let caught = SharedHostsEndToEndTests.await(15) {
            cluster.sql(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' AND datname = current_database()"
            ) != "0"
        }
        try #require(caught, "host s1 never sat inside a transaction: \(b.log().suffix(1_000))")
        kill(pidB, SIGSTOP)
        let stoppedAt = Date()
        let stopInstant = cluster.sql("SELECT clock_timestamp()")
        let held = cluster.sql(
            "SELECT string_agg(id::text, ',' ORDER BY id) FROM timerd_timers WHERE claimed_by = 's1' AND state = 'running'"
        )
        // While b is stopped: a start through a every 100 ms, each due 0.5 s to 2.5 s later.
        // And when the timers b held are seen finished (committed) by others, after the stop.
        var latencies: [Double] = []
        var index = 0
        var heldFinishedAfter: Double?
        let heldCount = held.split(separator: ",").count
        while Date().timeIntervalSince(stoppedAt) < stopSeconds {
            index += 1
            latencies.append(try start(0.5 + Double(index % 20) / 10))
            if heldFinishedAfter == nil, !held.isEmpty,
                cluster.sql("SELECT count(*) FROM timerd_timers WHERE id IN (\(held)) AND state = 'finished'")
                    == String(heldCount)
            {
                heldFinishedAfter = Date().timeIntervalSince(stoppedAt)
            }
            usleep(100_000)
        }
        kill(pidB, SIGCONT)
        let total = 40 + index
        let finished = SharedHostsEndToEndTests.await(20) {
            cluster.sql("SELECT count(*) FROM timerd_timers WHERE state = 'finished'") == String(total)
        }
        #expect(finished, "\(cluster.sql("SELECT state, count(*) FROM timerd_timers GROUP BY 1"))")
        usleep(1_500_000)  // b, resumed, finds its session ended and reconnects; nothing of it commits twice
        latencies.sort()
        let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        // Timers that fell due while b was stopped, and when b's held ones fired after the stop.
        let lateness = cluster.sql(
            """
            SELECT coalesce(max(extract(epoch FROM at - due_at)), -1) FROM timerd_events
            WHERE kind = 'finished' AND due_at >= '\(stopInstant)'
            """)
        let heldFiredAfterStop = heldFinishedAfter.map { String(format: "%.2f", $0) } ?? "never while stopped"
        let rescued = cluster.sql(
            "SELECT string_agg(DISTINCT timer_id::text, ',') FROM timerd_events WHERE kind = 'finished' AND rescue")
        print(
            "stalled host: stopped \(stopSeconds) s holding [\(held)], \(latencies.count) starts through s0, p99 "
                + String(format: "%.3f", p99) + " s (max \(String(format: "%.3f", latencies.last ?? 0)) s); "
                + "\(total) timers finished, max lateness of those due meanwhile \(lateness) s, held ones fired "
                + "\(heldFiredAfterStop) s after the stop, rescued [\(rescued)]")
        #expect(!held.isEmpty)
        #expect(p99 <= 1.0)
        // Timers due while b was stopped fired within the lease (5 s) + 1 s of their deadline (in
        // fact within the poll bound: a claims them, b's locks are skipped); the ones b held, whose
        // leases were taken before the stop, within the lease + 1 s of the stop.
        #expect((Double(lateness) ?? .infinity) <= SharedHostsEndToEndTests.lease + 1.0)
        #expect((heldFinishedAfter ?? .infinity) <= SharedHostsEndToEndTests.lease + 1.0)
        // Exactly once: one finished row per timer, after b resumed too.
        #expect(
            cluster.sql("SELECT count(*), count(DISTINCT timer_id) FROM timerd_events WHERE kind = 'finished'")
                == "\(total)|\(total)")
        // What b held was rescued by a (b's transaction was rolled back with its session).
        #expect(rescued == held)
        #expect(
            cluster.sql(
                "SELECT count(*) FROM timerd_events WHERE kind = 'finished' AND host_id = 's1' AND timer_id IN (\(held))"
            )
                == "0")
        #expect(b.log().contains("database unavailable"), "\(b.log().suffix(2_000))")
        // b serves again after it resumed.
        #expect(SharedHostsEndToEndTests.await(10) { b.ctl(["status"]).status == 0 })
        #expect(a.stopDaemon() == 0)
        #expect(b.stopDaemon() == 0)
    }

    @Test(
        "A second live host with the same --host-id is refused with a clear error; after the first is killed, it starts"
    )
    func duplicateHostID() throws {
        let cluster = try Cluster()
        let first = try SharedHostsEndToEndTests.host("same", cluster)
        let second = try Harness()
        let refused = Harness.run(
            Harness.timerd,
            [
                "--socket", second.socketPath, "--state-dir", second.stateDirectory, "--store", cluster.store,
                "--shared", "--host-id", "same",
            ])
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.stderr.contains(
                "another live timerd host uses host id \"same\" on this database schema (timerd on server pid "),
            "\(refused)")
        #expect(refused.stderr.contains("give each host its own --host-id"), "\(refused)")
        // A crash: the server ends the session, so the id is free for the host's restart.
        #expect(first.stopDaemon(signal: SIGKILL) == SIGKILL)
        try second.startDaemon(extraArguments: ["--store", cluster.store, "--shared", "--host-id", "same"])
        #expect(second.stopDaemon() == 0)
    }

    @Test(
        "--history-limit: after timers started and finished, each user keeps at most the limit of ended rows, and their outbox rows"
    )
    func historyLimit() throws {
        let cluster = try Cluster()
        let host = try SharedHostsEndToEndTests.host("p0", cluster)
        _ = host.stopDaemon()
        // A small limit keeps the test short; the rule is the one of --history-limit 1000.
        try host.startDaemon(extraArguments: [
            "--store", cluster.store, "--shared", "--host-id", "p0", "--history-limit", "100",
        ])
        let client = try RawClient(path: host.socketPath)
        let total = 600
        for i in 0..<total {
            client.send(#"{"jsonrpc":"2.0","id":\#(i),"method":"timer.start","params":{"durations":[0.5]}}"# + "\n")
        }
        for _ in 0..<total {
            let reply = try JSONObject.parse(try #require(client.readLine(timeout: 30)))
            #expect(reply["result"] != nil, "\(reply)")
        }
        // All finish about 0.5 s after their start; the ones past the limit go once the 10 s grace
        // (SharedHost.historyGraceSeconds) has passed, at the next prune (each second).
        let pruned = SharedHostsEndToEndTests.await(30) {
            cluster.sql("SELECT count(*) FROM timerd_timers") == "100"
        }
        #expect(pruned, "\(cluster.sql("SELECT state, count(*) FROM timerd_timers GROUP BY 1"))")
        #expect(cluster.sql("SELECT count(*) FROM timerd_timers WHERE state = 'finished'") == "100")
        // Their outbox rows stay (started, finished: 2 each); the others' are gone with them.
        #expect(cluster.sql("SELECT count(*) FROM timerd_events") == "200")
        #expect(
            cluster.sql(
                "SELECT count(*) FROM timerd_events e WHERE NOT EXISTS (SELECT 1 FROM timerd_timers t WHERE t.id = e.timer_id)"
            )
                == "0")
        #expect(host.stopDaemon() == 0)
    }

    @Test(
        "Behind pgbouncer: transaction pooling is refused at start with a clear error (both forms); session pooling works"
    )
    func pgbouncerPoolModes() throws {
        let cluster = try Cluster()
        func bouncer(_ mode: String) throws -> String {
            let (status, output) = PostgresTestCluster.runScript(["pgbouncer", cluster.directory, mode])
            guard status == 0, let last = output.split(separator: "\n").last else {
                throw SystemFailure("scripts/pg-cluster pgbouncer: \(output)")
            }
            return String(last)
        }
        let transaction = try bouncer("transaction")
        let harness = try Harness()
        for extra in [["--shared", "--host-id", "t0"], []] {
            // Under timeout(1): a timerd that started anyway (as it did) is ended after 15 s, exit 124.
            let refused = Harness.run(
                "/usr/bin/timeout",
                [
                    "15", Harness.timerd, "--socket", harness.socketPath, "--state-dir", harness.stateDirectory,
                    "--store", transaction,
                ] + extra)
            #expect(refused.status == 1, "\(refused)")
            #expect(
                refused.stderr.contains("the connection does not keep one database session (server process "),
                "\(refused)")
            #expect(
                refused.stderr.contains(
                    "a pooler in transaction or statement mode (pgbouncer pool_mode=transaction) loses LISTEN, "
                        + "advisory locks and session settings; connect timerd to PostgreSQL directly or through a "
                        + "pool in session mode"), "\(refused)")
        }
        // Session pooling keeps a session per client: two hosts through it, a timer started on one
        // and waited for on the other (the end reaches the other host through the outbox).
        let session = try bouncer("session")
        let a = try Harness()
        try a.startDaemon(extraArguments: ["--store", session, "--shared", "--host-id", "p0"])
        let b = try Harness()
        try b.startDaemon(extraArguments: ["--store", session, "--shared", "--host-id", "p1"])
        #expect(a.ctl(["start", "1s", "--name", "through-pool"]).status == 0)
        let began = Date()
        let waited = b.ctl(["wait", "through-pool"])
        #expect(waited.status == 0, "\(waited)")
        #expect(Date().timeIntervalSince(began) < 5)
        #expect(a.stopDaemon() == 0)
        #expect(b.stopDaemon() == 0)
    }

    @Test(
        "A failover to a promoted standby that lacks acknowledged starts (asynchronous replication): their ids are never handed out again, and events written there reach every host"
    )
    func failoverNeverReusesIDs() throws {
        let cluster = try Cluster()
        let (status, output) = PostgresTestCluster.runScript(["standby", cluster.directory])
        let both = try #require(status == 0 ? output.split(separator: "\n").last.map(String.init) : nil, "\(output)")
        let host = try Harness()
        try host.startDaemon(extraArguments: ["--store", both, "--shared", "--host-id", "f0"])
        /// Starts a timer named `name` and returns its id (timerctl prints `started ID "NAME": …`).
        func start(_ name: String, _ duration: String = "1h") -> Int? {
            let run = host.ctl(["start", duration, "--name", name])
            guard run.status == 0 else { return nil }
            return run.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        let replicated = try ["a1", "a2", "a3"].map { try #require(start($0)) }
        #expect(replicated == [1, 2, 3])
        // Wait until the standby has them, then cut it off: what the primary acknowledges next is
        // what asynchronous replication loses at a failover.
        let standby = "host=\(cluster.directory)/standby-socket user=postgres dbname=postgres"
        #expect(
            SharedHostsEndToEndTests.await(10) {
                Harness.run("/usr/bin/env", ["psql", standby, "-Atc", "SELECT count(*) FROM timerd_timers"]).stdout
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "3"
            })
        #expect(PostgresTestCluster.runScript(["detach", cluster.directory]).0 == 0)
        let lost = try ["b1", "b2", "b3"].map { try #require(start($0)) }
        #expect(lost == [4, 5, 6])
        // 200 more transactions on the primary, each taking a transaction id (one `-c` each), then a
        // start the host follows the outbox after: its cursor is now far past every transaction id
        // the standby replayed, so the new primary's first ids are below it.
        let burn = Harness.run(
            "/usr/bin/env",
            ["psql", cluster.store, "-Atq"]
                + Array(repeating: ["-c", "SELECT pg_current_xact_id()"], count: 200).flatMap { $0 })
        #expect(burn.status == 0, "\(burn)")
        #expect(start("b4") == 7)
        // The host is stopped through the failover; it sees the new primary only once the other host
        // has written there, below its cursor.
        let subscriber = try RawClient(path: host.socketPath)
        _ = try subscriber.subscribe(#""events":["started"]"#)
        let pid = try #require(host.daemon?.processIdentifier)
        kill(pid, SIGSTOP)
        #expect(PostgresTestCluster.runScript(["down", cluster.directory]).0 == 0)
        #expect(PostgresTestCluster.runScript(["promote", cluster.directory]).0 == 0)
        // Another host finds the promoted standby (target_session_attrs=read-write).
        let other = try Harness()
        try other.startDaemon(extraArguments: ["--store", both, "--shared", "--host-id", "f1"])
        var after: Int?
        _ = SharedHostsEndToEndTests.await(15) {
            let run = other.ctl(["start", "1h", "--name", "x1"])
            after = run.status == 0 ? run.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) } : nil
            return after != nil
        }
        let id = try #require(after, "\(other.log().suffix(1_500))")
        // The acknowledged starts b1…b4 are gone with the old primary (asynchronous replication
        // allows that), but their ids are not given to new timers: the sequence moved on by
        // PostgresTimerQueue.idGapAfterServerChange (1,000,000) past what the standby had.
        #expect(id > 1_000_000 && id < 1_000_100, "x1 got id \(id)")
        // 400 transactions on the new primary: its transaction ids pass the stopped host's cursor,
        // so a cursor of transaction ids alone would skip x1's `started` row for good.
        let burnNew = Harness.run(
            "/usr/bin/env",
            ["psql", standby, "-Atq"]
                + Array(repeating: ["-c", "SELECT pg_current_xact_id()"], count: 400).flatMap { $0 })
        #expect(burnNew.status == 0, "\(burnNew)")
        kill(pid, SIGCONT)
        // The resumed host reconnects and delivers x1's start: the outbox's `seq` moved on with the
        // ids, and a host follows rows above the last `seq` it read whatever their transaction id.
        var started: [String] = []
        let deadline = Date().addingTimeInterval(15)
        while started.isEmpty, let event = subscriber.nextNotification(timeout: deadline.timeIntervalSinceNow) {
            if event.event == "started", let name = (event.params["timer"] as? [String: Any])?["name"] as? String {
                started.append(name)
            }
        }
        #expect(started == ["x1"], "\(host.log().suffix(2_000))")
        let c1 = try #require(start("c1"), "\(host.log().suffix(1_500))")
        #expect(c1 > id && c1 < 1_000_100)
        let names = Harness.run(
            "/usr/bin/env", ["psql", standby, "-Atc", "SELECT string_agg(name, ',' ORDER BY id) FROM timerd_timers"])
        #expect(names.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "a1,a2,a3,x1,c1")
        #expect(other.stopDaemon() == 0)
        #expect(host.stopDaemon() == 0)
    }

    @Test(
        "A failover to a synchronous standby: every acknowledged start is there, a timer running across it finishes once, its event reaches a subscriber"
    )
    func failoverSynchronous() throws {
        let cluster = try Cluster()
        let (status, output) = PostgresTestCluster.runScript(["standby", cluster.directory, "sync"])
        let both = try #require(status == 0 ? output.split(separator: "\n").last.map(String.init) : nil, "\(output)")
        #expect(cluster.sql("SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'") == "sync")
        let host = try Harness()
        try host.startDaemon(extraArguments: ["--store", both, "--shared", "--host-id", "s0"])
        let subscriber = try RawClient(path: host.socketPath)
        _ = try subscriber.subscribe(#""events":["finished"]"#)
        /// Starts a timer named `name` and returns its id (timerctl prints `started ID "NAME": …`).
        func start(_ name: String, _ duration: String) -> Int? {
            let run = host.ctl(["start", duration, "--name", name])
            guard run.status == 0 else { return nil }
            return run.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        let before =
            try ["a1", "a2", "a3"].map { try #require(start($0, "1h")) } + [try #require(start("across", "4s"))]
        #expect(before == [1, 2, 3, 4])
        // No wait for the standby: with synchronous replication, a start is acknowledged only after
        // the standby flushed it, so all four are there when the primary stops at once.
        #expect(PostgresTestCluster.runScript(["down", cluster.directory]).0 == 0)
        #expect(PostgresTestCluster.runScript(["promote", cluster.directory]).0 == 0)
        var after: Int?
        _ = SharedHostsEndToEndTests.await(15) {
            after = start("c1", "1s")
            return after != nil
        }
        let id = try #require(after, "\(host.log().suffix(1_500))")
        #expect(id > 1_000_000 && id < 1_000_100, "c1 got id \(id)")
        let standby = "host=\(cluster.directory)/standby-socket user=postgres dbname=postgres"
        func standbySQL(_ query: String) -> String {
            Harness.run("/usr/bin/env", ["psql", standby, "-Atc", query]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(standbySQL("SELECT string_agg(name, ',' ORDER BY id) FROM timerd_timers") == "a1,a2,a3,across,c1")
        // The timer that ran across the failover and the one started after it each finish once,
        // and the subscriber hears of both.
        var finished: [String] = []
        let deadline = Date().addingTimeInterval(15)
        while finished.count < 2, let event = subscriber.nextNotification(timeout: deadline.timeIntervalSinceNow) {
            if event.event == "finished", let name = (event.params["timer"] as? [String: Any])?["name"] as? String {
                finished.append(name)
            }
        }
        #expect(finished.sorted() == ["across", "c1"], "\(host.log().suffix(2_000))")
        #expect(subscriber.nextNotification(timeout: 1) == nil)
        #expect(standbySQL("SELECT count(*) FROM timerd_events WHERE timer_id = 4 AND kind = 'finished'") == "1")
        #expect(host.stopDaemon() == 0)
    }
}
