import Countdown
import Foundation
import Glibc
import TestSupport
import Testing
import TimerModel
import TimerPostgres
import TimerService
import TimerStorage
import TimerSystem

@testable import TimerDaemon

/// A whole daemon (listener, epoll loop, held replies, waits, the commit) built and turned in the
/// test's own process, with the backend injected: request bytes written to its socket, reply
/// bytes read back, one ``Daemon/turn(_:maximumWait:)`` at a time. No signal handler is installed
/// in the test process.
@Suite("An in-process daemon on each backend", .serialized)
struct InProcessDaemonTests {
    /// A daemon in a temporary directory and one client connected to it.
    final class Running {
        let directory: String
        let daemon: Daemon
        let client: Int32
        var received: [UInt8] = []
        var events: [(token: UInt64, events: Epoll.Events)] = []

        init(openBackend: @escaping Daemon.BackendOpener) throws {
            directory =
                FileManager.default.temporaryDirectory.appendingPathComponent(
                    "timerd-inprocess-\(UUID().uuidString)"
                ).path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            // An empty configuration file: the defaults (a --config that names no file is an error).
            _ = FileManager.default.createFile(atPath: directory + "/empty.conf", contents: Data())
            let options = try DaemonOptions.parse([
                "--socket", directory + "/timerd.sock", "--state-dir", directory + "/state", "--config",
                directory + "/empty.conf",
            ])
            daemon = try Daemon(options: options, log: { _ in }, openBackend: openBackend, catchesSignals: false)
            client = try UnixSocket.connect(directory + "/timerd.sock")
        }

        deinit {
            close(client)
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// Writes request lines to the daemon's socket.
        func send(_ lines: String...) {
            let bytes = Array(lines.map { $0 + "\n" }.joined().utf8)
            _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        }

        /// Turns the loop (each turn waits at most 50 ms) until `count` reply lines arrived or
        /// `turns` turns passed, calling `between` before each turn.
        func replies(_ count: Int, turns: Int = 100, between: () -> Void = {}) -> [[String: Any]] {
            var lines: [[String: Any]] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            for _ in 0..<turns where lines.count < count {
                between()
                #expect(daemon.turn(&events, maximumWait: 50))
                let read = recv(client, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if read > 0 { received += buffer[0..<read] }
                while let newline = received.firstIndex(of: 10) {
                    let line = Data(received[..<newline])
                    received.removeSubrange(...newline)
                    lines.append((try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? [:])
                }
            }
            return lines
        }
    }

    static func result(_ reply: [String: Any]?) -> [String: Any] { reply?["result"] as? [String: Any] ?? [:] }

    @Test("Local backend: a start and a wait over the socket; the injected clock ends the timer and dates it")
    func localBackend() throws {
        let clock = ManualClock(wall: Date(timeIntervalSince1970: 1_800_000_000))  // 2027-01-15T08:00:00Z
        let running = try Running { config, zone, configure in
            let (backend, missed) = try LocalBackend.open(
                store: MemoryStore(), clock: clock, config: config, systemZone: zone, log: { _ in },
                configureService: configure)
            return (backend, missed)
        }
        running.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"name":"tea"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"timer.wait","params":{"timer":"tea"}}"#)
        let started = running.replies(1)
        #expect(started.first?["id"] as? Int == 1)
        #expect(Self.result(started.first)["state"] as? String == "running")
        #expect(Self.result(started.first)["startedAt"] as? String == "2027-01-15T08:00:00.000Z")
        // No real minute passes: the manual clock moves 60 s and the wait is answered.
        var advanced = false
        let ended = running.replies(1) {
            if !advanced { clock.advance(bySeconds: 60) }
            advanced = true
        }
        #expect(ended.first?["id"] as? Int == 2)
        #expect(Self.result(ended.first)["state"] as? String == "finished")
        #expect(Self.result(ended.first)["endedAt"] as? String == "2027-01-15T08:01:00.000Z")  // start + 60 s
    }

    @Test(
        "Shared backend: the same requests over the socket; the database's clock ends the timer, not the host's",
        .enabled(if: PostgresTestCluster.isEnabled))
    func sharedBackend() throws {
        let base = try PostgresTestCluster.connectionString()
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(connectionString: base).execute("CREATE SCHEMA \(schema)")
        let running = try Running { config, zone, configure in
            // This host's clocks read 10 minutes ahead (the test-only offset): nothing may fire early.
            let host = try SharedHost(
                connectionString: base + " options='-csearch_path=\(schema)'", hostID: "in-process",
                environment: ["TIMERD_TEST_CLOCK_OFFSET": "600"], log: { _ in })
            var service = TimerService(engine: TimerEngine(clock: SystemClock()), quota: 10_000, pid: 1)
            service.engine.systemTimeZone = zone
            configure(&service)
            return (SharedBackend(host: host, service: service), [])
        }
        let start = Date()
        running.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[1],"name":"tea"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"timer.wait","params":{"timer":"tea"}}"#)
        let started = running.replies(1)
        #expect(started.first?["id"] as? Int == 1)
        #expect(Self.result(started.first)["state"] as? String == "running")
        let ended = running.replies(1, turns: 200)
        let waited = Date().timeIntervalSince(start)
        #expect(ended.first?["id"] as? Int == 2)
        #expect(Self.result(ended.first)["state"] as? String == "finished")
        #expect(Self.result(ended.first)["remaining"] as? Double == 0)
        // The 1 s timer ended after 1 s of the database's clock, not at once (the host reads +600 s).
        #expect(waited >= 0.9, "answered after \(waited) s")
    }

