import Countdown
import Foundation
import Synchronization
import TestSupport
import Testing
import TimerModel
import TimerPostgres
import TimerStorage

/// When these tests' engines run: 2026-12-01T06:00:00Z.
let postgresTestTime = Date(timeIntervalSince1970: 1_796_104_800)

/// The PostgreSQL store's own rules, beyond the conformance suite (which TimerStorageTests runs on
/// it as the `postgres` case).
@Suite(
    "PostgresStore: one transaction per commit, refusals, outbox, migration",
    .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresStoreTests {
    /// A store and an engine over a fresh schema, booted as timerd boots.
    private func boot(_ connectionString: String, host: String = "host-a") throws -> (PostgresStore, TimerEngine) {
        let store = PostgresStore(connectionString: connectionString, hostID: host, bootID: "boot-a")
        let loaded = try store.load()
        var engine = TimerEngine(clock: ManualClock(wall: postgresTestTime), historyLimit: 100)
        _ = engine.restore(loaded.snapshot, sameBoot: loaded.isSameBoot)
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        return (store, engine)
    }

    @Test("A name a live timer of the owner holds is refused by the database, and nothing of that commit stays")
    func nameTaken() throws {
        let schema = try freshSchema()
        var (store, engine) = try boot(schema.connectionString)
        _ = try engine.start(durations: [60], name: "tea")
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        // A second engine over the same durable state hands out id 2 for another "tea" (the engine
        // checks names only among its own timers, so this is what a second writer would send).
        let other = TimerRecord(
            id: 2, name: "tea", durations: [90], segmentNanoseconds: [90_000_000_000], state: .running,
            accumulatedNanoseconds: 0, runStart: BootInstant(nanoseconds: 5), runStartWall: postgresTestTime,
            createdAt: postgresTestTime, startedAt: postgresTestTime, endedAt: nil, missed: false, owner: 0,
            wallDeadline: nil)
        let plain = TimerRecord(
            id: 3, name: nil, durations: [30], segmentNanoseconds: [30_000_000_000], state: .running,
            accumulatedNanoseconds: 0, runStart: BootInstant(nanoseconds: 5), runStartWall: postgresTestTime,
            createdAt: postgresTestTime, startedAt: postgresTestTime, endedAt: nil, missed: false, owner: 0,
            wallDeadline: nil)
        #expect(throws: StoreError.nameTaken(owner: 0, name: "tea")) {
            try store.commit(
                EngineChanges(nextID: 4, updated: [plain, other]), durability: .synchronous,
                snapshot: { engine.snapshot })
        }
        // Timer 3 came in the same commit and is gone with it; the next id did not move.
        let connection = try PostgresConnection(connectionString: schema.connectionString)
        #expect(try connection.query("SELECT array_agg(id ORDER BY id)::text FROM timerd_timers").value(0, 0) == "{1}")
        #expect(try connection.query("SELECT next_id FROM timerd_ids").int64(0, 0) == 2)
        #expect(try store.durableState().timers.map(\.id) == [1])
        // Another owner may use the name.
        var mine = other
        mine.owner = 1000
        try store.commit(
            EngineChanges(nextID: 3, updated: [mine]), durability: .synchronous, snapshot: { engine.snapshot })
        #expect(try connection.query("SELECT count(*) FROM timerd_timers WHERE name = 'tea'").int64(0, 0) == 2)
    }

    @Test("Names with quotes, backslashes, commas, braces and non-ASCII survive the batched array form")
    func awkwardNames() throws {
        let schema = try freshSchema()
        var (store, engine) = try boot(schema.connectionString)
        // Each name breaks a naively built array literal (PostgreSQL documentation 8.15.2); NULL
        // is the unnamed timer.
        let names = [#"a "quoted" name"#, #"back\slash"#, "comma, {brace}", "NULL", "thé ☕️", ""]
        for name in names { _ = try engine.start(durations: [60], name: name.isEmpty ? nil : name) }
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        let connection = try PostgresConnection(connectionString: schema.connectionString)
        let stored = try connection.query("SELECT name FROM timerd_timers ORDER BY id").rows.map { $0[0] }
        #expect(stored == names.map { $0.isEmpty ? nil : $0 })
        // And the engine's records come back whole.
        let reloaded = PostgresStore(connectionString: schema.connectionString, hostID: "host-a", bootID: "boot-a")
        try store.close(engine.snapshot)
        #expect(try reloaded.load().snapshot == engine.snapshot)
    }

    @Test("An id handed out before is refused")
    func idReused() throws {
        let schema = try freshSchema()
        var (store, engine) = try boot(schema.connectionString, host: "host-b")
        _ = try engine.start(durations: [60])
        _ = try engine.start(durations: [60])
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        _ = try engine.stop(.id(2))
        let changes = engine.takeChanges()
        try store.commit(
            EngineChanges(nextID: 3, removed: [2]), durability: .synchronous, snapshot: { engine.snapshot })
        // Timer 2 is gone from the table; its id stays used.
        #expect(throws: StoreError.idReused(2)) {
            try store.commit(changes, durability: .synchronous, snapshot: { engine.snapshot })
        }
    }

    @Test("A second timerd on the same schema is refused while the first holds it")
    func singleWriter() throws {
        let schema = try freshSchema()
        let (first, _) = try boot(schema.connectionString)
        let second = PostgresStore(connectionString: schema.connectionString, hostID: "host-b", bootID: "boot-b")
        second.lockWaitMilliseconds = 200
        do {
            _ = try second.load()
            Issue.record("a second writer loaded the schema")
        } catch {
            guard case .locked(let reason) = error else {
                Issue.record("expected locked, got \(error)")
                return
            }
            #expect(reason.contains("another timerd"))
        }
        try first.close(EngineSnapshot(nextID: 1, timers: []))
        #expect(try second.load().isEmpty)
    }

    @Test("Every transition writes one outbox row under the timer's fence; a finish under one fence is written once")
    func outbox() throws {
        let schema = try freshSchema()
        let clock = ManualClock(wall: postgresTestTime)
        let store = PostgresStore(connectionString: schema.connectionString, hostID: "host-a", bootID: "boot-a")
        _ = try store.load()
        var engine = TimerEngine(clock: clock, historyLimit: 100)
        func commit() throws {
            try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        }
        _ = try engine.start(durations: [60], name: "tea")
        try commit()
        clock.advance(bySeconds: 10)
        _ = try engine.pause(.id(1))
        try commit()
        _ = try engine.resume(.id(1))
        try commit()
        clock.advance(bySeconds: 51)
        #expect(engine.fireDueTimers().count == 1)
        try store.commit(engine.takeChanges(), durability: .mayBatch, snapshot: { engine.snapshot })
        let connection = try PostgresConnection(connectionString: schema.connectionString)
        // started (fence 1), paused (still 1), resumed (fence 2: a new run), finished (2).
        let rows = try connection.query("SELECT kind, fence, host_id FROM timerd_events ORDER BY seq")
        #expect(
            rows.rows == [
                ["started", "1", "host-a"], ["paused", "1", "host-a"], ["resumed", "2", "host-a"],
                ["finished", "2", "host-a"],
            ])
        let row = try connection.query(
            "SELECT state, live, remaining_ns, version, fence FROM timerd_timers WHERE id = 1")
        #expect(row.rows == [["finished", "f", nil, "4", "2"]])
        // The outbox is unique on (timer_id, kind, fence): a second finish under fence 2 is refused.
        #expect(throws: PostgresError.self) {
            try connection.query(
                "INSERT INTO timerd_events (timer_id, kind, fence, host_id) VALUES (1, 'finished', 2, 'host-b')")
        }
    }

    @Test("Hosts migrating at once apply each version exactly once")
    func concurrentMigration() throws {
        let schema = try freshSchema()
        let applied = Mutex<[[Int]]>([])
        let failures = Mutex<[String]>([])
        let threads = (0..<4).map { _ in
            Thread {
                do {
                    let connection = try PostgresConnection(connectionString: schema.connectionString)
                    let versions = try PostgresSchema.migrate(connection)
                    applied.withLock { $0.append(versions) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        for thread in threads { thread.start() }
        let deadline = Date().addingTimeInterval(30)
        while applied.withLock({ $0.count }) + failures.withLock({ $0.count }) < 4 && Date() < deadline {
            usleep(10_000)
        }
        #expect(failures.withLock { $0 } == [])
        // One of the four applied versions 1 to 8 (PostgresSchema.migrations); the others waited on the advisory
        // lock and found them done.
        #expect(applied.withLock { $0 }.sorted { $0.count > $1.count } == [[1, 2, 3, 4, 5, 6, 7, 8], [], [], []])
        let connection = try PostgresConnection(connectionString: schema.connectionString)
        #expect(
            try connection.query("SELECT array_agg(version ORDER BY version)::text FROM timerd_schema").value(0, 0)
                == "{1,2,3,4,5,6,7,8}")
    }
}
