import Countdown
import Foundation
import Glibc
import TestSupport
import Testing

@testable import TimerPostgres

/// Recurring timers in shared mode (schema version 7) with hosts as queues on their own
/// connections to one schema: a firing rings the elapse and re-arms the next one in one transaction
/// under the claim's fence, so a claim that lost its fence or was already used writes nothing.
@Suite("PostgresTimerQueue: recurring timers under fences", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresTimerQueueRecurrenceTests {
    /// A connection with the schema migrated.
    private func queue(_ connectionString: String, host: String) throws -> PostgresTimerQueue {
        let connection = try PostgresConnection(connectionString: connectionString)
        try PostgresSchema.migrate(connection)
        return PostgresTimerQueue(connection: connection, hostID: host)
    }

    /// The timer's outbox rows: `kind:fence:host` with `detail` when it has one, in `seq` order.
    private func events(_ queue: PostgresTimerQueue, _ id: Int64) throws -> [String] {
        let rows = try queue.connection.query(
            """
            SELECT kind || ':' || fence || ':' || host_id || coalesce(' ' || detail::text, '')
            FROM timerd_events WHERE timer_id = $1 ORDER BY seq
            """, [String(id)])
        return rows.rows.compactMap { $0.first ?? nil }
    }

    /// Starts an `every` series of `seconds` on the database clock, as timerd's shared mode does.
    private func startEvery(_ queue: PostgresTimerQueue, seconds: Double) throws -> (id: Int64, wall: Date) {
        let wall = Date(timeIntervalSince1970: try queue.databaseNow())
        let request = TimerEngine.RecurrenceRequest(kind: .every(seconds: seconds, from: nil))
        let first = try TimerEngine.firstElapse(of: request, id: 0, wall: wall, systemZone: .gmt)
        let id = try queue.startRecurring(
            owner: 1000, name: "tick", action: nil, createdAt: wall.timeIntervalSince1970,
            provisionalRingAt: first.ringAt.timeIntervalSince1970
        ) { _ in (first.recurrence, first.ringAt.timeIntervalSince1970, Int64(seconds * 1e9)) }
        return (id, wall)
    }

    @Test("A firing rings once under its claim: elapsed row with missed 0, the next period armed, the claim released")
    func firingOnce() throws {
        let schema = try freshSchema()
        let hostA = try queue(schema.connectionString, host: "a")
        let (id, wall) = try startEvery(hostA, seconds: 0.6)
        let started = try #require(try hostA.timer(id: id, owner: 1000))
        // Every 0.6 s from the start (TimerEngine.firstElapse): the row is due then.
        #expect(started.recurrence?.rule == .every(seconds: 0.6) && started.recurrence?.elapseCount == 0)
        #expect(abs((started.dueAt ?? 0) - (wall.timeIntervalSince1970 + 0.6)) < 0.000_01)
        usleep(700_000)
        let claim = try #require(try hostA.claimDue(limit: 10, leaseSeconds: 30).first)
        #expect(claim.id == id && claim.isRecurring && claim.fence == 2)
        let firing = try #require(try hostA.completeRecurring(claim))
        // On time (under 1 s late): one elapse, missed 0, trigger elapsed; next 0.6 s after the one rung.
        #expect(firing.ring.missed == 0 && firing.ring.trigger == .elapsed)
        #expect(firing.ring.recurrence.elapseCount == 1)
        let ringAt = try #require(firing.ring.ringAt).timeIntervalSince1970
        #expect(abs(ringAt - (wall.timeIntervalSince1970 + 1.2)) < 0.000_01)
        // The same claim again: its row is no longer claimed by it, nothing is written.
        #expect(try hostA.completeRecurring(claim) == nil)
        let after = try #require(try hostA.timer(id: id, owner: 1000))
        #expect(after.state == "running" && after.recurrence?.elapseCount == 1 && after.fence == 2)
        #expect(abs((after.dueAt ?? 0) - ringAt) < 0.000_01)
        #expect(try events(hostA, id) == [#"started:1:a"#, #"elapsed:2:a {"missed": 0}"#])
        #expect(
            try hostA.connection.query("SELECT claimed_by IS NULL FROM timerd_timers WHERE id = $1", [String(id)])
                .value(0, 0) == "t")
    }

    @Test(
        "A claim fenced by a pause, or rescued by another host after its lease, writes nothing; the rescuer rings once")
    func fencedAndRescued() throws {
        let schema = try freshSchema()
        let hostA = try queue(schema.connectionString, host: "a")
        let hostB = try queue(schema.connectionString, host: "b")
        let (id, _) = try startEvery(hostA, seconds: 0.5)
        usleep(600_000)
        let paused = try #require(try hostA.claimDue(limit: 10, leaseSeconds: 30).first)
        // A pause from B moves the fence on (3): A's claim (fence 2) cannot fire.
        #expect(try hostB.pause(id: id, owner: 1000) != nil)
        #expect(try hostA.completeRecurring(paused) == nil)
        #expect(try hostB.resume(id: id, owner: 1000) != nil)
        // A claims (lease 0.2 s) and "dies"; B takes the claim over after the lease and rings it.
        usleep(700_000)
        let lost = try #require(try hostA.claimDue(limit: 10, leaseSeconds: 0.2).first)
        usleep(400_000)
        let rescue = try #require(try hostB.claimDue(limit: 10, leaseSeconds: 30).first)
        #expect(rescue.id == id && rescue.isRescue && rescue.fence == lost.fence + 1)
        #expect(try hostB.completeRecurring(rescue) != nil)
        #expect(try hostA.completeRecurring(lost) == nil)
        // One elapsed row, the rescuer's, under its fence (start 1, claim 2, pause 3, resume 4, claims 5 and 6).
        let rows = try events(hostA, id)
        #expect(rows.filter { $0.hasPrefix("elapsed") }.count == 1)
        #expect(rows.first { $0.hasPrefix("elapsed") }?.hasPrefix("elapsed:6:b") == true, "\(rows)")
        #expect(try hostA.timer(id: id, owner: 1000)?.recurrence?.elapseCount ?? 0 >= 1)
    }
}
