/// One action run of shared mode as `timer.runs` reads it (`timerd_action_runs`, schema version 7).
public struct SharedActionRunRow: Sendable, Equatable {
    /// The run's number (`seq`), this table's own.
    public var seq: Int64
    /// `exec` or `notify`.
    public var kind: String
    /// `finished`, `missed` or `elapsed`.
    public var trigger: String
    /// When it was recorded as started (ISO 8601 UTC with milliseconds, database clock).
    public var startedAt: String
    /// When it ended (ISO 8601), or `nil` while running or when interrupted.
    public var endedAt: String?
    /// `running`, `exited`, `signalled`, `timed-out`, `failed-to-start` or `interrupted`.
    public var outcome: String
    /// The exit status, the signal or the `errno` of the outcome, or `nil`.
    public var code: Int32?
}

/// The action runs of shared mode: each run a row written when the host that runs it is about to
/// start it and updated when it ends, with an `action` outbox row for its end; at most
/// ``maximumRunsPerTimer`` kept per timer, removed with the timer.
extension PostgresTimerQueue {
    /// The most runs kept per timer, as many as one host's engine keeps (`TimerEngine.maximumActionRuns`).
    public static let maximumRunsPerTimer = 16

    /// Records that this host starts a run of timer `timerID` (outcome `running`, started now on the
    /// database clock), and drops the timer's runs beyond ``maximumRunsPerTimer``.
    ///
    /// - Parameters:
    ///   - timerID: the timer.
    ///   - kind: `exec` or `notify`.
    ///   - trigger: `finished`, `missed` or `elapsed`.
    ///   - fence: the fence of the firing that gave this host the run.
    /// - Returns: the run's `seq`, or `nil` when the timer no longer exists.
    /// - Throws: ``PostgresError``.
    public func recordRunStart(timerID: Int64, kind: String, trigger: String, fence: Int64?) throws(PostgresError)
        -> Int64?
    {
        let rows = try connection.query(
            """
            WITH run AS (
                INSERT INTO timerd_action_runs (timer_id, kind, trigger, fence, host_id)
                SELECT id, $2, $3, $4::bigint, $5 FROM timerd_timers WHERE id = $1
                RETURNING seq
            ), old AS (
                DELETE FROM timerd_action_runs WHERE timer_id = $1 AND seq <= (
                    SELECT seq FROM timerd_action_runs WHERE timer_id = $1
                    ORDER BY seq DESC OFFSET $6::integer - 1 LIMIT 1)
            )
            SELECT seq FROM run
            """,
            [String(timerID), kind, trigger, fence.map { String($0) }, hostID, String(Self.maximumRunsPerTimer)])
        return rows.int64(0, 0)
    }

    /// Records how run `seq` ended (now, on the database clock) and writes its `action` outbox row
    /// (`detail`: `kind`, `trigger`, `outcome`, `code`) under the run's fence, in one statement.
    ///
    /// - Parameters:
    ///   - seq: the run (``recordRunStart(timerID:kind:trigger:fence:)``).
    ///   - outcome: its outcome's name.
    ///   - code: the exit status, signal or `errno`, or `nil`.
    /// - Returns: whether the run was still kept (its timer not removed meanwhile).
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func recordRunEnd(seq: Int64, outcome: String, code: Int32?) throws(PostgresError) -> Bool {
        let rows = try connection.query(
            """
            WITH run AS (
                UPDATE timerd_action_runs SET ended_at = clock_timestamp(), outcome = $2, code = $3::integer
                WHERE seq = $1
                RETURNING timer_id, kind, trigger, coalesce(fence, 0) AS fence, outcome, code
            ), event AS (
                INSERT INTO timerd_events (timer_id, kind, fence, host_id, detail)
                SELECT timer_id, 'action', fence, $4,
                    jsonb_build_object('kind', kind, 'trigger', trigger, 'outcome', outcome, 'code', code)
                FROM run
            )
            SELECT count(*) FROM run
            """, [String(seq), outcome, code.map { String($0) }, hostID])
        return rows.int64(0, 0) == 1
    }

    /// Marks the runs this host id recorded as running as `interrupted`: call it at the host's
    /// start, when no run of it can be running (the host id lock admits one live host per id), so a
    /// host that died while runs were in progress leaves them as one host's restart does.
    ///
    /// - Returns: how many runs were marked.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func interruptRuns() throws(PostgresError) -> Int {
        try connection.query(
            "UPDATE timerd_action_runs SET outcome = 'interrupted' WHERE host_id = $1 AND outcome = 'running'",
            [hostID]
        ).affected
    }

    /// The kept runs of timer `timerID`, oldest first.
    ///
    /// - Parameter timerID: the timer.
    /// - Returns: its runs (at most ``maximumRunsPerTimer``).
    /// - Throws: ``PostgresError``.
    public func actionRuns(timerID: Int64) throws(PostgresError) -> [SharedActionRunRow] {
        let rows = try connection.query(
            """
            SELECT seq, kind, trigger,
                to_char(started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                to_char(ended_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), outcome, code
            FROM timerd_action_runs WHERE timer_id = $1 ORDER BY seq
            """, [String(timerID)])
        return rows.rows.indices.map { row in
            SharedActionRunRow(
                seq: rows.int64(row, 0) ?? 0, kind: rows.value(row, 1) ?? "", trigger: rows.value(row, 2) ?? "",
                startedAt: rows.value(row, 3) ?? "", endedAt: rows.value(row, 4),
                outcome: rows.value(row, 5) ?? "running", code: rows.int64(row, 6).map { Int32(clamping: $0) })
        }
    }
}
