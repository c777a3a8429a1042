// Over 450 lines on purpose: the row every read returns, its column list and its decoding (timers,
// series and their groups, outbox rows) must stay in step column for column, so they live together.
import Countdown
import Foundation

/// One timer of the shared form as a host reads it, with its time figures computed by the database
/// at the instant of the read (`clock_timestamp()`), never by the host's clock.
public struct SharedTimerRow: Sendable, Equatable {
    /// The store-assigned id (≥ 1).
    public var id: Int64
    /// The uid that owns it.
    public var owner: UInt32
    /// Its name, or `nil`.
    public var name: String?
    /// `running`, `paused`, `finished` or `stopped`.
    public var state: String
    /// The step that runs, is paused or ended last (0-based; 0 for a plain timer).
    public var step: Int
    /// Each step's length in nanoseconds (one element for a plain timer; each ≥ 1).
    public var segmentsNanoseconds: [Int64]
    /// Nanoseconds left in the current step at the read: `due_at − now` while running, the kept
    /// value while paused or once stopped, 0 once finished.
    public var stepRemainingNanoseconds: Int64
    /// When it was created, ISO 8601 UTC with milliseconds, on the database clock.
    public var createdAt: String
    /// When it was last started (ISO 8601, database clock): ``createdAt`` until a restart.
    public var startedAt: String
    /// When it finished or was stopped (ISO 8601), or `nil` while live.
    public var endedAt: String?
    /// While running: when its last step ends (ISO 8601, database clock); else `nil`.
    public var endsAt: String?
    /// The fence of its latest claim or transition.
    public var fence: Int64
    /// Whether it was started as a heartbeat timer (`"heartbeat": true` of `timer.start`).
    public var isHeartbeat: Bool
    /// A heartbeat timer's beats since it started or was last restarted (≥ 0; 0 for other timers).
    public var beatCount: Int64
    /// When a heartbeat timer's latest beat came (ISO 8601 UTC with milliseconds, database clock),
    /// or `nil` before the first.
    public var lastBeatAt: String?
    /// A recurring timer's series (schema version 7): its rule, options and figures, with
    /// `TimerRecurrence.nextElapse` the nominal instant of the next elapse (without its randomized
    /// delay); `nil` for a one-shot timer.
    public var recurrence: TimerRecurrence?
    /// While running: when the current period ends, in seconds since 1970 on the database clock
    /// (`due_at`: a recurring timer's next firing); else `nil`.
    public var dueAt: Double?
    /// A recurring timer's latest action run (`timerd_action_runs`): its outcome's name, or `nil`
    /// without one.
    public var lastRunOutcome: String?
    /// The code of ``lastRunOutcome`` (exit status, signal or `errno`), or `nil`.
    public var lastRunCode: Int32?
    /// The group a series starts at each elapse (schema version 8), with its live run, queue mark
    /// and counts; `nil` for any other timer.
    public var seriesGroup: SeriesGroup?
    /// The step (1-based) the series' live run is at, or `nil` without a live run.
    public var runStep: Int?

    /// Nanoseconds counted so far: the whole steps before the current one, plus what of the
    /// current one has passed (all of it once finished).
    public var elapsedNanoseconds: Int64 {
        let before = segmentsNanoseconds.prefix(step).reduce(0, +)
        guard segmentsNanoseconds.indices.contains(step) else { return before }
        if state == "finished" { return before + segmentsNanoseconds[step] }
        return before + max(0, segmentsNanoseconds[step] - max(0, stepRemainingNanoseconds))
    }

    /// Whether it is running or paused.
    public var isLive: Bool { state == "running" || state == "paused" }

