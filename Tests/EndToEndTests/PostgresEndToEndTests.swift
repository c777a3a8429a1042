import Foundation
import Glibc
import TestSupport
import Testing

/// timerd with `--store` on a throw-away PostgreSQL cluster of this suite's own: it is
/// stopped and restarted here, which the shared test cluster must not be.
@Suite(
    "timerd on PostgreSQL (one host)", .serialized, .tags(.endToEnd), .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresEndToEndTests {
    @Test(
        "Timers live in the database: ping names it, a database outage fails requests clearly, timerd recovers by itself, a restart keeps them"
    )
    func singleHost() throws {
        let cluster = "/tmp/timerd-e2e-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let (status, output) = PostgresTestCluster.runScript(
            ["start", cluster], environment: ["PG_CLUSTER_FSYNC": "off", "PG_CLUSTER_OWNER_PID": String(getpid())])
        try #require(status == 0, "scripts/pg-cluster start: \(output)")
        defer { _ = PostgresTestCluster.runScript(["stop", cluster]) }
        let store = try #require(output.split(separator: "\n").last.map(String.init))
        let harness = try Harness()
        try harness.startDaemon(extraArguments: ["--store", store, "--host-id", "e2e-a"])

        let ping = harness.ctl(["ping"])
        #expect(ping.status == 0)
        // ControlCommand's ping lines: the store as timerd names it, then the host id.
        #expect(ping.stdout.hasSuffix("store: postgresql \(store)\nhost: e2e-a\n"), "\(ping)")
        #expect(harness.ctl(["start", "1h", "--name", "tea"]).status == 0)
        #expect(harness.ctl(["pause", "tea"]).status == 0)

        // A crash-like restart of the server between requests: the next request reconnects.
        #expect(PostgresTestCluster.runScript(["restart", cluster]).0 == 0)
        #expect(harness.ctl(["start", "5m", "--name", "after-restart"]).status == 0, "\(harness.log())")

        // Down: a changing request fails at once with the store's reason, and is not kept.
        #expect(PostgresTestCluster.runScript(["down", cluster]).0 == 0)
        let began = Date()
        let refused = harness.ctl(["start", "5m", "--name", "while-down"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("database unavailable ("), "\(refused)")
        #expect(Date().timeIntervalSince(began) < 10)
        // Reads are served from memory meanwhile.
        #expect(harness.ctl(["status", "tea"]).status == 0)
        #expect(PostgresTestCluster.runScript(["up", cluster]).0 == 0)
        #expect(harness.ctl(["start", "5m", "--name", "after-up"]).status == 0, "\(harness.log())")

        // A second timerd on the same database is refused while this one serves it.
        let second = Harness.run(
            Harness.timerd, ["--socket", harness.directory + "/second.sock", "--store", store, "--host-id", "e2e-b"])
        #expect(second.status == 1)
        #expect(second.stderr.contains("another timerd"), "\(second)")

        #expect(harness.stopDaemon() == 0)
        try harness.startDaemon(extraArguments: ["--store", store, "--host-id", "e2e-a"])
        let listed = harness.ctl(["status", "--json"])
        #expect(listed.status == 0)
        let timers = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        let names = timers.compactMap { $0["name"] as? String }.sorted()
        // What was acknowledged, and nothing else: "while-down" was refused.
        #expect(names == ["after-restart", "after-up", "tea"])
        #expect(timers.first { $0["name"] as? String == "tea" }?["state"] as? String == "paused")
        #expect(harness.stopDaemon() == 0)
    }

    @Test(
        "--migrate-only creates then finds the schema; store= in the file selects the database; a password is refused")
    func migrateAndConfig() throws {
        let base = try PostgresTestCluster.connectionString()
        let schema = "e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        // A schema of its own on the shared cluster, made by the first timerd that connects.
        let store = base + " options='-csearch_path=\(schema),public'"
        let harness = try Harness()
        let createSchema = Harness.run(
            Harness.timerd, ["--store", store + " x_no_such_keyword=1", "--migrate-only"])
        // libpq refuses an unknown keyword before connecting: exit 1 with its message.
        #expect(createSchema.status == 1)
        #expect(createSchema.stderr.contains("invalid PostgreSQL connection string"), "\(createSchema)")
        let secret = Harness.run(
            Harness.timerd, ["--store", "postgresql://timerd:secret@localhost/timers", "--migrate-only"])
        #expect(secret.status == 1)
        #expect(secret.stderr.contains("it holds a password"), "\(secret)")
        // An empty configuration file (a missing one named by --config is an error of its own, exit 78).
        try "".write(toFile: harness.directory + "/none.conf", atomically: false, encoding: .utf8)
        let noStore = Harness.run(Harness.timerd, ["--migrate-only", "--config", harness.directory + "/none.conf"])
        #expect(noStore.status == 64)

        let psqlSchema = Harness.run("/usr/bin/env", ["psql", base, "-qc", "CREATE SCHEMA \(schema)"])
        try #require(psqlSchema.status == 0, "\(psqlSchema)")
        // The messages of DaemonCommand.migrate: the first run applies every version
        // (PostgresSchema.migrations), the second none.
        let first = Harness.run(Harness.timerd, ["--store", store, "--migrate-only"])
        #expect(first.status == 0)
        #expect(first.stdout == "timerd: schema migrated to version 8 (applied 1, 2, 3, 4, 5, 6, 7, 8)\n", "\(first)")
        let second = Harness.run(Harness.timerd, ["--store", store, "--migrate-only"])
        #expect(second.stdout == "timerd: schema already at version 8\n", "\(second)")

        let config = harness.directory + "/timerd.conf"
        try "store=\(store)\n".write(toFile: config, atomically: true, encoding: .utf8)
        try harness.startDaemon(extraArguments: ["--config", config, "--host-id", "from-file"])
        let ping = harness.ctl(["ping"])
        #expect(ping.stdout.hasSuffix("store: postgresql \(store)\nhost: from-file\n"), "\(ping)")
        #expect(harness.ctl(["start", "10m", "--name", "in-db"]).status == 0)
        let rows = Harness.run(
            "/usr/bin/env", ["psql", base, "-Atc", "SELECT name, written_by FROM \(schema).timerd_timers"])
        #expect(rows.stdout == "in-db|from-file\n", "\(rows)")
        #expect(harness.stopDaemon() == 0)
    }
}
