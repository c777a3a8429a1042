import Glibc
import TestSupport
import Testing
import TimerPostgres

@Suite("PostgresConnection: libpq statements, transactions and errors", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresConnectionTests {
    @Test("Parameters are bound, never spliced into the SQL text")
    func parameters() throws {
        let connection = try PostgresConnection(connectionString: try freshSchema().connectionString)
        // 41 + 1: arithmetic; the quote in the text parameter would break a spliced statement.
        let rows = try connection.query("SELECT $1::bigint + 1, $2::text, $3::text IS NULL", ["41", "it's", nil])
        #expect(rows.columns.count == 3)
        #expect(rows.int64(0, 0) == 42)
        #expect(rows.value(0, 1) == "it's")
        #expect(rows.value(0, 2) == "t")  // PostgreSQL's text output of boolean true
    }

    @Test("bytea round-trips through the hex format")
    func byteaRoundTrip() throws {
        let connection = try PostgresConnection(connectionString: try freshSchema().connectionString)
        let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xff, 0x5c]
        // The server's own rendering of these bytes in hex format (documentation 8.4.1).
        #expect(PostgresRows.encodeHex(bytes) == "\\x00017f80ff5c")
        let rows = try connection.query("SELECT $1::bytea, length($1::bytea)", [PostgresRows.encodeHex(bytes)])
        #expect(rows.bytes(0, 0) == bytes)
        #expect(rows.int64(0, 1) == 6)
    }

    @Test("A transaction that throws leaves nothing behind; one that returns commits")
    func transactions() throws {
        let connection = try PostgresConnection(connectionString: try freshSchema().connectionString)
        try connection.execute("CREATE TABLE t (k integer PRIMARY KEY)")
        try connection.transaction { connection throws(PostgresError) in
            try connection.query("INSERT INTO t VALUES (1)")
        }
        #expect(throws: PostgresError.self) {
            try connection.transaction { connection throws(PostgresError) in
                try connection.query("INSERT INTO t VALUES (2)")
                try connection.query("INSERT INTO t VALUES (1)")  // duplicate key: the whole transaction goes
            }
        }
        #expect(try connection.query("SELECT array_agg(k ORDER BY k)::text FROM t").value(0, 0) == "{1}")
    }

    @Test("SQLSTATE classes map to the error cases")
    func errorClasses() throws {
        let connection = try PostgresConnection(connectionString: try freshSchema().connectionString)
        try connection.execute("CREATE TABLE u (k integer CONSTRAINT u_k UNIQUE)")
        try connection.query("INSERT INTO u VALUES (1)")
        // 23505 unique_violation names the constraint (PostgreSQL Appendix A).
        do {
            try connection.query("INSERT INTO u VALUES (1)")
            Issue.record("a duplicate key was accepted")
        } catch let PostgresError.constraint(sqlState, constraint, _) {
            #expect(sqlState == "23505")
            #expect(constraint == "u_k")
        }
        // 25006 read_only_sql_transaction, as a standby answers every write.
        try connection.execute("BEGIN READ ONLY")
        do {
            try connection.query("INSERT INTO u VALUES (2)")
            Issue.record("a write in a read-only transaction was accepted")
        } catch PostgresError.readOnly {
        }
        try connection.execute("ROLLBACK")
        // 42601 syntax_error is neither.
        #expect(throws: PostgresError.self) { try connection.query("SELEC 1") }
        do { try connection.query("SELEC 1") } catch PostgresError.server(let sqlState, _) {
            #expect(sqlState == "42601")
        }
    }

    @Test("A server that is not there is unavailable; a password in the string is refused")
    func connectFailures() throws {
        // An empty directory: no server socket in it.
        let directory = "/tmp/timerd-no-pg-\(UInt32.random(in: 0...UInt32.max))"
        #expect(throws: PostgresError.self) {
            try PostgresConnection(connectionString: "host=\(directory) dbname=x connect_timeout=2")
        }
        do {
            _ = try PostgresConnection(connectionString: "host=\(directory) dbname=x")
        } catch {
            guard case .unavailable(let message) = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
            #expect(message.contains(directory))
            #expect(error.description.hasPrefix("database unavailable ("))
        }
        #expect(
            throws: PostgresError.invalidConnectionString(
                "it holds a password; put the password in PGPASSFILE or ~/.pgpass (or PGPASSWORD) instead")
        ) {
            try PostgresConnection(connectionString: "postgresql://u:secret@localhost/db")
        }
        #expect(throws: PostgresError.self) { try PostgresConnection(connectionString: "host='unterminated") }
    }

    @Test("The connection comes back after the server ends it")
    func reconnect() throws {
        let connection = try PostgresConnection(connectionString: try freshSchema().connectionString)
        let first = connection.backendPID
        let killer = try PostgresConnection(connectionString: try PostgresTestCluster.connectionString())
        try killer.query("SELECT pg_terminate_backend($1)", [String(first)])
        // The next call finds the connection gone (57P01 admin_shutdown or a closed socket).
        do {
            try connection.query("SELECT 1")
            Issue.record("a terminated connection answered")
        } catch {
            guard case .unavailable = error else {
                Issue.record("expected unavailable, got \(error)")
                return
            }
        }
        #expect(!connection.isConnected)
        #expect(try connection.reconnectIfNeeded())
        #expect(connection.backendPID != first)
        #expect(try connection.query("SELECT 7").int64(0, 0) == 7)
    }

    @Test("LISTEN/NOTIFY: a notification is read from the socket without blocking")
    func notifications() throws {
        let schema = try freshSchema()
        let listener = try PostgresConnection(connectionString: schema.connectionString)
        let sender = try PostgresConnection(connectionString: schema.connectionString)
        try listener.execute("LISTEN timerd_wake")
        #expect(listener.socket >= 0)
        #expect(try listener.takeNotifications().isEmpty)
        try sender.query("SELECT pg_notify('timerd_wake', $1)", ["42"])
        // Delivered at the sender's commit; poll the socket up to 5 s (a loaded machine).
        var received: [(channel: String, payload: String)] = []
        for _ in 0..<50 where received.isEmpty {
            received = try listener.takeNotifications()
            if received.isEmpty { usleep(100_000) }
        }
        #expect(received.map(\.channel) == ["timerd_wake"])
        #expect(received.map(\.payload) == ["42"])
    }
}
