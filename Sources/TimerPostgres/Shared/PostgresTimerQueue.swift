// Over 450 lines on purpose: the claim protocol (start, ids, claims, completions, leases, actions)
// shares one set of statements and fences that read best in one place; requests' transitions and
// edits are already in +Transitions.swift and +Edits.swift, reads in +Reading.swift and +Listing.swift.
import Glibc

/// The claim protocol several hosts fire timers by, on one database (docs/multihost.md): every
/// deadline is on the database's clock (`clock_timestamp()`), a due timer is claimed under a lease
/// and a fencing counter, and its completion (finish, or arming of its group's next step) is
/// accepted only under the current fence, in the same transaction as its outbox row.
///
/// The prior art this follows (river, Oban, solid_queue, graphile-worker): claim with
/// `UPDATE … FROM (SELECT … FOR UPDATE SKIP LOCKED) RETURNING`, so hosts never block on each
/// other's rows and never take the same row; a claim whose lease ran out (its host died) is
/// claimable again, which is the rescue; the fence makes the late completion of a host that lost
/// its lease a no-op.
///
/// Each host uses its own connection; calls block until the server answers.
public final class PostgresTimerQueue {
    /// A timer this host claimed.
    public struct Claim: Sendable, Equatable {
        /// The timer's id.
        public var id: Int64
        /// The fence this claim holds; completion needs it.
        public var fence: Int64
        /// The group step that fell due (0 for a plain timer).
        public var step: Int
        /// How many steps the timer has.
        public var steps: Int
        /// Whether another host had claimed it before and its lease ran out (a rescue).
        public var isRescue: Bool
        /// How late the claim came, in seconds of the database clock (claim time − due time, ≥ 0).
        public var lateness: Double
        /// Whether the timer is recurring (schema version 7): its firing is
        /// ``completeRecurring(_:)``, not ``completeBatch(_:actionLeaseSeconds:)``.
        public var isRecurring = false
    }

    /// What a completion did.
    public enum Completion: Sendable, Equatable {
        /// The timer finished: its `finished` outbox row is written.
        case finished
        /// A group's step ended and the next one is armed (`step` outbox row).
        case nextStep(Int)
        /// The claim's fence is no longer current (the lease ran out and another host claimed it,
        /// or the timer was paused or stopped): nothing was written.
        case fenceLost
    }

    /// The connection this host uses.
    public let connection: PostgresConnection
    /// This host's name in claims (`claimed_by`) and outbox rows.
    public let hostID: String

    /// A queue on `connection` for host `hostID`; the schema must be migrated
    /// (``PostgresSchema/migrate(_:)``).
    ///
    /// - Parameters:
    ///   - connection: this host's connection.
    ///   - hostID: this host's name.
    public init(connection: PostgresConnection, hostID: String) {
        self.connection = connection
        self.hostID = hostID
    }

    /// The statement of ``start(owner:name:segmentsNanoseconds:action:dueAt:heartbeat:)``: `$1` owner, `$2` name, `$3` step lengths (ns), `$4` host, `$5` action, `$6` due instant, `$7` heartbeat.
    static let startSQL = """
        WITH started AS (
            INSERT INTO timerd_timers AS t (id, owner, name, live, state, due_at, step, steps, fence, written_by,
                segments_ns, created_at, action, heartbeat)
            VALUES (nextval('timerd_timer_ids'), $1, $2, true, 'running',
                coalesce(to_timestamp($6::double precision),
                    clock_timestamp() + make_interval(secs => ($3::bigint[])[1] / 1e9)), 0,
                cardinality($3::bigint[]), 1, $4, $3::bigint[], clock_timestamp(), $5, $7::boolean)
            RETURNING t.id, t.due_at
        ), event AS (
            INSERT INTO timerd_events (timer_id, kind, fence, host_id) SELECT id, 'started', 1, $4 FROM started
        )
        SELECT started.id, CASE WHEN started.due_at < coalesce(
                (SELECT min(o.due_at) FROM timerd_timers o WHERE o.state = 'running' AND o.claimed_by IS NULL),
                'infinity')
            THEN pg_notify('timerd_wake:' || current_schema(), started.id::text) END
        FROM started
        """