    /// A daemon on a fresh schema of the test cluster with one shared host, and the schema's name
    /// (for the test's own statements on it).
    static func sharedDaemon() throws -> (Running, schema: String, database: PostgresConnection) {
        let base = try PostgresTestCluster.connectionString()
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresConnection(connectionString: base).execute("CREATE SCHEMA \(schema)")
        let running = try Running { config, zone, configure in
            let host = try SharedHost(
                connectionString: base + " options='-csearch_path=\(schema)'", hostID: "in-process",
                environment: [:], log: { _ in })
            var service = TimerService(engine: TimerEngine(clock: SystemClock()), quota: 10_000, pid: 1)
            service.engine.systemTimeZone = zone
            configure(&service)
            return (SharedBackend(host: host, service: service), [])
        }
        let database = try PostgresConnection(connectionString: base + " options='-csearch_path=\(schema)'")
        return (running, schema, database)
    }

    static func start(_ id: Int, _ name: String) -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"timer.start","params":{"durations":[600],"name":"\#(name)"}}"#
    }

    static func error(_ reply: [String: Any]?) -> (code: Int?, message: String?) {
        let error = reply?["error"] as? [String: Any]
        return (error?["code"] as? Int, error?["message"] as? String)
    }

    @Test(
        "Shared backend: the starts of one turn share one transaction; a taken name is refused inside it",
        .enabled(if: PostgresTestCluster.isEnabled))
    func sharedStartsShareATransaction() throws {
        let (running, _, database) = try Self.sharedDaemon()
        running.send(Self.start(1, "a"), Self.start(2, "b"), Self.start(3, "a"))
        // Sent in one write, so read and served in one turn (the first turn accepts the connection).
        let replies = running.replies(3, turns: 3)
        try #require(replies.map { $0["id"] as? Int } == [1, 2, 3])
        let first = Self.result(replies.first)
        #expect(first["state"] as? String == "running")
        #expect(Self.result(replies[1])["state"] as? String == "running")
        let firstID = first["id"] as? String ?? "?"
        // The one-host daemon's error for a taken name (CountdownError.nameInUse, -32003).
        #expect(
            Self.error(replies.last) == (
                -32003, "a live timer is already named \"a\" (id \(firstID)); stop it or choose another name"
            ))
        // Rows written by one transaction carry its id as `xmin` (PostgreSQL's system column).
        let rows = try database.query("SELECT name, xmin::text FROM timerd_timers ORDER BY id")
        #expect(rows.rows.map { $0[0] } == ["a", "b"])
        #expect(rows.value(0, 1) != nil && rows.value(0, 1) == rows.value(1, 1))
    }

    @Test(
        "Shared backend: a turn whose COMMIT fails refuses each of its starts, and none of them remains",
        .enabled(if: PostgresTestCluster.isEnabled))
    func sharedStartsRefusedTogether() throws {
        let (running, _, database) = try Self.sharedDaemon()
        // A constraint trigger checked at COMMIT: the transaction of a turn that starts "poison" fails there.
        try database.execute(
            """
            CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.name = 'poison' THEN RAISE EXCEPTION 'poisoned'; END IF; RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER poison AFTER INSERT ON timerd_timers DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION poison();
            """)
        running.send(Self.start(1, "x"), Self.start(2, "poison"))
        let refused = running.replies(2, turns: 3)
        // Daemon.refuseHeldChanges's text with PostgresError's description of the RAISE (SQLSTATE P0001).
        let message = "the change was not saved and was undone: database refused (SQLSTATE P0001): poisoned"
        #expect(refused.map { Self.error($0).code } == [-32603, -32603])
        #expect(refused.map { Self.error($0).message } == [message, message])
        #expect(try database.query("SELECT count(*) FROM timerd_timers").value(0, 0) == "0")
        #expect(try database.query("SELECT count(*) FROM timerd_events").value(0, 0) == "0")
        // The next turn starts afresh.
        running.send(Self.start(3, "y"))
        #expect(Self.result(running.replies(1, turns: 2).first)["state"] as? String == "running")
        #expect(try database.query("SELECT name FROM timerd_timers").rows.map { $0[0] } == ["y"])
    }

    @Test(
        "Shared backend: a statement that fails refuses every start written with it; in a transaction opened by a start at an instant, those before it are rolled back and those after it refused",
        .enabled(if: PostgresTestCluster.isEnabled))
    func sharedStartFailsInsideTheTurn() throws {
        let (running, _, database) = try Self.sharedDaemon()
        try database.execute(
            """
            CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN IF NEW.name = 'bad' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
            CREATE TRIGGER refuse BEFORE INSERT ON timerd_timers FOR EACH ROW EXECUTE FUNCTION refuse();
            """)
        let reason = "database refused (SQLSTATE P0001): refused"
        // Starts due one first step from now are written by one statement (SharedHost.flushPendingStarts):
        // it fails as a whole, so each of them gets the refusal and none remains.
        running.send(Self.start(1, "x"), Self.start(2, "bad"), Self.start(3, "z"))
        let together = running.replies(3, turns: 3)
        try #require(together.map { $0["id"] as? Int } == [1, 2, 3])
        for reply in together {
            #expect(Self.error(reply) == (-32603, "the change was not saved and was undone: " + reason))
        }
        #expect(try database.query("SELECT count(*) FROM timerd_timers").value(0, 0) == "0")
        // A start at an instant opens the turn's transaction and the starts after it join it: 4 ran
        // and was rolled back (Daemon.refuseHeldChanges); 5 failed (SharedHost.rpcError); 6 was not
        // run (SharedHost.withStartBatch).
        let at = ISO8601.string(from: Date().addingTimeInterval(3_600))
        running.send(
            #"{"jsonrpc":"2.0","id":4,"method":"timer.start","params":{"at":"\#(at)","name":"x"}}"#,
            Self.start(5, "bad"), Self.start(6, "z"))
        let replies = running.replies(3, turns: 3)
        try #require(replies.map { $0["id"] as? Int } == [4, 5, 6])
        #expect(Self.error(replies[0]) == (-32603, "the change was not saved and was undone: " + reason))
        #expect(Self.error(replies[1]) == (-32603, "state could not be saved: " + reason))
        #expect(Self.error(replies[2]) == (-32603, "state could not be saved: " + reason))
        #expect(try database.query("SELECT count(*) FROM timerd_timers").value(0, 0) == "0")
        running.send(Self.start(7, "x"))
        #expect(Self.result(running.replies(1, turns: 2).first)["state"] as? String == "running")
    }

    @Test("A burst of 2,500 timers due at once: one turn finishes 1,000 and answers the requests that came with it")
    func burstInSlicesPerTurn() throws {
        let clock = ManualClock(wall: Date(timeIntervalSince1970: 1_800_000_000))
        let running = try Running { config, zone, configure in
            try LocalBackend.open(
                store: MemoryStore(), clock: clock, config: config, systemZone: zone, log: { _ in },
                configureService: configure)
        }
        let starts = (1...2_500).map {
            #"{"jsonrpc":"2.0","id":\#($0),"method":"timer.start","params":{"durations":[60]}}"#
        }
        for chunk in stride(from: 0, to: starts.count, by: 100) {
            let lines = starts[chunk..<min(chunk + 100, starts.count)].joined(separator: "\n")
            running.send(lines)
            #expect(running.replies(100, turns: 200).count == 100)
        }
        clock.advance(bySeconds: 60)
        let stats = #"{"jsonrpc":"2.0","id":"stats","method":"daemon.stats"}"#
        running.send(#"{"jsonrpc":"2.0","id":"ping","method":"daemon.ping"}"#, stats)
        // One turn: the ping and the stats are answered, and the turn finished exactly one slice,
        // Daemon.firingsPerTurn = 1,000, of the 2,500 due (not one slice per request).
        let first = running.replies(2, turns: 1)
        #expect(first.map { $0["id"] as? String } == ["ping", "stats"])
        #expect(Self.result(first.last)["firedTimers"] as? Int == 1_000)
        // The next turns finish the rest, one slice each.
        var fired = 0
        for _ in 0..<20 where fired < 2_500 {
            running.send(stats)
            fired = Self.result(running.replies(1, turns: 5).first)["firedTimers"] as? Int ?? fired
        }
        #expect(fired == 2_500)
    }
}
