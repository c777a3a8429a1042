import Countdown
import Foundation
import Glibc
import TestSupport
import Testing
import TimerPostgres
import TimerStorage

/// The database going away and coming back, on a cluster of this test's own (the shared one must
/// stay up for the other tests).
@Suite("PostgresStore: a database that goes down and comes back", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresOutageTests {
    @Test(
        "While the server is down a commit fails as database unavailable and changes nothing; after, the store goes on by itself"
    )
    func downAndUp() throws {
        let directory = "/tmp/timerd-pg-outage-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let (status, output) = PostgresTestCluster.runScript(
            ["start", directory], environment: ["PG_CLUSTER_FSYNC": "off", "PG_CLUSTER_OWNER_PID": String(getpid())])
        try #require(status == 0, "scripts/pg-cluster start: \(output)")
        defer { _ = PostgresTestCluster.runScript(["stop", directory]) }
        let connectionString = try #require(output.split(separator: "\n").last.map(String.init))
        let clock = ManualClock(wall: postgresTestTime)
        let store = PostgresStore(connectionString: connectionString, hostID: "host-a", bootID: "boot-a")
        var engine = TimerEngine(clock: clock, historyLimit: 100)
        _ = engine.restore(try store.load().snapshot, sameBoot: true)
        _ = try engine.start(durations: [600], name: "kept")
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })

        #expect(PostgresTestCluster.runScript(["down", directory]).0 == 0)
        _ = try engine.start(durations: [60], name: "refused")
        do {
            try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
            Issue.record("a commit succeeded with the server down")
        } catch {
            guard case .unavailable(let reason) = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
            #expect(reason.hasPrefix("database unavailable ("))
        }
        // What the daemon restores from: only what was committed.
        var durable = try store.durableState()
        #expect(durable.timers.map(\.name) == ["kept"])
        // As timerd's rollBack does: the next id never goes back.
        durable.nextID = max(durable.nextID, engine.snapshot.nextID)
        _ = engine.restore(durable, sameBoot: true)
        _ = engine.takeChanges()

        #expect(PostgresTestCluster.runScript(["up", directory]).0 == 0)
        clock.advance(bySeconds: 5)
        _ = try engine.pause(.name("kept"))
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        let connection = try PostgresConnection(connectionString: connectionString)
        // The refused timer 2 never reached the table; timer 1 is paused; ids 1 and 2 are used.
        #expect(
            try connection.query("SELECT id, name, state FROM timerd_timers ORDER BY id").rows == [
                ["1", "kept", "paused"]
            ])
        #expect(try connection.query("SELECT next_id FROM timerd_ids").int64(0, 0) == 3)
    }
}