    /// A row from its values (the queue reads them; tests state expected ones); see the properties.
    /// `startedAt` `nil` means ``createdAt`` (a timer never restarted).
    public init(
        id: Int64, owner: UInt32, name: String?, state: String, step: Int, segmentsNanoseconds: [Int64],
        stepRemainingNanoseconds: Int64, createdAt: String, endedAt: String?, endsAt: String?, fence: Int64,
        startedAt: String? = nil, isHeartbeat: Bool = false, beatCount: Int64 = 0, lastBeatAt: String? = nil,
        recurrence: TimerRecurrence? = nil, dueAt: Double? = nil
    ) {
        self.id = id
        self.owner = owner
        self.name = name
        self.state = state
        self.step = step
        self.segmentsNanoseconds = segmentsNanoseconds
        self.stepRemainingNanoseconds = stepRemainingNanoseconds
        self.createdAt = createdAt
        self.startedAt = startedAt ?? createdAt
        self.endedAt = endedAt
        self.endsAt = endsAt
        self.fence = fence
        self.isHeartbeat = isHeartbeat
        self.beatCount = beatCount
        self.lastBeatAt = lastBeatAt
        self.recurrence = recurrence
        self.dueAt = dueAt
        self.lastRunOutcome = nil
        self.lastRunCode = nil
        self.seriesGroup = nil
        self.runStep = nil
    }
}

/// One outbox row as a host follows them (``PostgresTimerQueue/followEvents(after:afterSeq:)``).
public struct SharedEventRow: Sendable, Equatable {
    /// The row's number (`seq`, ≥ 1), the `seq` of the `timer.event` notification.
    public var seq: Int64
    /// The timer's id.
    public var timerID: Int64
    /// `started`, `paused`, `resumed`, `step`, `finished`, `stopped`, `extended`, `restarted`,
    /// `renamed` or `beat`.
    public var kind: String
    /// The fence the transition was written under (with `timerID`, an on-finish action's
    /// idempotency key).
    public var fence: Int64
    /// The host that wrote it.
    public var hostID: String
    /// When it happened (ISO 8601 UTC, database clock).
    public var at: String
    /// The members the event adds to its notification, as a JSON object in text (`{"by": 300}` of
    /// `extended`, `{"from": "tea"}` of `renamed`), or `nil` when it adds none.
    public var detail: String?
    /// The timer as it is at the read (the row may have moved on since the event), or `nil` when
    /// the timer was removed since.
    public var timer: SharedTimerRow?
}

extension PostgresTimerQueue {
    /// The columns every read of ``SharedTimerRow`` selects from `timerd_timers t`, with `c.now`
    /// the one database instant of the read.
    static let rowColumns = """
        t.id, t.owner, t.name, t.state, t.step, t.segments_ns::text,
        CASE t.state
            WHEN 'running' THEN greatest(0, (extract(epoch FROM t.due_at - c.now) * 1e9)::bigint)
            WHEN 'finished' THEN 0
            ELSE coalesce(t.remaining_ns, 0) END,
        to_char(coalesce(t.created_at, t.updated_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        to_char(t.ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        CASE WHEN t.state = 'running' THEN to_char((t.due_at + make_interval(secs => coalesce(
            (SELECT sum(s) FROM unnest(t.segments_ns[t.step + 2:t.steps]) s), 0) / 1e9))
            AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END,
        t.fence,
        to_char(coalesce(t.started_at, t.created_at, t.updated_at) AT TIME ZONE 'UTC',
            'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        t.heartbeat, t.beat_count, to_char(t.last_beat_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        t.recurrence, t.rec_expression, t.rec_every_s, t.rec_zone, t.rec_follows_zone, t.rec_skip_missed,
        t.rec_randomized_delay_s, extract(epoch FROM t.rec_next_elapse), extract(epoch FROM t.rec_last_elapse),
        t.rec_elapse_count, t.rec_last_missed, CASE WHEN t.state = 'running' THEN extract(epoch FROM t.due_at) END,
        CASE WHEN t.recurrence IS NOT NULL THEN (SELECT r.outcome || ':' || coalesce(r.code::text, '')
            FROM timerd_action_runs r WHERE r.timer_id = t.id ORDER BY r.seq DESC LIMIT 1) END,
        t.sg_durations_s::text, t.sg_overlap, t.sg_run, t.sg_queued, t.sg_run_count, t.sg_skipped_count,
        CASE WHEN t.sg_run IS NOT NULL THEN (SELECT r.step + 1 FROM timerd_timers r WHERE r.id = t.sg_run AND r.live) END
        """