    /// Starts a timer: its first step falls due `segmentsNanoseconds[0]` after now on the
    /// database clock. Sends `NOTIFY timerd_wake` only when it is the new earliest deadline
    /// (a NOTIFY per insert would serialise writers: pg-boss and graphile-worker limit it too).
    ///
    /// - Parameters:
    ///   - owner: the uid that owns it.
    ///   - name: its name, unique among the owner's live timers, or `nil`.
    ///   - segmentsNanoseconds: each step's length (≥ 1 each; one for a plain timer).
    ///   - action: its on-finish action (timerd: the request's `action` object as JSON), or `nil`.
    ///   - dueAt: for a timer that ends at a given instant (`timerctl start --at`), that instant in
    ///     seconds since 1970 (its one segment should be the time from now to it); `nil` for
    ///     now + the first segment, on the database clock.
    ///   - heartbeat: whether it is a heartbeat timer (one segment, re-armed by
    ///     ``beat(id:owner:)``).
    /// - Returns: the store-assigned id.
    /// - Throws: ``PostgresError``; a taken name is ``PostgresError/constraint(sqlState:constraint:message:)``
    ///   on `timerd_timers_live_name`.
    @discardableResult
    public func start(
        owner: UInt32, name: String?, segmentsNanoseconds: [Int64], action: String? = nil, dueAt: Double? = nil,
        heartbeat: Bool = false
    ) throws(PostgresError) -> Int64 {
        let segments = "{" + segmentsNanoseconds.map(String.init).joined(separator: ",") + "}"
        // One statement, so one implicit transaction and one round trip: the id from the sequence
        // (no row lock), the row, its `started` outbox row, and the wake-up when it is due before
        // every other unclaimed running timer (the first entry of `timerd_timers_due_unclaimed`;
        // the new row is not in the statement's snapshot).
        let rows = try connection.query(
            Self.startSQL,
            [String(owner), name, segments, hostID, action, dueAt.map { String($0) }, heartbeat ? "t" : "f"])
        return rows.int64(0, 0) ?? 0
    }

    /// The statement of ``startReturningRow(owner:name:segmentsNanoseconds:action:dueAt:heartbeat:)``:
    /// ``startSQL``'s parameters; a name taken by a live timer of the owner inserts nothing (the
    /// arbiter is the partial unique index `timerd_timers_live_name`), so the statement never
    /// fails on it and a transaction it runs in goes on. Its columns are ``rowColumns``, then
    /// whether it sent the wake-up.
    static let startReturningRowSQL = """
        WITH started AS (
            INSERT INTO timerd_timers AS t (id, owner, name, live, state, due_at, step, steps, fence, written_by,
                segments_ns, created_at, action, heartbeat)
            VALUES (nextval('timerd_timer_ids'), $1, $2, true, 'running',
                coalesce(to_timestamp($6::double precision),
                    clock_timestamp() + make_interval(secs => ($3::bigint[])[1] / 1e9)), 0,
                cardinality($3::bigint[]), 1, $4, $3::bigint[], clock_timestamp(), $5, $7::boolean)
            ON CONFLICT (owner, name) WHERE live AND name IS NOT NULL DO NOTHING
            RETURNING t.*
        ), event AS (
            INSERT INTO timerd_events (timer_id, kind, fence, host_id) SELECT id, 'started', 1, $4 FROM started
        )
        SELECT \(PostgresTimerQueue.rowColumns), CASE WHEN t.due_at < coalesce(
                (SELECT min(o.due_at) FROM timerd_timers o WHERE o.state = 'running' AND o.claimed_by IS NULL),
                'infinity')
            THEN pg_notify('timerd_wake:' || current_schema(), t.id::text) END
        FROM started t, (SELECT clock_timestamp() AS now) c
        """

