/// The transitions a request makes from any host (pause, resume, stop): each one guarded
/// statement with its outbox row in one transaction, moving the fence on so that an in-flight
/// completion of the old deadline is refused.
extension PostgresTimerQueue {
    /// Pauses a running timer of `owner` from any host: keeps the time left of its current step
    /// (`due_at − now()`, the transaction's instant on the database clock), clears the deadline and any claim, and moves the fence on so
    /// that an in-flight completion of it is refused. A paused series starts nothing: its queued run
    /// is dropped (`sg_queued`, schema version 8; its live run goes on).
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - owner: the requester's uid; another owner's timer is not found (`nil`: any owner, for root).
    /// - Returns: the nanoseconds left, or `nil` when no running timer of `owner` has that id.
    /// - Throws: ``PostgresError``.
    public func pause(id: Int64, owner: UInt32?) throws(PostgresError) -> Int64? {
        try transition(
            id: id, owner: owner, from: "running", kind: "paused",
            set: """
                state = 'paused', remaining_ns = greatest(0, (extract(epoch FROM due_at - now()) * 1e9)::bigint),
                due_at = NULL, sg_queued = false
                """, returning: "remaining_ns")
    }

    /// Resumes a paused timer of `owner` from any host: due `remaining` after now on the database
    /// clock.
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - owner: the requester's uid (`nil`: any owner, for root).
    /// - Returns: the nanoseconds left, or `nil` when no paused timer of `owner` has that id.
    /// - Throws: ``PostgresError``.
    public func resume(id: Int64, owner: UInt32?) throws(PostgresError) -> Int64? {
        try transition(
            id: id, owner: owner, from: "paused", kind: "resumed",
            set: """
                state = 'running', due_at = now() + make_interval(secs => remaining_ns / 1e9),
                remaining_ns = NULL
                """, returning: "(extract(epoch FROM due_at - now()) * 1e9)::bigint")
    }

    /// Stops a live timer of `owner` from any host; the time left of its current step is kept
    /// (`remaining_ns`, as a pause keeps it) and `ended_at` set, on the database clock. A series'
    /// live run is stopped with it, and a run's series lets go of it (the trigger
    /// `timerd_series_runs`, schema version 8, at the transaction's commit).
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - owner: the requester's uid (`nil`: any owner, for root).
    /// - Returns: whether a live timer of `owner` with that id was stopped.
    /// - Throws: ``PostgresError``.
    public func stop(id: Int64, owner: UInt32?) throws(PostgresError) -> Bool {
        // A series' live run is locked before the series, the order in which a run's end locks the
        // two (the run's update, then its series in the trigger), so that the two never deadlock.
        try transition(
            id: id, owner: owner, from: nil, kind: "stopped",
            lockFirst: """
                SELECT 1 FROM timerd_timers r
                WHERE r.id = (SELECT s.sg_run FROM timerd_timers s WHERE s.id = $1) AND r.live FOR UPDATE
                """,
            set: """
                state = 'stopped', live = false, due_at = NULL, ended_at = clock_timestamp(),
                remaining_ns = CASE WHEN state = 'running'
                    THEN greatest(0, (extract(epoch FROM due_at - now()) * 1e9)::bigint) ELSE remaining_ns END
                """, returning: "0") != nil
    }

    /// One guarded transition with its outbox row, in one transaction; `lockFirst` (a statement of
    /// `$1`, the id) runs before it, in the same transaction.
    private func transition(
        id: Int64, owner: UInt32?, from: String?, kind: String, lockFirst: String? = nil, set: String,
        returning: String
    ) throws(PostgresError) -> Int64? {
        try connection.transaction { connection throws(PostgresError) in
            if let lockFirst { try connection.query(lockFirst, [String(id)]) }
            let rows = try connection.query(
                """
                UPDATE timerd_timers
                SET \(set), fence = fence + 1, claim_until = NULL, claimed_by = NULL, version = version + 1,
                    updated_at = now()
                WHERE id = $1 AND ($2::bigint IS NULL OR owner = $2) AND \(from.map { "state = '\($0)'" } ?? "live")
                RETURNING fence, \(returning)
                """, [String(id), owner.map { String($0) }])
            guard let fence = rows.value(0, 0) else { return nil }
            try connection.query(
                "INSERT INTO timerd_events (timer_id, kind, fence, host_id) VALUES ($1, $2, $3, $4)",
                [String(id), kind, fence, hostID])
            return rows.int64(0, 1) ?? 0
        }
    }
}