    /// The elements of a `bigint[]` in PostgreSQL's text form (`{1,2,3}`); `nil` or `{}` is empty.
    static func bigintArray(_ text: String?) -> [Int64] {
        (text ?? "{}").trimmingPrefix("{").split(separator: ",").compactMap { Int64($0.filter { $0 != "}" }) }
    }

    /// The recurrence of a row read at `column` … `column + 10` of `rows` (``rowColumns``' columns 15
    /// to 25), or `nil` for a one-shot timer or an unknown kind.
    static func recurrence(_ rows: PostgresRows, _ row: Int, from column: Int) -> TimerRecurrence? {
        let rule: TimerRecurrence.Rule
        switch rows.value(row, column) {
        case "calendar":
            rule = .calendar(
                expression: rows.value(row, column + 1) ?? "", zone: rows.value(row, column + 3) ?? "UTC",
                followsSystemZone: rows.value(row, column + 4) == "t")
        case "every":
            rule = .every(seconds: Double(rows.value(row, column + 2) ?? "") ?? TimerRecurrence.minimumInterval)
        default:
            return nil
        }
        func instant(_ offset: Int) -> Date? {
            Double(rows.value(row, column + offset) ?? "").map { Date(timeIntervalSince1970: $0) }
        }
        var recurrence = TimerRecurrence(
            rule: rule, skipMissed: rows.value(row, column + 5) == "t",
            randomizedDelay: Double(rows.value(row, column + 6) ?? "") ?? 0)
        recurrence.nextElapse = instant(7)
        recurrence.lastElapse = instant(8)
        recurrence.elapseCount = UInt64(clamping: rows.int64(row, column + 9) ?? 0)
        recurrence.lastMissed = UInt32(clamping: rows.int64(row, column + 10) ?? 0)
        return recurrence
    }

    /// The series' group of a row read at `column` … `column + 5` of `rows` (``rowColumns``' columns
    /// 28 to 33), or `nil` for a timer without one.
    static func seriesGroup(_ rows: PostgresRows, _ row: Int, from column: Int) -> SeriesGroup? {
        guard let text = rows.value(row, column),
            let overlap = rows.value(row, column + 1).flatMap(SeriesGroup.Overlap.init(rawValue:))
        else { return nil }
        let durations = text.trimmingPrefix("{").split(separator: ",").compactMap { Double($0.filter { $0 != "}" }) }
        var group = SeriesGroup(durations: durations, overlap: overlap)
        group.run = rows.int64(row, column + 2).map { UInt64(clamping: $0) }
        group.queued = rows.value(row, column + 3) == "t"
        group.runCount = UInt64(clamping: rows.int64(row, column + 4) ?? 0)
        group.skippedCount = UInt64(clamping: rows.int64(row, column + 5) ?? 0)
        return group
    }

    /// Reads the row at `column` … `column + 34` of `rows` (``rowColumns``).
    static func timerRow(_ rows: PostgresRows, _ row: Int, from column: Int = 0) -> SharedTimerRow? {
        guard let id = rows.int64(row, column) else { return nil }
        let segments = bigintArray(rows.value(row, column + 5))
        var timer = SharedTimerRow(
            id: id, owner: UInt32(clamping: rows.int64(row, column + 1) ?? 0), name: rows.value(row, column + 2),
            state: rows.value(row, column + 3) ?? "stopped", step: Int(rows.int64(row, column + 4) ?? 0),
            segmentsNanoseconds: segments, stepRemainingNanoseconds: rows.int64(row, column + 6) ?? 0,
            createdAt: rows.value(row, column + 7) ?? "", endedAt: rows.value(row, column + 8),
            endsAt: rows.value(row, column + 9), fence: rows.int64(row, column + 10) ?? 0,
            startedAt: rows.value(row, column + 11), isHeartbeat: rows.value(row, column + 12) == "t",
            beatCount: rows.int64(row, column + 13) ?? 0, lastBeatAt: rows.value(row, column + 14),
            recurrence: recurrence(rows, row, from: column + 15), dueAt: Double(rows.value(row, column + 26) ?? ""))
        if let text = rows.value(row, column + 27), let colon = text.lastIndex(of: ":") {
            timer.lastRunOutcome = String(text[..<colon])
            timer.lastRunCode = Int32(text[text.index(after: colon)...])
        }
        timer.seriesGroup = seriesGroup(rows, row, from: column + 28)
        timer.runStep = rows.int64(row, column + 34).map { Int($0) }
        return timer
    }

