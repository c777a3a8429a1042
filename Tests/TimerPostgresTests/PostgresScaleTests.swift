import Foundation
import Glibc
import TestSupport
import Testing

@testable import TimerPostgres

/// What lets shared mode scale and survive stalled hosts (docs/multihost.md, "The protocol"): ids
/// from a sequence, session timeouts, index-bounded claims and deadlines, batched completions,
/// history pruning, one live session per host id.
@Suite(
    "PostgresTimerQueue at scale: ids, timeouts, plans, batches, pruning, host ids",
    .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresScaleTests {
    private func queue(
        _ connectionString: String, host: String, timeouts: PostgresSessionTimeouts = .standard
    ) throws -> PostgresTimerQueue {
        let connection = try PostgresConnection(connectionString: connectionString, timeouts: timeouts)
        try PostgresSchema.migrate(connection)
        return PostgresTimerQueue(connection: connection, hostID: host)
    }

    @Test("A start inside another host's open transaction does not wait for it; a rolled-back id is never reused")
    func idsFromASequence() throws {
        let schema = try freshSchema()
        let a = try queue(schema.connectionString, host: "a")
        let b = try queue(schema.connectionString, host: "b")
        try a.connection.execute("BEGIN")
        let held = try a.start(owner: 1, name: nil, segmentsNanoseconds: [60_000_000_000])
        // Host a sits in its transaction (a stopped host). With the one-row id counter, b waited
        // on that row until a ended; from the sequence it takes the next id at once.
        let began = Date()
        let other = try b.start(owner: 1, name: nil, segmentsNanoseconds: [60_000_000_000])
        #expect(Date().timeIntervalSince(began) < 1)
        try a.connection.execute("ROLLBACK")
        let after = try b.start(owner: 1, name: nil, segmentsNanoseconds: [60_000_000_000])
        // 1, 2, 3 in the order drawn: the rolled-back 1 stays a gap (nextval is never rolled back).
        #expect([held, other, after] == [1, 2, 3])
        let ids = try b.connection.query("SELECT string_agg(id::text, ',' ORDER BY id) FROM timerd_timers")
        #expect(ids.value(0, 0) == "2,3")
    }

    @Test("After the database server changed (restart, promoted standby), ids jump past what it may have lost")
    func idsAfterServerChange() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        // The migration recorded this server's start: no jump.
        #expect(try host.checkIDs() == false)
        #expect(try host.start(owner: 1, name: nil, segmentsNanoseconds: [1_000_000_000]) == 1)
        // As a promoted standby sees it: the row names another server's start.
        try host.connection.execute("UPDATE timerd_ids SET server_started_at = '2000-01-01 00:00:00+00'")
        #expect(try host.checkIDs())
        #expect(try host.checkIDs() == false)  // once per change
        // The last id handed out (1) + the gap + 1.
        #expect(
            try host.start(owner: 1, name: nil, segmentsNanoseconds: [1_000_000_000])
                == 2 + PostgresTimerQueue.idGapAfterServerChange)
        // The one-host store's counter is respected too (a schema served by both forms in turn).
        try host.connection.execute("UPDATE timerd_ids SET next_id = 5000000")
        try host.checkIDs()
        #expect(try host.start(owner: 1, name: nil, segmentsNanoseconds: [1_000_000_000]) == 5_000_000)
    }

    @Test("Session timeouts are set at connect and again after a reconnect; idling in a transaction ends the session")
    func sessionTimeouts() throws {
        let schema = try freshSchema()
        let timeouts = PostgresSessionTimeouts(
            lockMilliseconds: 1_500, statementMilliseconds: 20_000, idleInTransactionMilliseconds: 400)
        let connection = try PostgresConnection(connectionString: schema.connectionString, timeouts: timeouts)
        let shown =
            "SELECT current_setting('lock_timeout') || ' ' || current_setting('statement_timeout') || ' ' "
            + "|| current_setting('idle_in_transaction_session_timeout')"
        // PostgreSQL shows milliseconds in its own units (SHOW's format).
        #expect(try connection.query(shown).value(0, 0) == "1500ms 20s 400ms")
        try connection.execute("BEGIN")
        usleep(1_000_000)
        // The server ended the session after 400 ms idle in the transaction (SQLSTATE 25P03).
        #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
        #expect(!connection.isConnected)
        #expect(try connection.reconnectIfNeeded())
        #expect(try connection.query(shown).value(0, 0) == "1500ms 20s 400ms")
        // A row lock held by another session: the wait ends at lock_timeout (55P03), not never.
        let holder = try PostgresConnection(connectionString: schema.connectionString)
        try holder.execute("CREATE TABLE held (id int PRIMARY KEY); INSERT INTO held VALUES (1)")
        try holder.execute("BEGIN; SELECT * FROM held FOR UPDATE")
        let began = Date()
        #expect(throws: PostgresError.server(sqlState: "55P03", message: "canceling statement due to lock timeout")) {
            try connection.query("UPDATE held SET id = 2")
        }
        #expect(Date().timeIntervalSince(began) < 3)
        try holder.execute("ROLLBACK")
    }

    @Test("A direct connection keeps its session (the pooler check passes); behind transaction pooling it does not")
    func sessionKept() throws {
        let schema = try freshSchema()
        let connection = try PostgresConnection(connectionString: schema.connectionString)
        try connection.checkSessionIsKept()
        // Transaction pooling itself is tried with pgbouncer by SharedHostsRobustnessEndToEndTests.
    }

    @Test("A migration waits for another host's migration longer than the session's lock_timeout")
    func migrationIgnoresLockTimeout() throws {
        let schema = try freshSchema()
        let connectionString = schema.connectionString
        let locked = DispatchSemaphore(value: 0)
        // As a host in the middle of a migration holds it, for 0.6 s.
        let holder = Thread {
            let holder = try? PostgresConnection(connectionString: connectionString)
            _ = try? holder?.execute(
                "BEGIN; SELECT pg_advisory_xact_lock(hashtext('timerd-migrate:' || current_schema()))")
            locked.signal()
            usleep(600_000)
            _ = try? holder?.execute("COMMIT")
        }
        holder.start()
        locked.wait()
        let connection = try PostgresConnection(
            connectionString: schema.connectionString,
            timeouts: PostgresSessionTimeouts(
                lockMilliseconds: 100, statementMilliseconds: 30_000, idleInTransactionMilliseconds: 3_000))
        let began = Date()
        #expect(try PostgresSchema.migrate(connection) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(Date().timeIntervalSince(began) >= 0.5)
        // The session's own timeout is back after the migration's transaction.
        #expect(try connection.query("SELECT current_setting('lock_timeout')").value(0, 0) == "100ms")
    }

    @Test("A batch completes many claims in one statement, each under its own fence, with its outbox rows")
    func batchedCompletion() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let plain = try host.start(owner: 1, name: "plain", segmentsNanoseconds: [1_000_000])
        let paused = try host.start(owner: 1, name: "paused", segmentsNanoseconds: [1_000_000])
        let group = try host.start(owner: 1, name: "group", segmentsNanoseconds: [1_000_000, 60_000_000_000])
        usleep(50_000)
        let claims = try host.claimDue(limit: 10, leaseSeconds: 30)
        #expect(Set(claims.map(\.id)) == [plain, paused, group])
        // Paused after its claim: its fence moved on, so its completion is refused.
        #expect(try host.pause(id: paused, owner: 1) != nil)
        let byID = Dictionary(uniqueKeysWithValues: claims.map { ($0.id, $0) })
        let ordered = try [plain, paused, group].map { try #require(byID[$0]) }
        let outcomes = try host.completeBatch(ordered)
        #expect(outcomes.map(\.completion) == [.finished, .fenceLost, .nextStep(1)])
        #expect(outcomes[0].finished?.name == "plain")
        #expect(outcomes[0].finished?.totalNanoseconds == 1_000_000)
        let events = try host.connection.query(
            "SELECT string_agg(timer_id || ':' || kind || ':' || fence, ',' ORDER BY timer_id, seq) FROM timerd_events "
                + "WHERE kind IN ('finished', 'step')")
        // Each claim's fence is 2 (1 at the start, + 1 by the claim).
        #expect(events.value(0, 0) == "\(plain):finished:2,\(group):step:2")
        // The same batch again: every fence is spent (the finish and the step are written once).
        #expect(try host.completeBatch(ordered).map(\.completion) == [.fenceLost, .fenceLost, .fenceLost])
    }

    @Test("History pruning keeps each owner's newest ended timers and deletes the rest with their outbox rows")
    func historyPruning() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        for index in 0..<12 { try host.start(owner: 1, name: "a\(index)", segmentsNanoseconds: [1_000_000]) }
        for index in 0..<3 { try host.start(owner: 2, name: "b\(index)", segmentsNanoseconds: [1_000_000]) }
        let live = try host.start(owner: 1, name: "live", segmentsNanoseconds: [60_000_000_000])
        usleep(50_000)
        let claims = try host.claimDue(limit: 100, leaseSeconds: 30)
        #expect(claims.count == 15)
        _ = try host.completeBatch(claims)
        // Within the grace nothing goes.
        #expect(try host.pruneHistory(limit: 5, maximumAgeSeconds: nil, graceSeconds: 60) == [])
        let pruned = try host.pruneHistory(limit: 5, maximumAgeSeconds: nil, graceSeconds: 0)
        // Owner 1 keeps its 5 newest ended of 12 (ended in one statement, so the newest by id);
        // owner 2 is under the limit.
        #expect(pruned.count == 7)
        let left = try host.connection.query(
            "SELECT owner, count(*) FILTER (WHERE NOT live), count(*) FILTER (WHERE live) FROM timerd_timers "
                + "GROUP BY owner ORDER BY owner")
        #expect(left.rows == [["1", "5", "1"], ["2", "3", "0"]])
        let orphans = try host.connection.query(
            "SELECT count(*) FROM timerd_events e WHERE NOT EXISTS (SELECT 1 FROM timerd_timers t WHERE t.id = e.timer_id)"
        )
        #expect(orphans.int64(0, 0) == 0)
        // The age limit: every ended timer is older than 0 s.
        _ = try host.pruneHistory(limit: 1_000, maximumAgeSeconds: 0.000001, graceSeconds: 0)
        #expect(
            try host.connection.query("SELECT string_agg(id::text, ',') FROM timerd_timers").value(0, 0) == "\(live)")
    }

    @Test("A second live session with the same host id is refused, naming the holder; after it ends the id is free")
    func duplicateHostID() throws {
        let schema = try freshSchema()
        var first: PostgresTimerQueue? = try queue(schema.connectionString, host: "web1")
        try first?.lockHostID(waitMilliseconds: 0)
        let second = try queue(schema.connectionString, host: "web1")
        let other = try queue(schema.connectionString, host: "web2")
        try other.lockHostID(waitMilliseconds: 0)
        do {
            try second.lockHostID(waitMilliseconds: 0)
            Issue.record("a second session took host id web1")
        } catch {
            guard case .server(let sqlState, let message) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(sqlState == "TD004")
            #expect(
                message.hasPrefix(
                    "another live timerd host uses host id \"web1\" on this database schema (timerd on server pid "))
            #expect(message.hasSuffix("; give each host its own --host-id"))
        }
        first = nil  // the session ends (a crashed host): its id is free again
        try second.lockHostID(waitMilliseconds: 3_000)
    }

    @Test("Claims, the next deadline, the earliest check of a start and status by name read indexes, not the table")
    func indexBoundedPlans() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        try Self.fill(host.connection, rows: 20_000)
        func plan(_ sql: String, _ parameters: [String?]) throws -> String {
            let rows = try host.connection.query("EXPLAIN (ANALYZE, BUFFERS) " + sql, parameters)
            return rows.rows.compactMap { $0.first ?? nil }.joined(separator: "\n")
        }
        let plans = [
            "claim": try plan(PostgresTimerQueue.claimSQL, ["a", "5", "500"]),
            "next": try plan(PostgresTimerQueue.nextDueSQL, []),
            "start": try plan(PostgresTimerQueue.startSQL, ["7", nil, "{60000000000}", "a", nil, nil, "f"]),
            "name": try plan(PostgresTimerQueue.namedTimerSQL, ["n12345", "7"]),
        ]
        for (what, text) in plans.sorted(by: { $0.key < $1.key }) {
            #expect(!text.contains("Seq Scan on timerd_timers"), "\(what):\n\(text)")
            // At 20,000 rows a scan reads hundreds of pages; an index probe a handful.
            let read = Self.buffers(text)
            #expect(read < 100, "\(what): \(read) buffers\n\(text)")
        }
    }

    /// `rows` live running timers of owner 7, named `n0` …, due 1 to 2 h from now, unclaimed.
    static func fill(_ connection: PostgresConnection, rows: Int) throws {
        try connection.query(
            """
            INSERT INTO timerd_timers (id, owner, name, live, state, due_at, step, steps, fence, written_by,
                segments_ns, created_at)
            SELECT nextval('timerd_timer_ids'), 7, 'n' || i, true, 'running',
                now() + make_interval(secs => 3600 + i % 3600), 0, 1, 1, 'fill', '{3600000000000}', now()
            FROM generate_series(0, $1::int - 1) i
            """, [String(rows)])
        try connection.execute("ANALYZE timerd_timers")
    }

    /// The largest `Buffers: shared hit=H read=R` sum of a plan's top node (EXPLAIN's first such line).
    static func buffers(_ plan: String) -> Int {
        guard let line = plan.split(separator: "\n").first(where: { $0.contains("Buffers:") }) else { return 0 }
        return line.split(whereSeparator: { $0 == " " || $0 == "," }).reduce(0) { sum, part in
            let pieces = part.split(separator: "=")
            guard pieces.count == 2, ["hit", "read", "dirtied", "written"].contains(pieces[0]) else { return sum }
            return sum + (Int(pieces[1]) ?? 0)
        }
    }

    @Test(
        "Start, status by name and an idle claim at 1k and 100k live timers (opt-in: TIMERD_PG_SCALE=1)",
        .enabled(if: ProcessInfo.processInfo.environment["TIMERD_PG_SCALE"] != nil))
    func scaleFigures() throws {
        var figures: [String] = []
        for size in [1_000, 100_000] {
            let schema = try freshSchema()
            let host = try queue(schema.connectionString, host: "a")
            try Self.fill(host.connection, rows: size)
            func p50(_ body: () throws -> Void) rethrows -> Double {
                var samples: [Double] = []
                for _ in 0..<300 {
                    let began = DispatchTime.now().uptimeNanoseconds
                    try body()
                    samples.append(Double(DispatchTime.now().uptimeNanoseconds - began) / 1e6)
                }
                return samples.sorted()[samples.count / 2]
            }
            var index = 0
            let start = try p50 {
                index += 1
                try host.start(owner: 8, name: "s\(index)", segmentsNanoseconds: [7_200_000_000_000])
            }
            let status = try p50 { _ = try host.timer(named: "n\(Int.random(in: 0..<size))", owner: 7) }
            let claim = try p50 { _ = try host.claimDue(limit: 500, leaseSeconds: 5) }
            let next = try p50 { _ = try host.secondsUntilNextDue(cap: 1) }
            // timerd's quota check before a start, for the owner of every filled row (default limit 10,000).
            let quota = try p50 { _ = try host.liveCount(owner: 7, atMost: 10_000) }
            figures.append(
                String(
                    format: "%d live: start p50 %.3f ms, status by name p50 %.3f ms, idle claim p50 %.3f ms, "
                        + "next deadline p50 %.3f ms, quota count (limit 10,000) p50 %.3f ms", size, start, status,
                    claim, next, quota))
            // What each reads (EXPLAIN (ANALYZE, BUFFERS), the top node's buffers) and its plan's nodes.
            for (what, sql, parameters) in [
                ("start", PostgresTimerQueue.startSQL, ["8", nil, "{7200000000000}", "a", nil, nil, "f"]),
                ("status by name", PostgresTimerQueue.namedTimerSQL, ["n\(size / 2)", "7"]),
                ("idle claim", PostgresTimerQueue.claimSQL, ["a", "5", "500"]),
                ("next deadline", PostgresTimerQueue.nextDueSQL, []),
            ] as [(String, String, [String?])] {
                let plan = try host.connection.query("EXPLAIN (ANALYZE, BUFFERS) " + sql, parameters)
                    .rows.compactMap { $0.first ?? nil }
                let scans = plan.filter { $0.contains("Scan") }.map {
                    $0.trimmingCharacters(in: .whitespaces).split(separator: "(").first.map(String.init) ?? ""
                }
                print("plan at \(size) live, \(what): \(Self.buffers(plan.joined(separator: "\n"))) buffers; \(scans)")
            }
        }
        print("scale figures: " + figures.joined(separator: "; "))
    }
}
