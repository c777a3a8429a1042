import Countdown
import Foundation
import Glibc
import TestSupport
import Testing

@testable import TimerPostgres

/// Groups started by a series in shared mode (schema version 8) with hosts as queues: the run of an
/// elapse is written in the firing's transaction, a queued run in the transaction that ends its
/// predecessor, a `restart` stops the run in the firing's transaction, and a series' stop stops its
/// run (the trigger `timerd_series_runs`). "The same transaction" is read from the outbox's `txid`.
@Suite("PostgresTimerQueue: series groups", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresTimerQueueSeriesGroupTests {
    /// A connection with the schema migrated.
    private func queue(_ connectionString: String, host: String) throws -> PostgresTimerQueue {
        let connection = try PostgresConnection(connectionString: connectionString)
        try PostgresSchema.migrate(connection)
        return PostgresTimerQueue(connection: connection, hostID: host)
    }

    /// An `every` series of `seconds` starting `group`, as timerd's shared mode starts one.
    private func startSeries(_ queue: PostgresTimerQueue, seconds: Double, group: SeriesGroup) throws -> (
        id: Int64, wall: Date
    ) {
        let wall = Date(timeIntervalSince1970: try queue.databaseNow())
        let request = TimerEngine.RecurrenceRequest(kind: .every(seconds: seconds, from: nil), group: group)
        let first = try TimerEngine.firstElapse(of: request, id: 0, wall: wall, systemZone: .gmt)
        let id = try queue.startRecurring(
            owner: 1000, name: "standup", action: nil, createdAt: wall.timeIntervalSince1970,
            provisionalRingAt: first.ringAt.timeIntervalSince1970, group: group
        ) { _ in (first.recurrence, first.ringAt.timeIntervalSince1970, Int64(seconds * 1e9)) }
        return (id, wall)
    }

    /// One text of the query's first column (`nil` when no row).
    private func value(_ queue: PostgresTimerQueue, _ sql: String, _ parameters: [String?] = []) throws -> String? {
        try queue.connection.query(sql, parameters).value(0, 0)
    }

    /// The timer's outbox rows as `kind:fence:host`, in `seq` order.
    private func events(_ queue: PostgresTimerQueue, _ id: Int64) throws -> [String] {
        try queue.connection.query(
            "SELECT kind || ':' || fence || ':' || host_id FROM timerd_events WHERE timer_id = $1 ORDER BY seq",
            [String(id)]
        ).rows.compactMap { $0.first ?? nil }
    }

    /// The series' group columns: run (or `-`), queued, runs, skipped.
    private func group(_ queue: PostgresTimerQueue, _ id: Int64) throws -> String? {
        try value(
            queue,
            """
            SELECT coalesce(sg_run::text, '-') || ' ' || sg_queued || ' ' || sg_run_count || ' ' || sg_skipped_count
            FROM timerd_timers WHERE id = $1
            """, [String(id)])
    }

    /// Sleeps until `seconds` after `wall` (a database instant; the test's clock is the database's
    /// machine).
    private func sleep(until seconds: Double, after wall: Date) {
        let left = wall.addingTimeInterval(seconds).timeIntervalSinceNow
        if left > 0 { usleep(UInt32(left * 1e6)) }
    }

    @Test(
        "queue: the run starts in the firing's transaction; the next waits and starts in the transaction that finishes the first"
    )
    func queuedRun() throws {
        let schema = try freshSchema()
        let hostA = try queue(schema.connectionString, host: "a")
        let hostB = try queue(schema.connectionString, host: "b")
        // Every 2 s from the start S; runs of 3 s. S+2: run 1 (to S+5.x); S+4: it runs, one waits;
        // S+5.x: host b finishes run 1, which starts run 2.
        let (id, wall) = try startSeries(hostA, seconds: 2, group: SeriesGroup(durations: [3], overlap: .queue))
        #expect(try group(hostA, id) == "- false 0 0")
        sleep(until: 2.2, after: wall)
        let first = try #require(try hostA.claimDue(limit: 10, leaseSeconds: 30).first)
        let firing = try #require(try hostA.completeRecurring(first))
        let run1 = try #require(firing.run)
        #expect(try group(hostA, id) == "\(run1) false 1 0")
        // The run's `started` row is in the transaction of the series' `elapsed` row.
        let sameFiring = try value(
            hostA,
            """
            SELECT (SELECT txid FROM timerd_events WHERE timer_id = $1 AND kind = 'elapsed')
                = (SELECT txid FROM timerd_events WHERE timer_id = $2 AND kind = 'started')
            """, [String(id), String(run1)])
        #expect(sameFiring == "t")
        let run = try #require(try hostA.timer(id: run1, owner: 1000))
        #expect(run.name == nil && run.segmentsNanoseconds == [3_000_000_000] && run.state == "running")
        #expect(run.recurrence == nil && run.seriesGroup == nil)
        sleep(until: 4.2, after: wall)
        let second = try #require(try hostA.claimDue(limit: 10, leaseSeconds: 30).first)
        #expect(second.id == id)
        #expect(try hostA.completeRecurring(second)?.run == nil)
        #expect(try group(hostA, id) == "\(run1) true 1 0")
        // The series reads back with its group: durations, rule, run, queue mark, counts, run step.
        let series = try #require(try hostA.timer(id: id, owner: 1000))
        var expected = SeriesGroup(durations: [3], overlap: .queue)
        (expected.run, expected.queued, expected.runCount) = (UInt64(run1), true, 1)
        #expect(series.seriesGroup == expected && series.runStep == 1)
        // Host b claims and finishes run 1 (due S+5.2, before the series' S+6).
        sleep(until: 5.5, after: wall)
        let claims = try hostB.claimDue(limit: 10, leaseSeconds: 30)
        #expect(claims.map(\.id) == [run1])
        #expect(try hostB.completeBatch(claims).map(\.completion) == [.finished])
        let run2 = try #require(try value(hostA, "SELECT sg_run FROM timerd_timers WHERE id = $1", [String(id)]))
        #expect(try group(hostA, id) == "\(run2) false 2 0")
        let sameEnd = try value(
            hostA,
            """
            SELECT (SELECT txid FROM timerd_events WHERE timer_id = $1 AND kind = 'finished')
                = (SELECT txid FROM timerd_events WHERE timer_id = $2::bigint AND kind = 'started')
            """, [String(run1), run2])
        #expect(sameEnd == "t")
        #expect(try events(hostA, run1) == ["started:1:a", "finished:2:b"])
        #expect(try events(hostA, Int64(run2) ?? 0) == ["started:1:b"])
    }

    @Test(
        "restart: the firing stops the live run and starts a new one in its transaction; a series' stop stops its run")
    func restartAndStop() throws {
        let schema = try freshSchema()
        let hostA = try queue(schema.connectionString, host: "a")
        let (id, wall) = try startSeries(hostA, seconds: 1, group: SeriesGroup(durations: [30, 30], overlap: .restart))
        sleep(until: 1.2, after: wall)
        let firstClaim = try #require(try hostA.claimDue(limit: 10, leaseSeconds: 30).first)
        let run1 = try #require(try hostA.completeRecurring(firstClaim)?.run)
        sleep(until: 2.2, after: wall)
        let claim = try #require(try hostA.claimDue(limit: 10, leaseSeconds: 30).first)
        #expect(claim.id == id)
        let run2 = try #require(try hostA.completeRecurring(claim)?.run)
        #expect(run2 != run1)
        #expect(try group(hostA, id) == "\(run2) false 2 0")
        #expect(try events(hostA, run1) == ["started:1:a", "stopped:2:a"])
        let together = try value(
            hostA,
            """
            SELECT count(DISTINCT txid) FROM timerd_events
            WHERE (timer_id = $1 AND kind = 'elapsed' AND fence = $2) OR (timer_id = $3 AND kind = 'stopped')
                OR (timer_id = $4 AND kind = 'started')
            """, [String(id), String(claim.fence), String(run1), String(run2)])
        #expect(together == "1")
        // Stopping the series stops run 2 in the same transaction; the series lets go of it.
        #expect(try hostA.stop(id: id, owner: 1000))
        #expect(try group(hostA, id) == "- false 2 0")
        #expect(try hostA.timer(id: run2, owner: 1000)?.state == "stopped")
        #expect(try events(hostA, run2) == ["started:1:a", "stopped:2:a"])
        let stoppedTogether = try value(
            hostA,
            "SELECT count(DISTINCT txid) FROM timerd_events WHERE timer_id IN ($1, $2) AND kind = 'stopped'",
            [String(id), String(run2)])
        #expect(stoppedTogether == "1")
    }
}