    /// The timer with `id`, if `owner` may see it.
    ///
    /// - Parameters:
    ///   - id: the timer's id.
    ///   - owner: the requester's uid; `nil` sees every owner's (root).
    /// - Returns: the row, or `nil` when there is none (or it is another owner's).
    /// - Throws: ``PostgresError``.
    public func timer(id: Int64, owner: UInt32?) throws(PostgresError) -> SharedTimerRow? {
        let rows = try connection.query(
            """
            SELECT \(Self.rowColumns) FROM timerd_timers t, (SELECT clock_timestamp() AS now) c
            WHERE t.id = $1 AND ($2::bigint IS NULL OR t.owner = $2) AND t.segments_ns IS NOT NULL
            """, [String(id), owner.map { String($0) }])
        return Self.timerRow(rows, 0)
    }

    /// The statement of ``timer(named:owner:)``: `$1` name, `$2` owner or NULL.
    static let namedTimerSQL = """
        SELECT \(PostgresTimerQueue.rowColumns) FROM timerd_timers t, (SELECT clock_timestamp() AS now) c
        WHERE t.name = $1 AND ($2::bigint IS NULL OR t.owner = $2) AND t.segments_ns IS NOT NULL
        ORDER BY t.live DESC, t.id DESC LIMIT 1
        """

    /// The timer named `name`: the live one, else the most recently started one that ended (the
    /// one-host daemon's rule, `TimerReference.name`).
    ///
    /// - Parameters:
    ///   - name: the name (NFC).
    ///   - owner: the requester's uid; `nil` sees every owner's (root).
    /// - Returns: the row, or `nil`.
    /// - Throws: ``PostgresError``.
    public func timer(named name: String, owner: UInt32?) throws(PostgresError) -> SharedTimerRow? {
        let rows = try connection.query(
            Self.namedTimerSQL, [name, owner.map { String($0) }])
        return Self.timerRow(rows, 0)
    }

    /// The timers `owner` may see, by ascending id: the live ones, and with `includeEnded` the
    /// ended ones too.
    ///
    /// - Parameters:
    ///   - owner: the requester's uid; `nil` sees every owner's (root).
    ///   - includeEnded: whether finished and stopped timers are listed.
    /// - Returns: the rows.
    /// - Throws: ``PostgresError``.
    /// - Complexity: one round trip; O(n) rows.
    public func timers(owner: UInt32?, includeEnded: Bool) throws(PostgresError) -> [SharedTimerRow] {
        let rows = try connection.query(
            """
            SELECT \(Self.rowColumns) FROM timerd_timers t, (SELECT clock_timestamp() AS now) c
            WHERE ($1::bigint IS NULL OR t.owner = $1) AND t.segments_ns IS NOT NULL AND ($2 OR t.live)
            ORDER BY t.id
            """, [owner.map { String($0) }, includeEnded ? "t" : "f"])
        return rows.rows.indices.compactMap { Self.timerRow(rows, $0) }
    }

    /// How many live timers `owner` has (for the quota).
    ///
    /// - Parameter owner: the uid.
    /// - Returns: the count.
    /// - Throws: ``PostgresError``.
    public func liveCount(owner: UInt32) throws(PostgresError) -> Int {
        Int(
            try connection.query("SELECT count(*) FROM timerd_timers WHERE owner = $1 AND live", [String(owner)])
                .int64(0, 0) ?? 0)
    }

