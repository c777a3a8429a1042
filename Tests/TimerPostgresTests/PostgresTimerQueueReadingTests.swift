import Foundation
import Glibc
import TestSupport
import Testing
import TimerPostgres

/// What timerd's shared mode reads through ``PostgresTimerQueue``: rows with their time figures
/// computed on the database clock, the outbox followed by transaction id, removal and pruning.
@Suite("PostgresTimerQueue: rows, outbox following, removal, pruning", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresTimerQueueReadingTests {
    private func queue(_ connectionString: String, host: String) throws -> PostgresTimerQueue {
        let connection = try PostgresConnection(connectionString: connectionString)
        try PostgresSchema.migrate(connection)
        return PostgresTimerQueue(connection: connection, hostID: host)
    }

    @Test("An event whose seq was drawn first but committed last is still followed (a seq cursor would skip it)")
    func outOfOrderCommit() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let slow = try PostgresConnection(connectionString: schema.connectionString)
        let cursor = try host.eventCursor()
        // The slow transaction takes seq n first and commits after the fast one took n + 1.
        try slow.execute("BEGIN")
        try slow.query("INSERT INTO timerd_events (timer_id, kind, fence, host_id) VALUES (900, 'started', 1, 'slow')")
        try host.start(owner: 5, name: "fast", segmentsNanoseconds: [60_000_000_000])
        let early = try host.followEvents(after: cursor)
        // The open transaction holds the snapshot's xmin back: nothing after it is handed out yet.
        #expect(early.events.isEmpty)
        try slow.execute("COMMIT")
        // The test cluster is shared with suites running in parallel: a transaction open anywhere in
        // it holds the snapshot's xmin back too (xids are cluster-wide), so the rows may come over
        // a few calls. Followed until both came, for at most 20 s.
        var events: [SharedEventRow] = []
        var position = early.cursor
        let giveUp = Date().addingTimeInterval(20)
        while events.count < 2 && Date() < giveUp {
            let step = try host.followEvents(after: position)
            events += step.events
            position = step.cursor
            if events.count < 2 { usleep(20_000) }
        }
        // Both rows, in seq order: the slow one (900) first although it committed last.
        try #require(events.map(\.timerID) == [900, 1])
        #expect(events.map(\.kind) == ["started", "started"])
        #expect(events[1].timer?.name == "fast")
        #expect(try host.followEvents(after: position).events.isEmpty)
    }

    @Test("A group's row: its step, the time left on the database clock, endsAt; pause keeps it; stop ends it")
    func rows() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let id = try host.start(owner: 7, name: "g", segmentsNanoseconds: [30_000_000_000, 60_000_000_000])
        let row = try #require(try host.timer(id: id, owner: 7))
        #expect(row.state == "running")
        #expect(row.step == 0)
        #expect(row.segmentsNanoseconds == [30_000_000_000, 60_000_000_000])
        // Just started: at most 2 s of the first 30 s step passed (a loaded machine).
        #expect(row.stepRemainingNanoseconds <= 30_000_000_000 && row.stepRemainingNanoseconds > 28_000_000_000)
        #expect(row.elapsedNanoseconds == 30_000_000_000 - row.stepRemainingNanoseconds)
        #expect(row.endsAt != nil)
        #expect(try host.timer(id: id, owner: 8) == nil)  // another owner's: not found
        #expect(try host.timer(named: "g", owner: nil)?.id == id)  // root sees it
        let left = try #require(try host.pause(id: id, owner: 7))
        let paused = try #require(try host.timer(id: id, owner: 7))
        #expect(paused.state == "paused")
        #expect(paused.stepRemainingNanoseconds == left)
        #expect(paused.endsAt == nil)
        #expect(try host.stop(id: id, owner: 7))
        let stopped = try #require(try host.timer(id: id, owner: 7))
        // A stop keeps the time that was left (here: what the pause kept).
        #expect(stopped.state == "stopped")
        #expect(stopped.stepRemainingNanoseconds == left)
        #expect(stopped.endedAt != nil)
        #expect(try host.timers(owner: 7, includeEnded: false).isEmpty)
        #expect(try host.timers(owner: 7, includeEnded: true).map(\.id) == [id])
    }

    @Test("Removal takes ended timers only, of the owner; pruning keeps the finished rows of existing timers")
    func removeAndPrune() throws {
        let schema = try freshSchema()
        let host = try queue(schema.connectionString, host: "a")
        let live = try host.start(owner: 3, name: "live", segmentsNanoseconds: [60_000_000_000])
        let ended = try host.start(owner: 3, name: "ended", segmentsNanoseconds: [1_000_000])
        usleep(20_000)
        let claims = try host.claimDue(limit: 10, leaseSeconds: 5)
        #expect(claims.map(\.id) == [ended])
        #expect(try host.complete(claims[0]) == .finished)
        #expect(try host.removeEnded(id: live, owner: 3).isEmpty)
        #expect(try host.removeEnded(id: ended, owner: 4).isEmpty)
        #expect(try host.removeEnded(id: nil, owner: 3).map(\.id) == [ended])
        // Rows: started(live), started(ended), finished(ended). With age 0 every row is old
        // enough; the `finished` row's timer was removed, so it goes too: 3 rows.
        let pruned = try host.pruneEvents(maximumAgeSeconds: 0, maximumCount: 1_000_000)
        #expect(pruned == 3)
        let again = try host.start(owner: 3, name: nil, segmentsNanoseconds: [1_000_000])
        usleep(20_000)
        let second = try host.claimDue(limit: 10, leaseSeconds: 5)
        #expect(try host.complete(try #require(second.first)) == .finished)
        // Its `finished` row stays (the timer exists); its `started` row goes.
        #expect(try host.pruneEvents(maximumAgeSeconds: 0, maximumCount: 1_000_000) == 1)
        let left = try host.connection.query("SELECT timer_id, kind FROM timerd_events")
        #expect(left.rows == [[String(again), "finished"]])
    }
}