    /// Starts a timer as ``start(owner:name:segmentsNanoseconds:action:dueAt:heartbeat:)`` does and
    /// reads it back in the same statement (one round trip); a taken name is not an error here but
    /// `nil`, so that the statement can share a transaction with other starts.
    ///
    /// - Parameters: as ``start(owner:name:segmentsNanoseconds:action:dueAt:heartbeat:)``.
    /// - Returns: the new timer's row and whether it is the earliest unclaimed deadline (the
    ///   wake-up was sent); `nil` when `name` is taken by a live timer of `owner`.
    /// - Throws: ``PostgresError``.
    public func startReturningRow(
        owner: UInt32, name: String?, segmentsNanoseconds: [Int64], action: String? = nil, dueAt: Double? = nil,
        heartbeat: Bool = false
    ) throws(PostgresError) -> (row: SharedTimerRow, isEarliest: Bool)? {
        let segments = "{" + segmentsNanoseconds.map(String.init).joined(separator: ",") + "}"
        let rows = try connection.queryPrepared(
            Self.startReturningRowSQL,
            [String(owner), name, segments, hostID, action, dueAt.map { String($0) }, heartbeat ? "t" : "f"])
        guard !rows.rows.isEmpty, let row = Self.timerRow(rows, 0) else { return nil }
        // The wake-up column: `void` (an empty text) when sent, NULL when not.
        return (row, rows.value(0, rows.columns.count - 1) != nil)
    }

    /// How far ``checkIDs()`` moves the id sequence on when it finds the database server changed:
    /// more than the starts a server can acknowledge and then lose (an asynchronous standby's lag,
    /// at thousands of starts a second, is far below it), so that no id is handed out twice.
    public static let idGapAfterServerChange: Int64 = 1_000_000