    /// How many live timers `owner` has, counting no further than `limit` (the quota's check: the
    /// count stops at the limit, so it reads at most `limit` entries of `timerd_timers_live_owner`).
    ///
    /// - Parameters:
    ///   - owner: the uid.
    ///   - limit: the most to count (≥ 0).
    /// - Returns: the count, at most `limit`.
    /// - Throws: ``PostgresError``.
    public func liveCount(owner: UInt32, atMost limit: Int) throws(PostgresError) -> Int {
        Int(
            try connection.query(
                "SELECT count(*) FROM (SELECT 1 FROM timerd_timers WHERE owner = $1 AND live LIMIT $2) l",
                [String(owner), String(max(0, limit))]
            ).int64(0, 0) ?? 0)
    }

    /// Deletes the ended timers past the history limits, with their outbox rows (the one-host
    /// daemon's rule, per owner: those ended longer than `maximumAgeSeconds` ago, then all but each
    /// owner's `limit` most recently ended), among those that ended more than `graceSeconds` ago:
    /// every host reads the outbox rows of a timer's end before they go (a `timer.wait` on another
    /// host is answered from them).
    ///
    /// - Parameters:
    ///   - limit: how many ended timers each owner keeps (≥ 0).
    ///   - maximumAgeSeconds: how long an ended timer is kept (database clock), or `nil` for no
    ///     age limit.
    ///   - graceSeconds: how long any ended timer is kept, whatever the limits (≥ 0).
    ///   - batch: the most timers deleted by one call (the rest go at the next).
    /// - Returns: the ids deleted.
    /// - Throws: ``PostgresError``.
    /// - Complexity: one round trip; O(e log n) in the server for e ended rows.
    @discardableResult
    public func pruneHistory(limit: Int, maximumAgeSeconds: Double?, graceSeconds: Double, batch: Int = 10_000)
        throws(PostgresError) -> [Int64]
    {
        let rows = try connection.query(
            """
            WITH ranked AS (
                SELECT id, ended_at, row_number() OVER (PARTITION BY owner ORDER BY ended_at DESC, id DESC) AS rank
                FROM timerd_timers WHERE NOT live
            ), gone AS (
                DELETE FROM timerd_timers t USING (
                    SELECT id FROM ranked
                    WHERE (rank > $1
                           OR ($2::double precision IS NOT NULL
                               AND ended_at < now() - make_interval(secs => $2::double precision)))
                      AND ended_at < now() - make_interval(secs => $4::double precision)
                    LIMIT $3
                ) p
                WHERE t.id = p.id AND NOT t.live
                RETURNING t.id
            ), events AS (
                DELETE FROM timerd_events e USING gone WHERE e.timer_id = gone.id
            )
            SELECT id FROM gone ORDER BY id
            """,
            [
                String(max(0, limit)), maximumAgeSeconds.map { String($0) }, String(max(1, batch)),
                String(max(0, graceSeconds)),
            ])
        return rows.rows.indices.compactMap { rows.int64($0, 0) }
    }

    /// Removes ended timers (`timerctl rm`): the one with `id`, or with `id` `nil` every ended
    /// timer of `owner`. Live timers are never removed. Their outbox rows stay (pruned by age).
    ///
    /// - Parameters:
    ///   - id: the timer, or `nil` for all of `owner`'s ended timers.
    ///   - owner: the requester's uid; `nil` (root) only with an `id`.
    /// - Returns: the removed timers as they were, by ascending id.
    /// - Throws: ``PostgresError``.
    public func removeEnded(id: Int64?, owner: UInt32?) throws(PostgresError) -> [SharedTimerRow] {
        try connection.transaction { connection throws(PostgresError) in
            let rows = try connection.query(
                """
                SELECT \(Self.rowColumns) FROM timerd_timers t, (SELECT clock_timestamp() AS now) c
                WHERE ($1::bigint IS NULL OR t.id = $1) AND ($2::bigint IS NULL OR t.owner = $2)
                  AND t.state IN ('finished', 'stopped') AND t.segments_ns IS NOT NULL
                ORDER BY t.id FOR UPDATE OF t
                """, [id.map { String($0) }, owner.map { String($0) }])
            let removed = rows.rows.indices.compactMap { Self.timerRow(rows, $0) }
            if !removed.isEmpty {
                try connection.query(
                    "DELETE FROM timerd_timers WHERE id = ANY($1::bigint[])",
                    ["{" + removed.map { String($0.id) }.joined(separator: ",") + "}"])
            }
            return removed
        }
    }

