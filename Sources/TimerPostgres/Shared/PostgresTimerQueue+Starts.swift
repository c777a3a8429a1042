/// One timer to start with ``PostgresTimerQueue/startMany(_:)``: what
/// ``PostgresTimerQueue/startReturningRow(owner:name:segmentsNanoseconds:action:dueAt:heartbeat:)``
/// takes, for a timer due one first step from now.
public struct SharedStart: Sendable, Equatable {
    /// The uid that owns it.
    public var owner: UInt32
    /// Its name (normalized and valid), or `nil`.
    public var name: String?
    /// Each step's length in nanoseconds (1 to `TimerEngine.maximumGroupSize` values, each ≥ 1).
    public var segmentsNanoseconds: [Int64]
    /// Its on-finish action (the daemon's JSON form), or `nil`.
    public var action: String?
    /// Whether it is a heartbeat timer (`timerctl beat` re-arms it).
    public var isHeartbeat: Bool

    /// A timer to start.
    ///
    /// - Parameters:
    ///   - owner: the uid that owns it.
    ///   - name: its name, or `nil`.
    ///   - segmentsNanoseconds: each step's length in nanoseconds.
    ///   - action: its on-finish action, or `nil`.
    ///   - isHeartbeat: whether it is a heartbeat timer.
    public init(owner: UInt32, name: String?, segmentsNanoseconds: [Int64], action: String?, isHeartbeat: Bool) {
        self.owner = owner
        self.name = name
        self.segmentsNanoseconds = segmentsNanoseconds
        self.action = action
        self.isHeartbeat = isHeartbeat
    }
}

extension PostgresTimerQueue {
    /// The statement of ``startMany(_:)``: `$1` owners, `$2` names, `$3` step lengths (each a
    /// `bigint[]` in text form), `$4` actions, `$5` heartbeat flags, `$6` this host. Ids are drawn
    /// in the order of the input, so a turn's starts get ids in the order they were asked for.
    static let startManySQL = """
        WITH input AS (
            SELECT nextval('timerd_timer_ids') AS id, u.owner, u.name, u.segments::bigint[] AS segments,
                u.action, u.heartbeat, u.ord
            FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::boolean[])
                WITH ORDINALITY AS u(owner, name, segments, action, heartbeat, ord)
            ORDER BY u.ord
        ), started AS (
            INSERT INTO timerd_timers AS t (id, owner, name, live, state, due_at, step, steps, fence, written_by,
                segments_ns, created_at, action, heartbeat)
            SELECT i.id, i.owner, i.name, true, 'running',
                clock_timestamp() + make_interval(secs => i.segments[1] / 1e9), 0, cardinality(i.segments), 1, $6,
                i.segments, clock_timestamp(), i.action, i.heartbeat
            FROM input i ORDER BY i.ord
            ON CONFLICT (owner, name) WHERE live AND name IS NOT NULL DO NOTHING
            RETURNING t.*
        ), event AS (
            INSERT INTO timerd_events (timer_id, kind, fence, host_id) SELECT id, 'started', 1, $6 FROM started ORDER BY id
        ), wake AS (
            SELECT pg_notify('timerd_wake:' || current_schema(), min(s.id)::text) AS sent
            FROM started s
            HAVING min(s.due_at) < coalesce(
                (SELECT min(o.due_at) FROM timerd_timers o WHERE o.state = 'running' AND o.claimed_by IS NULL),
                'infinity')
        )
        SELECT \(PostgresTimerQueue.rowColumns), (SELECT count(*) FROM wake)
        FROM input i LEFT JOIN started t ON t.id = i.id CROSS JOIN (SELECT clock_timestamp() AS now) c
        ORDER BY i.ord
        """

    /// Starts `timers` in one statement (one round trip, and in autocommit one transaction and one
    /// WAL flush), each as ``startReturningRow(owner:name:segmentsNanoseconds:action:dueAt:heartbeat:)``
    /// starts one: its row, its `started` outbox row, and one `NOTIFY timerd_wake` when one of them
    /// is due before every unclaimed running timer.
    ///
    /// - Parameter timers: the timers, at least one.
    /// - Returns: for each timer in order, its row, or `nil` when its name is taken by a live timer of
    ///   its owner (an earlier timer of the same call included); and whether the wake-up was sent.
    /// - Throws: ``PostgresError``; when the statement fails, none of them was started.
    /// - Complexity: one round trip; O(n log m) in the timers and the table's rows.
    public func startMany(_ timers: [SharedStart]) throws(PostgresError) -> (rows: [SharedTimerRow?], woke: Bool) {
        guard !timers.isEmpty else { return ([], false) }
        let rows = try connection.queryPrepared(
            Self.startManySQL,
            [
                PostgresStore.arrayLiteral(timers.map { String($0.owner) }),
                PostgresStore.arrayLiteral(timers.map(\.name)),
                PostgresStore.arrayLiteral(
                    timers.map { "{" + $0.segmentsNanoseconds.map(String.init).joined(separator: ",") + "}" }),
                PostgresStore.arrayLiteral(timers.map(\.action)),
                PostgresStore.arrayLiteral(timers.map { $0.isHeartbeat ? "t" : "f" }),
                hostID,
            ])
        guard rows.rows.count == timers.count else {
            throw .server(
                sqlState: "TD006", message: "a start of \(timers.count) timers returned \(rows.rows.count) rows")
        }
        let woke = rows.rows.isEmpty ? false : (rows.int64(0, rows.columns.count - 1) ?? 0) > 0
        return (rows.rows.indices.map { Self.timerRow(rows, $0) }, woke)
    }
}
