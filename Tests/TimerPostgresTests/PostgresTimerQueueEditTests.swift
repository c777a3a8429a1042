import Foundation
import Glibc
import TestSupport
import Testing

@testable import TimerPostgres

/// The edits of shared mode (``PostgresTimerQueue/extend(id:owner:byNanoseconds:maximumTotalSeconds:actionLeaseSeconds:)``,
/// `skip`, `restart`, `rename`) with hosts as queues on their own connections to one schema: the
/// fence moves on where a deadline moves, so a claim taken before cannot complete; the outbox rows
/// carry the members of their notifications.
@Suite("PostgresTimerQueue: edits under fences", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresTimerQueueEditTests {
    /// 366 days in seconds (`DurationParser.maximumSeconds`).
    static let maximum = 366.0 * 86_400

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

    /// One column of the timer's row.
    private func column(_ queue: PostgresTimerQueue, _ id: Int64, _ expression: String) throws -> String? {
        try queue.connection.query("SELECT \(expression) FROM timerd_timers WHERE id = $1", [String(id)]).value(0, 0)
    }

    @Test("A claim taken before an extend cannot complete the timer under the old fence; the new deadline holds")
    func claimBeforeExtendIsFenced() throws {
        let schema = try freshSchema()
        let hostA = try queue(schema.connectionString, host: "a")
        let hostB = try queue(schema.connectionString, host: "b")
        let id = try hostA.start(owner: 1000, name: "tea", segmentsNanoseconds: [50_000_000])
        usleep(150_000)
        let claims = try hostB.claimDue(limit: 10, leaseSeconds: 30)
        #expect(claims.map(\.id) == [id])
        let claim = try #require(claims.first)
        // Host A adds 60 s while B holds the claim of the old deadline (fence 2: start 1, claim 2).
        let outcome = try hostA.extend(
            id: id, owner: 1000, byNanoseconds: 60_000_000_000, maximumTotalSeconds: Self.maximum)
        #expect(outcome == .applied(.init(fence: claim.fence + 1, appliedNanoseconds: 60_000_000_000)))
        #expect(try hostB.complete(claim) == .fenceLost)
        // The lease is cleared and the row waits for its new deadline, 60 s on.
        #expect(
            try column(hostA, id, "coalesce(claimed_by, '-') || ' ' || state || ' ' || segments_ns::text")
                == "- running {60050000000}")
        #expect(try hostB.claimDue(limit: 10, leaseSeconds: 30) == [])
        let left = try #require(try hostA.timer(id: id, owner: 1000)).stepRemainingNanoseconds
        // 60 s less what passed since the old deadline (0.1 s here; at most 5 s on a loaded machine).
        #expect(left > 55_000_000_000 && left < 60_000_000_000)
        #expect(try events(hostA, id) == [#"started:1:a"#, #"extended:3:a {"by": 60.0}"#])
        // Another owner sees no such timer.
        #expect(
            try hostB.extend(id: id, owner: 1001, byNanoseconds: 1_000, maximumTotalSeconds: Self.maximum)
                == .refused(.notFound))
    }

    @Test("Extend: paused keeps its remaining plus the amount; past 366 days refused; ended refused")
    func extendRules() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let id = try host.start(owner: 7, name: nil, segmentsNanoseconds: [600_000_000_000, 60_000_000_000])
        let kept = try #require(try host.pause(id: id, owner: 7))
        #expect(
            try host.extend(id: id, owner: 7, byNanoseconds: -100_000_000_000, maximumTotalSeconds: Self.maximum)
                == .applied(.init(fence: 3, appliedNanoseconds: -100_000_000_000)))
        // Paused: the kept time moves by exactly the amount, the first step's length with it.
        #expect(try column(host, id, "remaining_ns") == String(kept - 100_000_000_000))
        #expect(try column(host, id, "segments_ns::text || ' ' || state") == "{500000000000,60000000000} paused")
        // 366 days in all is the limit (DurationParser.maximumSeconds): reaching it is allowed, one
        // second more is refused, and a group reports the total it would have had.
        let past = Int64(Self.maximum * 1e9) - 560_000_000_000 + 1_000_000_000
        #expect(
            try host.extend(id: id, owner: 7, byNanoseconds: past - 1_000_000_000, maximumTotalSeconds: Self.maximum)
                == .applied(.init(fence: 4, appliedNanoseconds: past - 1_000_000_000)))
        #expect(
            try host.extend(id: id, owner: 7, byNanoseconds: 1_000_000_000, maximumTotalSeconds: Self.maximum)
                == .refused(.tooLong(totalSeconds: Self.maximum + 1, isGroup: true)))
        #expect(try host.stop(id: id, owner: 7))
        #expect(
            try host.extend(id: id, owner: 7, byNanoseconds: 1_000, maximumTotalSeconds: Self.maximum)
                == .refused(.wrongState("stopped")))
    }

    @Test("Extend by more than is left ends the step as skip does: a plain timer finishes at once, even paused")
    func negativeExtendClamps() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let id = try host.start(
            owner: 7, name: "eggs", segmentsNanoseconds: [180_000_000_000], action: #"{"notify":true}"#)
        #expect(try host.pause(id: id, owner: 7) != nil)
        let left = try #require(try host.timer(id: id, owner: 7)).stepRemainingNanoseconds
        let outcome = try host.extend(
            id: id, owner: 7, byNanoseconds: -3_600_000_000_000, maximumTotalSeconds: Self.maximum,
            actionLeaseSeconds: 5)
        // Clamped to what was left; the finish holds the on-finish action for this host under fence 3.
        let finished = PostgresTimerQueue.FinishedTimer(
            owner: 7, name: "eggs", totalNanoseconds: 180_000_000_000, action: #"{"notify":true}"#)
        #expect(outcome == .applied(.init(fence: 3, appliedNanoseconds: -left, stepEnd: .finished, finished: finished)))
        #expect(
            try column(host, id, "state || ' ' || live || ' ' || action_state || ' ' || claimed_by")
                == "finished false pending a")
        // `by` as applied, seconds as the engine writes them (`-Double(left) / 1e9`); jsonb's text form.
        let by = #"{"by": "# + "\(-Double(left) / 1e9)}"
        #expect(try events(host, id) == ["started:1:a", "paused:2:a", "extended:3:a \(by)", "finished:3:a"])
        #expect(try host.markActionStarted(id: id, fence: 3))
    }

    @Test("Skip: a claim in flight is fenced; a paused group goes on paused; its last step finishes it")
    func skipRules() throws {
        let schema = try freshSchema()
        let hostA = try queue(schema.connectionString, host: "a")
        let hostB = try queue(schema.connectionString, host: "b")
        let plain = try hostA.start(owner: 7, name: nil, segmentsNanoseconds: [60_000_000_000])
        #expect(try hostA.skip(id: plain, owner: 7) == .refused(.notAGroup))
        let id = try hostA.start(
            owner: 7, name: "g", segmentsNanoseconds: [50_000_000, 30_000_000_000, 40_000_000_000])
        usleep(150_000)
        let claim = try #require(try hostB.claimDue(limit: 10, leaseSeconds: 30).first)
        #expect(claim.id == id)
        #expect(try hostA.skip(id: id, owner: 7) == .applied(.init(fence: claim.fence + 1, stepEnd: .nextStep(1))))
        #expect(try hostB.complete(claim) == .fenceLost)
        // Step 2 (index 1) runs from the skip: due its whole 30 s later.
        let row = try #require(try hostA.timer(id: id, owner: 7))
        #expect(row.step == 1 && row.state == "running")
        #expect(row.stepRemainingNanoseconds > 25_000_000_000 && row.stepRemainingNanoseconds <= 30_000_000_000)
        #expect(try hostA.pause(id: id, owner: 7) != nil)
        #expect(try hostA.skip(id: id, owner: 7) == .applied(.init(fence: 5, stepEnd: .nextStep(2))))
        // Paused on the last step with its whole length left.
        #expect(try column(hostA, id, "state || ' ' || step || ' ' || remaining_ns") == "paused 2 40000000000")
        // No action: nothing is held after the finish.
        #expect(try hostA.skip(id: id, owner: 7) == .applied(.init(fence: 6, stepEnd: .finished)))
        #expect(try column(hostA, id, "state || ' ' || live || ' ' || coalesce(claimed_by, '-')") == "finished false -")
        #expect(try hostA.skip(id: id, owner: 7) == .refused(.wrongState("finished")))
        #expect(
            try events(hostA, id) == [
                "started:1:a", "step:3:a", "paused:4:a", "step:5:a", "finished:6:a",
            ])
    }

    @Test("Restart: an ended timer comes back if its name is free and under the quota; created_at stays")
    func restartRules() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let id = try host.start(owner: 7, name: "tea", segmentsNanoseconds: [60_000_000_000])
        #expect(try host.stop(id: id, owner: 7))
        let holder = try host.start(owner: 7, name: "tea", segmentsNanoseconds: [60_000_000_000])
        #expect(try host.restart(id: id, owner: 7, quota: nil) == .refused(.nameInUse(holder: holder)))
        #expect(try host.stop(id: holder, owner: 7))
        _ = try host.start(owner: 7, name: nil, segmentsNanoseconds: [60_000_000_000])
        #expect(try host.restart(id: id, owner: 7, quota: 1) == .refused(.quotaExceeded))
        let created = try #require(try host.timer(id: id, owner: 7)).createdAt
        usleep(20_000)
        #expect(try host.restart(id: id, owner: 7, quota: 2) == .applied(.init(fence: 3)))
        let row = try #require(try host.timer(id: id, owner: 7))
        #expect(row.state == "running" && row.endedAt == nil && row.createdAt == created && row.startedAt > created)
        #expect(row.stepRemainingNanoseconds > 55_000_000_000 && row.stepRemainingNanoseconds <= 60_000_000_000)
        // A live timer restarts too, from its first step; the fence moves on each time.
        #expect(try host.restart(id: id, owner: 7, quota: 2) == .applied(.init(fence: 4)))
        #expect(try events(host, id) == ["started:1:a", "stopped:2:a", "restarted:3:a", "restarted:4:a"])
    }

    @Test(
        "Beat: a heartbeat timer re-armed from now (a paused one resumed), counted, fence on; refusals as on one host")
    func beatRules() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let plain = try host.start(owner: 7, name: "plain", segmentsNanoseconds: [60_000_000_000])
        #expect(try host.beat(id: plain, owner: 7) == .refused(.notAHeartbeat))
        let id = try host.start(owner: 7, name: "hb", segmentsNanoseconds: [60_000_000_000], heartbeat: true)
        // A claim left on the row (as a host holding it would) is cleared by the beat.
        try host.connection.query(
            "UPDATE timerd_timers SET claimed_by = 'b', claim_until = now() + interval '30 s' WHERE id = $1",
            [String(id)])
        // Fences: start 1, beat 2.
        #expect(try host.beat(id: id, owner: 7) == .applied(.init(fence: 2)))
        #expect(
            try column(host, id, "beat_count || ' ' || state || ' ' || coalesce(claimed_by, '-') || ' ' || fence")
                == "1 running - 2")
        let beaten = try #require(try host.timer(id: id, owner: 7))
        #expect(beaten.isHeartbeat && beaten.beatCount == 1)
        #expect(
            beaten.lastBeatAt
                == (try column(host, id, #"to_char(last_beat_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#))
        )
        // The whole 60 s from the beat, less the moments since (at most 5 s on a loaded machine).
        #expect(beaten.stepRemainingNanoseconds > 55_000_000_000 && beaten.stepRemainingNanoseconds <= 60_000_000_000)
        // Another owner sees no such timer.
        #expect(try host.beat(id: id, owner: 8) == .refused(.notFound))
        // Paused (fence 3): the beat resumes it with its whole duration (fence 4).
        #expect(try host.pause(id: id, owner: 7) != nil)
        #expect(try host.beat(id: id, owner: 7) == .applied(.init(fence: 4)))
        #expect(
            try column(host, id, "beat_count || ' ' || state || ' ' || coalesce(remaining_ns::text, '-')")
                == "2 running -")
        // A restart (fence 5) counts afresh.
        #expect(try host.restart(id: id, owner: 7, quota: nil) == .applied(.init(fence: 5)))
        #expect(try column(host, id, "beat_count || ' ' || coalesce(last_beat_at::text, '-')") == "0 -")
        // Stopped (fence 6): refused with its state, nothing written.
        #expect(try host.stop(id: id, owner: 7))
        #expect(try host.beat(id: id, owner: 7) == .refused(.wrongState("stopped")))
        #expect(
            try events(host, id) == [
                "started:1:a", "beat:2:a", "paused:3:a", "beat:4:a", "restarted:5:a", "stopped:6:a",
            ])
        // At or after the deadline, before any host finished it: too late, with the deadline.
        let late = try host.start(owner: 7, name: nil, segmentsNanoseconds: [50_000_000], heartbeat: true)
        usleep(150_000)
        let due = try #require(
            try column(host, late, #"to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#))
        #expect(try host.beat(id: late, owner: 7) == .refused(.beatTooLate(end: due)))
        #expect(try events(host, late) == ["started:1:a"])
    }

    @Test("Rename: unique among live timers, ended ones too; the fence and a held action stay")
    func renameRules() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let first = try host.start(owner: 7, name: "tea", segmentsNanoseconds: [60_000_000_000])
        let second = try host.start(owner: 7, name: nil, segmentsNanoseconds: [60_000_000_000])
        #expect(try host.rename(id: second, owner: 7, to: "tea") == .refused(.nameInUse(holder: first)))
        #expect(try host.rename(id: second, owner: 8, to: "soup") == .refused(.notFound))
        #expect(try host.rename(id: second, owner: 7, to: "soup") == .applied(.init(fence: 1)))
        #expect(try host.stop(id: first, owner: 7))
        // An ended timer may take a live one's name (names are unique among live timers only), twice
        // under one fence: two `renamed` rows (the outbox's once-per-fence index leaves them out).
        #expect(try host.rename(id: first, owner: 7, to: "soup") == .applied(.init(fence: 2)))
        #expect(try host.rename(id: first, owner: 7, to: "green tea") == .applied(.init(fence: 2)))
        #expect(
            try events(host, first) == [
                "started:1:a", "stopped:2:a", #"renamed:2:a {"from": "tea"}"#, #"renamed:2:a {"from": "soup"}"#,
            ])
        #expect(try events(host, second) == ["started:1:a", #"renamed:1:a {"from": null}"#])
        // The once-per-fence rule still holds for a finish.
        #expect(throws: PostgresError.self) {
            try host.connection.query(
                "INSERT INTO timerd_events (timer_id, kind, fence, host_id) VALUES ($1, 'stopped', 2, 'b')",
                [String(first)])
        }
    }
}