    /// The outbox position to follow from: the `xmin` of a snapshot taken now (every transaction
    /// with a smaller id has ended). Pass it to ``followEvents(after:afterSeq:)``.
    ///
    /// - Returns: the position (an `xid8` in text).
    /// - Throws: ``PostgresError``.
    public func eventCursor() throws(PostgresError) -> String {
        try connection.queryPrepared("SELECT pg_snapshot_xmin(pg_current_snapshot())::text").value(0, 0) ?? "0"
    }

    /// The outbox rows written since `cursor`, in `seq` order, each with its timer as it is now.
    ///
    /// Rows are taken by their transaction's id between `cursor` and the `xmin` of a snapshot taken
    /// now, so only committed (or rolled back, hence absent) transactions are read and none is
    /// skipped: an event whose `seq` is smaller than one already read, because its transaction
    /// committed later, still comes (a `seq` cursor would lose it).
    ///
    /// With `afterSeq`, rows above it come too, whatever their transaction's id: pass it on the
    /// first call after connecting to a server that started anew (``serverStartTime()`` changed).
    /// After a failover, a promoted standby's transaction ids continue from what it replayed, which
    /// can be below a cursor taken on the old primary, while its `seq` values start past every `seq`
    /// the old primary may have handed out (``checkIDs()`` moves the sequence on). In normal running
    /// no row below the cursor is above `afterSeq`, since the call that moved the cursor past it
    /// read it; the clause is left out then, as it keeps the planner from the transaction id index.
    ///
    /// - Parameters:
    ///   - cursor: the position the last call returned (or ``eventCursor()``).
    ///   - afterSeq: the highest `seq` the caller has read, or `nil`.
    /// - Returns: the rows and the position to pass next time.
    /// - Throws: ``PostgresError``.
    /// - Complexity: two round trips; O(n) in the rows.
    public func followEvents(
        after cursor: String, afterSeq: Int64? = nil
    ) throws(PostgresError) -> (events: [SharedEventRow], cursor: String) {
        let next = try eventCursor()
        let select = """
            SELECT e.seq, e.timer_id, e.kind, e.fence, e.host_id,
                to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.detail::text,
                \(Self.rowColumns)
            FROM timerd_events e CROSS JOIN (SELECT clock_timestamp() AS now) c
                LEFT JOIN timerd_timers t ON t.id = e.timer_id AND t.segments_ns IS NOT NULL
            """
        if let afterSeq {
            // Rare (after a server change): planned for these values, not prepared.
            let rows = try connection.query(
                select + " WHERE (e.txid >= $1::xid8 OR e.seq > $3) AND e.txid < $2::xid8 ORDER BY e.seq",
                [cursor, next, String(afterSeq)])
            return (Self.eventRows(rows), next)
        }
        guard next != cursor else { return ([], cursor) }
        let rows = try connection.queryPrepared(
            select + " WHERE e.txid >= $1::xid8 AND e.txid < $2::xid8 ORDER BY e.seq", [cursor, next])
        return (Self.eventRows(rows), next)
    }

    /// Moves past the outbox rows written since `cursor` without reading them, as
    /// ``followEvents(after:afterSeq:)`` would (for a host with no wait and no subscriber).
    ///
    /// - Parameter cursor: the position the last call returned (or ``eventCursor()``).
    /// - Returns: the highest `seq` among the rows (`nil` when none), whether one of them is a
    ///   `finished` or `stopped` row, and the position to pass next time.
    /// - Throws: ``PostgresError``.
    /// - Complexity: one round trip; O(n) in the rows, on the transaction id index.
    public func skimEvents(after cursor: String) throws(PostgresError) -> (
        lastSeq: Int64?, sawEnd: Bool, cursor: String
    ) {
        let rows = try connection.queryPrepared(
            """
            WITH s AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS next)
            SELECT s.next::text, max(e.seq), coalesce(bool_or(e.kind IN ('finished', 'stopped')), false)
            FROM s LEFT JOIN timerd_events e ON e.txid >= $1::xid8 AND e.txid < s.next
            GROUP BY s.next
            """, [cursor])
        return (rows.int64(0, 1), rows.value(0, 2) == "t", rows.value(0, 0) ?? cursor)
    }

