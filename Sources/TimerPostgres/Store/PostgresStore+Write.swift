import Countdown
import Glibc
import TimerModel
import TimerStorage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PostgresStore {
    /// Connects (or reconnects), migrates, and takes the schema's single-writer lock, waiting up
    /// to ``lockWaitMilliseconds`` for a session that is going away.
    ///
    /// - Throws: ``PostgresError``, or `StoreError/locked(_:)` naming who holds the lock.
    func connectAndLock() throws {
        if let connection, !connection.isConnected {
            holdsLock = false
            needsResync = true
            try connection.reconnectIfNeeded()
        }
        if connection == nil {
            holdsLock = false
            let fresh = try PostgresConnection(connectionString: connectionString, timeouts: timeouts)
            try fresh.checkSessionIsKept()
            try PostgresSchema.migrate(fresh)
            connection = fresh
        }
        guard let connection, !holdsLock else { return }
        var waited = 0
        while true {
            let taken = try connection.query(
                "SELECT pg_try_advisory_lock(hashtext('timerd-writer:' || current_schema()))"
            ).value(0, 0)
            if taken == "t" { break }
            guard waited < lockWaitMilliseconds else {
                let holder =
                    try connection.query(
                        """
                        SELECT coalesce(string_agg(DISTINCT a.application_name || ' on server pid ' || a.pid, ', '), 'another session')
                        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                        WHERE l.locktype = 'advisory' AND l.granted
                          AND l.objid = (hashtext('timerd-writer:' || current_schema())::bigint & 4294967295)
                        """
                    ).value(0, 0) ?? "another session"
                throw StoreError.locked(
                    "another timerd (\(holder)) serves the timers of this database schema; without --shared one "
                        + "timerd serves a schema, with --shared on every host several do (docs/multihost.md)")
            }
            usleep(100_000)
            waited += 100
        }
        holdsLock = true
    }

    /// Every timer and the next id, as stored.
    ///
    /// - Throws: ``PostgresError``, or `StoreError/unavailable(_:)` for a record that cannot be read.
    /// - Complexity: O(n).
    func readAll(_ connection: PostgresConnection) throws -> ([TimerRecord], UInt64) {
        let nextID = UInt64(try connection.query("SELECT next_id FROM timerd_ids").int64(0, 0) ?? 1)
        let rows = try connection.query("SELECT id, record FROM timerd_timers ORDER BY id")
        var timers: [TimerRecord] = []
        timers.reserveCapacity(rows.rows.count)
        for row in rows.rows.indices {
            guard let bytes = rows.bytes(row, 1) else {
                throw StoreError.unavailable(
                    "timerd_timers row \(rows.value(row, 0) ?? "?"): no engine record (a timer of the several-hosts "
                        + "queue, docs/multihost.md); this timerd serves a schema alone")
            }
            do {
                let record = try BinaryReader.withReader(bytes[...]) { reader throws(BinaryReader.Problem) in
                    let record = try TimerRecord(from: &reader)
                    try reader.expectEnd()
                    return record
                }
                timers.append(record)
            } catch {
                throw StoreError.unavailable("timerd_timers row \(rows.value(row, 0) ?? "?"): \(error)")
            }
        }
        return (timers, max(nextID, (timers.map(\.id).max() ?? 0) + 1))
    }

    /// Connects if needed and sends `BEGIN`.
    ///
    /// - Returns: the connection, inside a new transaction.
    /// - Throws: ``PostgresError`` or `StoreError/locked(_:)`.
    private func begin() throws -> PostgresConnection {
        for attempt in 0..<2 {
            try connectAndLock()
            guard let connection else { throw PostgresError.unavailable("not connected") }
            do {
                try connection.execute("BEGIN")
                return connection
            } catch PostgresError.unavailable(let message) {
                // The connection died while idle (a database restart): nothing of this commit was
                // sent yet, so reconnecting and beginning again, once, is safe.
                if attempt == 1 { throw PostgresError.unavailable(message) }
            }
        }
        throw PostgresError.unavailable("not connected")
    }

    /// One transaction: the durable state written back first when a commit failed before, then
    /// `changes`; on success the durable copy follows.
    func write(_ changes: EngineChanges, durability: CommitDurability) throws(StoreError) {
        do {
            // Batched first; one record at a time again only to name a refused name.
            if try !attempt(changes, durability: durability, isBatched: true) {
                _ = try attempt(changes, durability: durability, isBatched: false)
            }
            for id in changes.removed { durable[id] = nil }
            for record in changes.updated { durable[record.id] = record }
            durableNextID = max(durableNextID, changes.nextID, (changes.updated.map(\.id).max() ?? 0) + 1)
            needsResync = false
        } catch let error as StoreError {
            if case .unavailable = error { needsResync = true }
            throw error
        } catch let error as PostgresError {
            needsResync = true
            throw Self.storeError(error)
        } catch {
            needsResync = true
            throw .unavailable("\(error)")
        }
    }

    /// One transaction of `changes`.
    ///
    /// - Returns: false when the batched form broke the live-name index (rolled back; the caller
    ///   runs it again one record at a time, which names the record).
    private func attempt(_ changes: EngineChanges, durability: CommitDurability, isBatched: Bool) throws -> Bool {
        let connection = try begin()
        do {
            if durability == .mayBatch { try connection.execute("SET LOCAL synchronous_commit = off") }
            if needsResync { try resync(connection) }
            try apply(changes, connection, isBatched: isBatched)
            try connection.execute("COMMIT")
            return true
        } catch let error {
            if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
            if error is BatchNameConflict { return false }
            throw error
        }
    }

    /// Makes the database hold exactly the durable copy (inside the caller's transaction): after a
    /// commit whose outcome is unknown, this store (the only writer) restores what it last knew
    /// to be committed.
    ///
    /// - Complexity: O(n) in the timers.
    private func resync(_ connection: PostgresConnection) throws {
        let stored = try readAll(connection).0
        let storedByID = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        let removed = stored.map(\.id).filter { durable[$0] == nil }
        if !removed.isEmpty {
            try connection.query(
                "DELETE FROM timerd_timers WHERE id = ANY($1::bigint[])",
                ["{\(removed.map(String.init).joined(separator: ","))}"])
        }
        for record in durable.values.sorted(by: { $0.id < $1.id }) where storedByID[record.id] != record {
            try upsert(record, previous: storedByID[record.id], connection)
        }
        try connection.query(
            "UPDATE timerd_ids SET next_id = greatest(next_id, $1)", [String(durableNextID)])
    }

    /// The changes, checked: a new id below the next id is `StoreError/idReused(_:)`; a name a
    /// live timer of the owner holds is `StoreError/nameTaken(owner:name:)` (the unique index).
    private func apply(_ changes: EngineChanges, _ connection: PostgresConnection, isBatched: Bool) throws {
        for record in changes.updated where durable[record.id] == nil && record.id < durableNextID {
            throw StoreError.idReused(record.id)
        }
        if !changes.removed.isEmpty {
            try connection.query(
                "DELETE FROM timerd_timers WHERE id = ANY($1::bigint[])",
                ["{\(changes.removed.map(String.init).joined(separator: ","))}"])
        }
        // Timers that stop being live give up their names before new live ones take them.
        var latest: [UInt64: Int] = [:]
        for (index, record) in changes.updated.enumerated() { latest[record.id] = index }
        let unique = changes.updated.enumerated().filter { latest[$0.element.id] == $0.offset }.map(\.element)
        let ending = unique.filter { !$0.state.isLive }
        let live = unique.filter(\.state.isLive)
        if isBatched {
            try upsertBatch(ending, connection)
            try upsertBatch(live, connection)
        }
        for record in isBatched ? [] : ending + live {
            do {
                try upsert(record, previous: durable[record.id], connection)
            } catch let PostgresError.constraint(sqlState, constraint, _)
                where sqlState == "23505" && constraint == "timerd_timers_live_name"
            {
                throw StoreError.nameTaken(owner: record.owner, name: record.name ?? "")
            }
        }
        let nextID = max(changes.nextID, (changes.updated.map(\.id).max() ?? 0) + 1)
        if nextID > durableNextID {
            try connection.query("UPDATE timerd_ids SET next_id = greatest(next_id, $1)", [String(nextID)])
        }
    }

    /// Inserts or updates one timer row and writes the outbox row of its transition, if any.
    private func upsert(_ record: TimerRecord, previous: TimerRecord?, _ connection: PostgresConnection) throws {
        let rows = try connection.query(
            """
            INSERT INTO timerd_timers (id, owner, name, live, state, due_at, remaining_ns, step, steps, fence,
                written_by, record, segments_ns)
            VALUES ($1, $2, $3, $4, $5, to_timestamp($6::double precision), $7, $8, $9,
                CASE WHEN $5 = 'running' THEN 1 ELSE 0 END, $10, $11::bytea, $12::bigint[])
            ON CONFLICT (id) DO UPDATE SET
                owner = EXCLUDED.owner, name = EXCLUDED.name, live = EXCLUDED.live, state = EXCLUDED.state,
                due_at = EXCLUDED.due_at, remaining_ns = EXCLUDED.remaining_ns, step = EXCLUDED.step,
                steps = EXCLUDED.steps, version = timerd_timers.version + 1,
                fence = timerd_timers.fence
                    + CASE WHEN EXCLUDED.state = 'running' AND timerd_timers.state <> 'running' THEN 1 ELSE 0 END,
                written_by = EXCLUDED.written_by, record = EXCLUDED.record, segments_ns = EXCLUDED.segments_ns,
                updated_at = now()
            RETURNING fence
            """, Self.parameters(of: record, hostID: hostID))
        guard let kind = Self.eventKind(from: previous?.state, to: record.state) else { return }
        try connection.query(
            "INSERT INTO timerd_events (timer_id, kind, fence, host_id) VALUES ($1, $2, $3, $4)",
            [String(record.id), kind, rows.value(0, 0) ?? "0", hostID])
    }

    /// The outbox kind of a transition (the wire's event names), or `nil` when the state stayed.
    static func eventKind(from old: TimerState?, to new: TimerState) -> String? {
        guard old != new else { return nil }
        switch (old, new) {
        case (.paused, .running): return "resumed"
        case (_, .running), (_, .pending): return old == nil ? "started" : nil
        case (_, .paused): return "paused"
        case (_, .finished): return "finished"
        case (_, .stopped): return "stopped"
        // Not written: a one-host daemon on this store refuses "ring" (the schema's state check has
        // no ringing), so no record reaches this store ringing.
        case (_, .ringing): return "ringing"
        }
    }

    /// The group step a record's counted time is in (0 for a plain timer): the segments whose
    /// ends it has passed, at most the last. A running timer's step as of its last write.
    static func step(of record: TimerRecord) -> Int {
        var end: Int64 = 0
        let segments = record.segmentNanoseconds
        for (index, length) in segments.enumerated() {
            end += length
            if record.accumulatedNanoseconds < end { return index }
        }
        return segments.count - 1
    }

    /// The statement parameters of a record: `$1` id … `$11` the engine record as `bytea` hex,
    /// `$12` the step lengths in nanoseconds as a `bigint[]` literal.
    static func parameters(of record: TimerRecord, hostID: String) -> [String?] {
        let remaining = max(0, record.totalNanoseconds - record.accumulatedNanoseconds)
        var due: String?
        if record.state == .running {
            if let wall = record.wallDeadline {
                due = String(wall.timeIntervalSince1970)
            } else if let runStartWall = record.runStartWall {
                due = String(runStartWall.timeIntervalSince1970 + Double(remaining) / 1e9)
            }
        }
        return [
            String(record.id), String(record.owner), record.name, record.state.isLive ? "true" : "false",
            record.state.rawValue, due, record.state == .paused ? String(remaining) : nil,
            String(Self.step(of: record)), String(record.segmentNanoseconds.count), hostID,
            PostgresRows.encodeHex(record.binaryEncoded),
            "{" + record.segmentNanoseconds.map(String.init).joined(separator: ",") + "}",
        ]
    }
}