    /// Makes sure no id is handed out twice: brings the id sequence past every id of a row and of
    /// the one-host store (`timerd_ids.next_id`), and moves it on by ``idGapAfterServerChange``
    /// when the database server started after the last check (`pg_postmaster_start_time()`): a
    /// restart, or a standby promoted after a failover, which may lack the last transactions of the
    /// old primary with the sequence values they drew and acknowledged. The outbox's `seq` moves on
    /// by as much then. Call it after connecting.
    ///
    /// - Returns: whether the sequence was moved on for a server change.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func checkIDs() throws(PostgresError) -> Bool {
        try connection.transaction { connection throws(PostgresError) in
            let changed =
                try connection.query(
                    """
                    UPDATE timerd_ids SET server_started_at = pg_postmaster_start_time()
                    WHERE server_started_at IS DISTINCT FROM pg_postmaster_start_time()
                    """
                ).affected > 0
            // Only ever forward, and in one statement with the read of the sequence, so that ids other
            // hosts draw meanwhile are not handed out again.
            try connection.query(
                """
                SELECT setval('timerd_timer_ids', target, false)
                FROM (
                    SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END AS next,
                        greatest(CASE WHEN is_called THEN last_value + 1 ELSE last_value END,
                            (SELECT next_id FROM timerd_ids),
                            (SELECT coalesce(max(id), 0) + 1 FROM timerd_timers)) + $1 AS target
                    FROM timerd_timer_ids
                ) s
                WHERE target > next
                """, [changed ? String(Self.idGapAfterServerChange) : "0"])
            if changed {
                // The outbox's numbers too: a host follows rows above the last `seq` it read
                // (``followEvents(after:afterSeq:)``), so a promoted standby must not hand out a
                // `seq` the old primary already gave to a row that was lost with it.
                try connection.query(
                    """
                    SELECT setval('timerd_events_seq_seq',
                        greatest(nextval('timerd_events_seq_seq'),
                            (SELECT coalesce(max(seq), 0) + 1 FROM timerd_events)) + $1, false)
                    """, [String(Self.idGapAfterServerChange)])
            }
            return changed
        }
    }

    /// Takes the session-level advisory lock on this host's id in this schema, so that a second
    /// live host with the same id is refused; the lock goes with the session (a host that crashed
    /// or was cut off loses it when the server ends its session, so it can come back under its id).
    ///
    /// - Parameter waitMilliseconds: how long to retry while another session holds it (one that
    ///   is going away: a restart right after a crash).
    /// - Throws: ``PostgresError``; SQLSTATE `TD004` when another live session holds this host id.
    public func lockHostID(waitMilliseconds: Int = 3_000) throws(PostgresError) {
        var waited = 0
        while true {
            let taken = try connection.query(
                "SELECT pg_try_advisory_lock(hashtext('timerd-host:' || current_schema()), hashtext($1))", [hostID]
            ).value(0, 0)
            if taken == "t" { return }
            guard waited < waitMilliseconds else { break }
            usleep(100_000)
            waited += 100
        }
        let holder =
            try connection.query(
                """
                SELECT coalesce(string_agg(DISTINCT coalesce(a.application_name, '?') || ' on server pid ' || a.pid
                    || coalesce(' from ' || host(a.client_addr), ''), ', '), 'another session')
                FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                  AND l.classid = (hashtext('timerd-host:' || current_schema())::bigint & 4294967295)
                  AND l.objid = (hashtext($1)::bigint & 4294967295)
                """, [hostID]
            ).value(0, 0) ?? "another session"
        throw .server(
            sqlState: "TD004",
            message:
                "another live timerd host uses host id \"\(hostID)\" on this database schema (\(holder)); "
                + "give each host its own --host-id")
    }

    /// The channel of this schema's wake-ups, `timerd_wake:SCHEMA` (a NOTIFY reaches every session
    /// of the database that listens, so the schema in the name keeps the hosts of other schemas
    /// asleep): `pg_notify` with it and `$1` as the payload.
    public static let notifySQL = "SELECT pg_notify('timerd_wake:' || current_schema(), $1)"

    /// Starts listening on this schema's wake-up channel (``notifySQL``).
    ///
    /// - Returns: the channel's name.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func listenForWakeUps() throws(PostgresError) -> String {
        let channel = "timerd_wake:" + (try connection.query("SELECT current_schema()").value(0, 0) ?? "public")
        try connection.execute("LISTEN \"" + channel.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        return channel
    }

    /// The database clock now, in seconds since 1970 (`clock_timestamp()`).
    ///
    /// - Returns: the instant.
    /// - Throws: ``PostgresError``.
    public func databaseNow() throws(PostgresError) -> Double {
        Double(try connection.query("SELECT extract(epoch FROM clock_timestamp())").value(0, 0) ?? "") ?? 0
    }

    /// The statement of ``claimDue(limit:leaseSeconds:)``: `$1` host, `$2` lease (s), `$3` limit.
    static let claimSQL = """
        WITH lost AS (
            SELECT id, claimed_by AS previous, due_at FROM timerd_timers
            WHERE state = 'running' AND claimed_by IS NOT NULL AND claim_until < statement_timestamp()
            ORDER BY claim_until LIMIT $3
            FOR UPDATE SKIP LOCKED
        ), fresh AS (
            SELECT id, NULL::text AS previous, due_at FROM timerd_timers
            WHERE state = 'running' AND claimed_by IS NULL AND due_at <= statement_timestamp()
            ORDER BY due_at LIMIT $3
            FOR UPDATE SKIP LOCKED
        ), due AS (
            SELECT * FROM (SELECT * FROM lost UNION ALL SELECT * FROM fresh) d ORDER BY due_at LIMIT $3
        )
        UPDATE timerd_timers t
        SET fence = t.fence + 1, claimed_by = $1,
            claim_until = clock_timestamp() + make_interval(secs => $2::double precision),
            version = t.version + 1
        FROM due
        WHERE t.id = due.id
        RETURNING t.id, t.fence, t.step, t.steps, due.previous IS NOT NULL,
            greatest(0, extract(epoch FROM clock_timestamp() - t.due_at)), t.due_at, t.recurrence IS NOT NULL
        """

    /// Claims up to `limit` due timers (due on the database clock, unclaimed or with an expired
    /// lease), earliest first, in one statement: each gets `fence + 1`, `claimed_by` = this host
    /// and `claim_until = clock_timestamp() + lease`.
    ///
    /// "Now" is `statement_timestamp()`, read once for the statement, so the bounds are index
    /// conditions: unclaimed rows come from `timerd_timers_due_unclaimed` up to now, expired leases
    /// from `timerd_timers_leases` up to now; a claim with nothing due reads no row.
    ///
    /// - Parameters:
    ///   - limit: the most timers to claim (≥ 1).
    ///   - leaseSeconds: how long the claim holds without renewal.
    /// - Returns: the claims, earliest deadline first.
    /// - Throws: ``PostgresError``.
    /// - Complexity: one round trip; O(limit + log n) in the server.
    public func claimDue(limit: Int, leaseSeconds: Double) throws(PostgresError) -> [Claim] {
        let rows = try connection.query(
            Self.claimSQL, [hostID, String(leaseSeconds), String(max(1, limit))])
        return rows.rows.indices.map { row in
            Claim(
                id: rows.int64(row, 0) ?? 0, fence: rows.int64(row, 1) ?? 0, step: Int(rows.int64(row, 2) ?? 0),
                steps: Int(rows.int64(row, 3) ?? 1), isRescue: rows.value(row, 4) == "t",
                lateness: Double(rows.value(row, 5) ?? "0") ?? 0, isRecurring: rows.value(row, 7) == "t")
        }.sorted { $0.lateness > $1.lateness }
    }

    /// Completes a claim: in one transaction, under the claim's fence, either finishes the timer or
    /// arms its next step (due one step length after the step that ended, so a late claim does not
    /// stretch the group), and writes the outbox row (`finished` or `step`) with that fence.
    ///
    /// - Parameter claim: a claim of this host.
    /// - Returns: what happened; ``Completion/fenceLost`` writes nothing.
    /// - Throws: ``PostgresError``.
    public func complete(_ claim: Claim) throws(PostgresError) -> Completion {
        try completeWithAction(claim).completion
    }

    /// What a finished timer's on-finish action needs: its owner, name, whole duration and the
    /// stored action.
    public struct FinishedTimer: Sendable, Equatable {
        /// The uid that owns it.
        public var owner: UInt32
        /// Its name, or `nil`.
        public var name: String?
        /// The sum of its steps, in nanoseconds.
        public var totalNanoseconds: Int64
        /// The stored action (``PostgresTimerQueue/start(owner:name:segmentsNanoseconds:action:dueAt:heartbeat:)``), or `nil`.
        public var action: String?
    }

    /// ``complete(_:)``, also returning what the timer's on-finish action needs when the completion
    /// finished it (`nil` otherwise): only the host whose completion succeeded gets it, so it runs
    /// the action; across host death that is at least once (a host may die after running it and
    /// before its completion commits), with the key `(id, fence)` for the action to tell repeats.
    ///
    /// A finished timer with an action keeps a claim of this host (`action_state = 'pending'`,
    /// lease `actionLeaseSeconds`) until ``markActionStarted(id:fence:)``; if this host dies before,
    /// ``claimPendingActions(limit:leaseSeconds:)`` on another host takes it over.
    ///
    /// - Parameters:
    ///   - claim: a claim of this host.
    ///   - actionLeaseSeconds: how long the finished timer's action stays this host's to start.
    /// - Returns: what happened, and the finished timer's details.
    /// - Throws: ``PostgresError``.
    public func completeWithAction(_ claim: Claim, actionLeaseSeconds: Double = 30) throws(PostgresError) -> (
        completion: Completion, finished: FinishedTimer?
    ) {
        try completeBatch([claim], actionLeaseSeconds: actionLeaseSeconds).first ?? (.fenceLost, nil)
    }

    /// ``completeWithAction(_:actionLeaseSeconds:)`` for many claims in one statement (so one
    /// transaction and one round trip): each claim is checked under its own fence, and the outbox
    /// rows of the accepted ones are written by the same statement.
    ///
    /// - Parameters:
    ///   - claims: claims of this host (each timer at most once).
    ///   - actionLeaseSeconds: how long a finished timer's action stays this host's to start.
    /// - Returns: for each claim, in the order given, what happened and the finished timer's details.
    /// - Throws: ``PostgresError``; nothing of the batch is written then.
    /// - Complexity: one round trip; O(k log n) in the server for k claims.
    public func completeBatch(_ claims: [Claim], actionLeaseSeconds: Double = 30) throws(PostgresError) -> [(
        completion: Completion, finished: FinishedTimer?
    )] {
        guard !claims.isEmpty else { return [] }
        func array(_ values: [String]) -> String { "{" + values.joined(separator: ",") + "}" }
        // `met` is the deadline each completion met (the row's due_at before the update), kept in
        // the outbox row with the completion's instant, so lateness can be read from it.
        let rows = try connection.query(
            """
            WITH claim AS (
                SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::boolean[]) AS c(id, fence, rescue)
            ), done AS (
                UPDATE timerd_timers t
                SET step = CASE WHEN t.step + 1 < t.steps THEN t.step + 1 ELSE t.step END,
                    state = CASE WHEN t.step + 1 < t.steps THEN 'running' ELSE 'finished' END,
                    live = t.step + 1 < t.steps,
                    due_at = CASE WHEN t.step + 1 < t.steps
                        THEN t.due_at + make_interval(secs => t.segments_ns[t.step + 2] / 1e9) END,
                    ended_at = CASE WHEN t.step + 1 < t.steps THEN NULL ELSE clock_timestamp() END,
                    action_state = CASE WHEN t.step + 1 >= t.steps AND t.action IS NOT NULL THEN 'pending' END,
                    claim_until = CASE WHEN t.step + 1 >= t.steps AND t.action IS NOT NULL
                        THEN clock_timestamp() + make_interval(secs => $5::double precision) END,
                    claimed_by = CASE WHEN t.step + 1 >= t.steps AND t.action IS NOT NULL THEN $4 END,
                    version = t.version + 1, updated_at = now()
                FROM claim c, timerd_timers old
                WHERE t.id = c.id AND t.fence = c.fence AND t.claimed_by = $4 AND t.state = 'running'
                  AND t.recurrence IS NULL AND old.id = c.id
                RETURNING t.id, t.state, t.step, old.due_at AS met, t.owner, t.name, t.action,
                    (SELECT sum(s) FROM unnest(t.segments_ns) s) AS total, c.fence, c.rescue
            ), event AS (
                INSERT INTO timerd_events (timer_id, kind, fence, host_id, at, due_at, rescue)
                SELECT id, CASE WHEN state = 'finished' THEN 'finished' ELSE 'step' END, fence, $4,
                    clock_timestamp(), met, rescue
                FROM done
            )
            SELECT id, state, step, owner, name, action, total FROM done
            """,
            [
                array(claims.map { String($0.id) }), array(claims.map { String($0.fence) }),
                array(claims.map { $0.isRescue ? "t" : "f" }), hostID, String(actionLeaseSeconds),
            ])
        var outcomes: [Int64: (completion: Completion, finished: FinishedTimer?)] = [:]
        for row in rows.rows.indices {
            guard let id = rows.int64(row, 0) else { continue }
            if rows.value(row, 1) == "finished" {
                outcomes[id] = (
                    .finished,
                    FinishedTimer(
                        owner: UInt32(clamping: rows.int64(row, 3) ?? 0), name: rows.value(row, 4),
                        totalNanoseconds: rows.int64(row, 6) ?? 0, action: rows.value(row, 5))
                )
            } else {
                outcomes[id] = (.nextStep(Int(rows.int64(row, 2) ?? 0)), nil)
            }
        }
        return claims.map { outcomes[$0.id] ?? (.fenceLost, nil) }
    }

    /// Records that this host started the on-finish action it holds for timer `id` under `fence`
    /// (`action_state = 'started'`, the claim released).
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - fence: the fence of the completion or action claim that gave this host the action.
    /// - Returns: whether the record was made (false: the claim was lost to a rescuer meanwhile).
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func markActionStarted(id: Int64, fence: Int64) throws(PostgresError) -> Bool {
        try connection.query(
            """
            UPDATE timerd_timers SET action_state = 'started', claim_until = NULL, claimed_by = NULL
            WHERE id = $1 AND fence = $2 AND claimed_by = $3 AND action_state = 'pending'
            """, [String(id), String(fence), hostID]
        ).affected == 1
    }

    /// Takes over the on-finish actions of finished timers whose host did not record starting them
    /// before its claim ran out (it died between its completion and the start): each gets
    /// `fence + 1` and this host's claim, and is returned to be started (again, if the dead host
    /// started it after all: at least once, the key `(id, fence)` tells the runs apart).
    ///
    /// - Parameters:
    ///   - limit: the most to take.
    ///   - leaseSeconds: how long each stays this host's to start.
    /// - Returns: each timer's id, new fence, and details.
    /// - Throws: ``PostgresError``.
    public func claimPendingActions(limit: Int, leaseSeconds: Double) throws(PostgresError) -> [(
        id: Int64, fence: Int64, finished: FinishedTimer
    )] {
        let rows = try connection.query(
            """
            UPDATE timerd_timers t
            SET fence = t.fence + 1, claimed_by = $1,
                claim_until = clock_timestamp() + make_interval(secs => $2::double precision)
            FROM (
                SELECT id FROM timerd_timers
                WHERE action_state = 'pending' AND claim_until < clock_timestamp()
                ORDER BY claim_until LIMIT $3
                FOR UPDATE SKIP LOCKED
            ) lost
            WHERE t.id = lost.id
            RETURNING t.id, t.fence, t.owner, t.name, t.action, (SELECT sum(s) FROM unnest(t.segments_ns) s)
            """, [hostID, String(leaseSeconds), String(max(1, limit))])
        return rows.rows.indices.map { row in
            (
                rows.int64(row, 0) ?? 0, rows.int64(row, 1) ?? 0,
                FinishedTimer(
                    owner: UInt32(clamping: rows.int64(row, 2) ?? 0), name: rows.value(row, 3),
                    totalNanoseconds: rows.int64(row, 5) ?? 0, action: rows.value(row, 4))
            )
        }
    }

    /// Extends every lease this host holds by `leaseSeconds` from now (database clock): call it
    /// while work on claims is in progress.
    ///
    /// - Parameter leaseSeconds: the new lease length.
    /// - Returns: how many claims were renewed.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func renewLeases(leaseSeconds: Double) throws(PostgresError) -> Int {
        try connection.query(
            """
            UPDATE timerd_timers SET claim_until = clock_timestamp() + make_interval(secs => $2::double precision)
            WHERE claimed_by = $1 AND state = 'running' AND claim_until >= clock_timestamp()
            """, [hostID, String(leaseSeconds)]
        ).affected
    }

    /// The statement of ``secondsUntilNextDue(cap:)``.
    static let nextDueSQL = """
        SELECT extract(epoch FROM least(
            (SELECT due_at FROM timerd_timers WHERE state = 'running' AND claimed_by IS NULL
             ORDER BY due_at LIMIT 1),
            (SELECT claim_until FROM timerd_timers WHERE state = 'running' AND claimed_by IS NOT NULL
             ORDER BY claim_until LIMIT 1)) - clock_timestamp())
        """

    /// Seconds until the earliest deadline on the database clock, capped at `cap` (and 0 when one
    /// is due): how long a host may sleep before claiming again, unless a `timerd_wake`
    /// notification comes first. The earliest deadline is the first row of
    /// `timerd_timers_due_unclaimed`, the earliest lease end the first of `timerd_timers_leases`.
    ///
    /// - Parameter cap: the longest sleep, in seconds (1 s in timerd's design).
    /// - Returns: seconds in 0 … `cap`.
    /// - Throws: ``PostgresError``.
    /// - Complexity: one round trip; O(log n) in the server.
    public func secondsUntilNextDue(cap: Double) throws(PostgresError) -> Double {
        let rows = try connection.query(
            Self.nextDueSQL)
        guard let text = rows.value(0, 0), let seconds = Double(text) else { return cap }
        return min(cap, max(0, seconds))
    }
}