    /// When the database server started (`pg_postmaster_start_time()`, in text): a different
    /// value after a reconnection means a restart or a promoted standby
    /// (``followEvents(after:afterSeq:)``).
    ///
    /// - Returns: the instant's text.
    /// - Throws: ``PostgresError``.
    public func serverStartTime() throws(PostgresError) -> String {
        try connection.query("SELECT pg_postmaster_start_time()::text").value(0, 0) ?? ""
    }

    /// The outbox rows after `afterSeq` that are older than `cursor` (a subscriber's `afterSeq`
    /// replay), at most `limit`, in `seq` order.
    ///
    /// - Parameters:
    ///   - afterSeq: the last `seq` the subscriber saw.
    ///   - cursor: the host's position; newer rows come by ``followEvents(after:afterSeq:)``.
    ///   - limit: the most rows.
    /// - Returns: the rows.
    /// - Throws: ``PostgresError``.
    public func events(afterSeq: Int64, before cursor: String, limit: Int) throws(PostgresError) -> [SharedEventRow] {
        let rows = try connection.query(
            """
            SELECT e.seq, e.timer_id, e.kind, e.fence, e.host_id,
                to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), e.detail::text,
                \(Self.rowColumns)
            FROM timerd_events e CROSS JOIN (SELECT clock_timestamp() AS now) c
                LEFT JOIN timerd_timers t ON t.id = e.timer_id AND t.segments_ns IS NOT NULL
            WHERE e.seq > $1 AND e.txid < $2::xid8
            ORDER BY e.seq LIMIT $3
            """, [String(afterSeq), cursor, String(max(1, limit))])
        return Self.eventRows(rows)
    }

    /// The highest `seq` in the outbox (0 when empty).
    ///
    /// - Returns: the number.
    /// - Throws: ``PostgresError``.
    public func lastEventSeq() throws(PostgresError) -> Int64 {
        try connection.query("SELECT coalesce(max(seq), 0) FROM timerd_events").int64(0, 0) ?? 0
    }

    static func eventRows(_ rows: PostgresRows) -> [SharedEventRow] {
        rows.rows.indices.map { row in
            SharedEventRow(
                seq: rows.int64(row, 0) ?? 0, timerID: rows.int64(row, 1) ?? 0, kind: rows.value(row, 2) ?? "",
                fence: rows.int64(row, 3) ?? 0, hostID: rows.value(row, 4) ?? "", at: rows.value(row, 5) ?? "",
                detail: rows.value(row, 6), timer: timerRow(rows, row, from: 7))
        }
    }

    /// Deletes outbox rows older than `maximumAgeSeconds` (database clock), and beyond the newest
    /// `maximumCount`, except a `finished` row whose timer still exists (it proves the finish under
    /// its fence; the unique key on it is what refuses a second one).
    ///
    /// - Parameters:
    ///   - maximumAgeSeconds: rows older than this go (timerd: 3,600 s).
    ///   - maximumCount: at most this many of the newest rows stay (timerd: 1,000,000).
    /// - Returns: how many rows were deleted.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func pruneEvents(maximumAgeSeconds: Double, maximumCount: Int) throws(PostgresError) -> Int {
        try connection.query(
            """
            DELETE FROM timerd_events e
            WHERE (e.at < now() - make_interval(secs => $1::double precision)
                   OR e.seq <= (SELECT coalesce(max(seq), 0) FROM timerd_events) - $2)
              AND NOT (e.kind = 'finished' AND EXISTS (SELECT 1 FROM timerd_timers t WHERE t.id = e.timer_id))
            """, [String(maximumAgeSeconds), String(max(0, maximumCount))]
        ).affected
    }
}
