/// The edits of a timer after it started, from any host (`timer.extend`, `timer.skip`,
/// `timer.restart`, `timer.rename`, `timer.beat`; the one-host rules are `TimerEngine`'s,
/// docs/protocol.md).
///
/// Each edit is one transaction: the row is locked (`FOR UPDATE`, under the owner filter), the
/// rule is checked on what the lock read, and the change is written with its outbox rows, the
/// update guarded by the fence read under the lock. An edit that moves a deadline (extend, a step
/// ended early, restart, beat) moves the fence on and clears the lease, so the completion of a claim
/// another host took on the old deadline is refused and the row is claimed again on its new one.
/// A rename moves no deadline: it keeps the fence and any claim (an on-finish action's start is
/// recorded under that fence).
extension PostgresTimerQueue {
    /// Why an edit was not made (nothing was written).
    public enum EditRefusal: Sendable, Equatable {
        /// No timer of the owner has that id (another owner's timer is not seen).
        case notFound
        /// The timer's state does not allow the edit (extend and skip need a live timer); the
        /// state it is in (`finished` or `stopped`).
        case wrongState(String)
        /// A skip of a plain timer, which has no next step.
        case notAGroup
        /// Another live timer of the owner holds the name: its id.
        case nameInUse(holder: Int64)
        /// The restart of an ended timer whose owner already has as many live timers as the quota.
        case quotaExceeded
        /// An extend past the longest timer allowed: the whole duration it would have (seconds),
        /// and whether it is a group.
        case tooLong(totalSeconds: Double, isGroup: Bool)
        /// A beat of a timer started without `heartbeat`.
        case notAHeartbeat
        /// A beat at or after a running heartbeat timer's deadline, which no host has finished yet:
        /// the deadline (ISO 8601 UTC with milliseconds, database clock).
        case beatTooLate(end: String)
    }

    /// What an edit that was made did.
    public struct AppliedEdit: Sendable, Equatable {
        /// The row's fence after the edit: the key of an on-finish action it queued.
        public var fence: Int64
        /// For an extend, the nanoseconds added as applied: negative when time was taken away,
        /// clamped to what the step had left; 0 for the other edits.
        public var appliedNanoseconds: Int64
        /// How the current step ended when the edit ended it (a skip, or an extend that took away
        /// all the step had left): ``Completion/finished`` or ``Completion/nextStep(_:)``; `nil`
        /// when no step ended.
        public var stepEnd: Completion?
        /// When the edit finished a timer that has an on-finish action: what the action needs. This
        /// host then holds the action under ``fence`` as after a completion (`action_state =
        /// 'pending'`, until ``markActionStarted(id:fence:)``).
        public var finished: FinishedTimer?

        /// An applied edit; see the properties.
        public init(
            fence: Int64, appliedNanoseconds: Int64 = 0, stepEnd: Completion? = nil, finished: FinishedTimer? = nil
        ) {
            self.fence = fence
            self.appliedNanoseconds = appliedNanoseconds
            self.stepEnd = stepEnd
            self.finished = finished
        }
    }

    /// What an edit did.
    public enum EditOutcome: Sendable, Equatable {
        /// Written, with its outbox rows.
        case applied(AppliedEdit)
        /// Refused by the rule; nothing written.
        case refused(EditRefusal)
    }

    /// A row as an edit reads it under its lock.
    private struct LockedRow {
        var state: String
        var step: Int
        var segmentsNanoseconds: [Int64]
        var fence: Int64
        var name: String?
        var owner: Int64
        var isLive: Bool
        /// Whether it is a heartbeat timer.
        var isHeartbeat: Bool
        /// While running: whether its deadline is at or before ``now``.
        var isDue: Bool
        /// While running: its deadline (ISO 8601 UTC with milliseconds); else `nil`.
        var dueAt: String?
        /// What the current step has left at ``now``: `due_at − now` while running (0 when due),
        /// the kept value while paused, 0 once ended.
        var leftNanoseconds: Int64
        /// The database clock when the row was read, as `timestamptz` text: the one instant of
        /// the edit.
        var now: String
    }

    /// Locks timer `id` of `owner` for the rest of the transaction, then reads it with the
    /// database clock's instant: read after the lock is granted (a statement of its own), so a
    /// wait for another host's completion of the row does not make "now" stale.
    private static func lockRow(id: Int64, owner: UInt32?, _ connection: PostgresConnection)
        throws(PostgresError) -> LockedRow?
    {
        let locked = try connection.query(
            """
            SELECT 1 FROM timerd_timers
            WHERE id = $1 AND ($2::bigint IS NULL OR owner = $2) AND segments_ns IS NOT NULL
            FOR UPDATE
            """, [String(id), owner.map { String($0) }])
        guard !locked.rows.isEmpty else { return nil }
        let rows = try connection.query(
            """
            SELECT t.state, t.step, t.segments_ns::text, t.fence, t.name, t.owner, t.live,
                CASE t.state
                    WHEN 'running' THEN greatest(0, (extract(epoch FROM t.due_at - c.now) * 1e9)::bigint)
                    WHEN 'paused' THEN coalesce(t.remaining_ns, 0)
                    ELSE 0 END,
                c.now::text, t.heartbeat, t.state = 'running' AND t.due_at <= c.now,
                CASE WHEN t.state = 'running'
                    THEN to_char(t.due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END
            FROM timerd_timers t, (SELECT clock_timestamp() AS now) c
            WHERE t.id = $1
            """, [String(id)])
        guard let state = rows.value(0, 0), let now = rows.value(0, 8) else { return nil }
        return LockedRow(
            state: state, step: Int(rows.int64(0, 1) ?? 0), segmentsNanoseconds: bigintArray(rows.value(0, 2)),
            fence: rows.int64(0, 3) ?? 0, name: rows.value(0, 4), owner: rows.int64(0, 5) ?? 0,
            isLive: rows.value(0, 6) == "t", isHeartbeat: rows.value(0, 9) == "t", isDue: rows.value(0, 10) == "t",
            dueAt: rows.value(0, 11), leftNanoseconds: rows.int64(0, 7) ?? 0, now: now)
    }

    /// Adds time to the current step of a running or paused timer of `owner`, or with a negative
    /// amount takes time away (`TimerEngine.extend`'s rule): taking away less than the step has
    /// left shortens it; as much or more ends the step now, as ``skip(id:owner:actionLeaseSeconds:)``
    /// ends it (the `extended` row says the amount as applied, `−left`, and a `step` or `finished`
    /// row follows, with the on-finish action of a finish).
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - owner: the requester's uid (`nil`: any owner, for root).
    ///   - change: nanoseconds to add (< 0 takes away; not 0).
    ///   - maximumTotalSeconds: the longest the whole timer may last after the change (timerd:
    ///     366 days, `DurationParser.maximumSeconds`).
    ///   - actionLeaseSeconds: how long a finished timer's action stays this host's to start.
    /// - Returns: what was written, with the amount applied; refused with ``EditRefusal/notFound``,
    ///   ``EditRefusal/wrongState(_:)`` or ``EditRefusal/tooLong(totalSeconds:isGroup:)``.
    /// - Throws: ``PostgresError``; nothing is written then.
    public func extend(
        id: Int64, owner: UInt32?, byNanoseconds change: Int64, maximumTotalSeconds: Double,
        actionLeaseSeconds: Double = 30
    ) throws(PostgresError) -> EditOutcome {
        let hostID = self.hostID
        return try connection.transaction { connection throws(PostgresError) in
            guard let row = try Self.lockRow(id: id, owner: owner, connection) else { return .refused(.notFound) }
            guard row.state == "running" || row.state == "paused" else { return .refused(.wrongState(row.state)) }
            guard change > -row.leftNanoseconds else {
                // Past zero: the step ends now, as a skip ends it (its duration stays, the rest counts as run).
                let applied = -row.leftNanoseconds
                var edit = try Self.endStep(
                    id: id, row, extendedBy: applied, hostID: hostID, actionLeaseSeconds: actionLeaseSeconds,
                    connection)
                edit?.appliedNanoseconds = applied
                return edit.map { .applied($0) } ?? .refused(.notFound)
            }
            if change > 0 {
                let total = row.segmentsNanoseconds.reduce(Int64(0)) { $0.addingReportingOverflow($1).partialValue }
                let seconds = Double(total.addingReportingOverflow(change).partialValue) / 1e9
                guard seconds <= maximumTotalSeconds else {
                    return .refused(.tooLong(totalSeconds: seconds, isGroup: row.segmentsNanoseconds.count > 1))
                }
            }
            let rows = try connection.query(
                """
                UPDATE timerd_timers
                SET segments_ns[step + 1] = segments_ns[step + 1] + $3::bigint,
                    due_at = CASE WHEN state = 'running' THEN due_at + make_interval(secs => $3::bigint / 1e9) END,
                    remaining_ns = CASE WHEN state = 'paused' THEN remaining_ns + $3::bigint END,
                    fence = fence + 1, claim_until = NULL, claimed_by = NULL, version = version + 1,
                    updated_at = now()
                WHERE id = $1 AND fence = $2 AND state IN ('running', 'paused')
                RETURNING fence
                """, [String(id), String(row.fence), String(change)])
            guard let fence = rows.int64(0, 0) else { return .refused(.notFound) }
            try Self.insertEvent(
                id: id, kind: "extended", fence: fence, hostID: hostID, at: row.now,
                detail: Self.extendedDetail(change), connection)
            return .applied(AppliedEdit(fence: fence, appliedNanoseconds: change))
        }
    }

    /// Ends the current step of a running or paused group of `owner` now and goes on with the next
    /// (paused if it was paused); after the last step the group finishes (`TimerEngine.skip`'s
    /// rule). The skipped time counts as run: the durations stay. A running group's next step is
    /// due one step length from now; the outbox row is `step` or `finished`, as a completion
    /// writes it (with its deadline met, `due_at`, the instant of the skip), and a finish queues
    /// the on-finish action under this host's claim as a completion does.
    ///
    /// - Parameters:
    ///   - id: the group.
    ///   - owner: the requester's uid (`nil`: any owner, for root).
    ///   - actionLeaseSeconds: how long a finished timer's action stays this host's to start.
    /// - Returns: what was written; refused with ``EditRefusal/notFound``,
    ///   ``EditRefusal/notAGroup`` (checked first, as on one host) or ``EditRefusal/wrongState(_:)``.
    /// - Throws: ``PostgresError``; nothing is written then.
    public func skip(id: Int64, owner: UInt32?, actionLeaseSeconds: Double = 30) throws(PostgresError)
        -> EditOutcome
    {
        let hostID = self.hostID
        return try connection.transaction { connection throws(PostgresError) in
            guard let row = try Self.lockRow(id: id, owner: owner, connection) else { return .refused(.notFound) }
            guard row.segmentsNanoseconds.count > 1 else { return .refused(.notAGroup) }
            guard row.state == "running" || row.state == "paused" else { return .refused(.wrongState(row.state)) }
            let edit = try Self.endStep(
                id: id, row, extendedBy: nil, hostID: hostID, actionLeaseSeconds: actionLeaseSeconds, connection)
            return edit.map { .applied($0) } ?? .refused(.notFound)
        }
    }

    /// Starts a timer of `owner` again from its first step with its step lengths as they are now,
    /// under the same id and name (`TimerEngine.restart`'s rule): running, paused or ended. An ended
    /// timer becomes live again, so its name must be free among the owner's live timers and the
    /// owner under `quota`. `started_at` becomes now, `created_at` stays; a pending on-finish
    /// action of its last finish is dropped from the action outbox (its host has it or ran it). A
    /// heartbeat timer's beats are counted afresh (`beat_count` 0, `last_beat_at` NULL).
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - owner: the requester's uid (`nil`: any owner, for root).
    ///   - quota: the most live timers its owner may have, or `nil` for no limit (checked only when
    ///     an ended timer comes back).
    /// - Returns: what was written; refused with ``EditRefusal/notFound``,
    ///   ``EditRefusal/nameInUse(holder:)`` or ``EditRefusal/quotaExceeded``.
    /// - Throws: ``PostgresError``; a live timer given the name by another host meanwhile is
    ///   ``PostgresError/constraint(sqlState:constraint:message:)`` on `timerd_timers_live_name`.
    public func restart(id: Int64, owner: UInt32?, quota: Int?) throws(PostgresError) -> EditOutcome {
        let hostID = self.hostID
        return try connection.transaction { connection throws(PostgresError) in
            guard let row = try Self.lockRow(id: id, owner: owner, connection) else { return .refused(.notFound) }
            if !row.isLive {
                if let name = row.name,
                    let holder = try Self.liveHolder(of: name, owner: row.owner, except: id, connection)
                {
                    return .refused(.nameInUse(holder: holder))
                }
                if let quota {
                    let live =
                        try connection.query(
                            "SELECT count(*) FROM (SELECT 1 FROM timerd_timers WHERE owner = $1 AND live LIMIT $2) l",
                            [String(row.owner), String(max(0, quota))]
                        ).int64(0, 0) ?? 0
                    if live >= quota { return .refused(.quotaExceeded) }
                }
            }
            let rows = try connection.query(
                """
                UPDATE timerd_timers
                SET state = 'running', live = true, step = 0,
                    due_at = $3::timestamptz + make_interval(secs => segments_ns[1] / 1e9),
                    remaining_ns = NULL, ended_at = NULL, started_at = $3::timestamptz, action_state = NULL,
                    beat_count = 0, last_beat_at = NULL, fence = fence + 1, claim_until = NULL, claimed_by = NULL, version = version + 1,
                    updated_at = now()
                WHERE id = $1 AND fence = $2
                RETURNING fence
                """, [String(id), String(row.fence), row.now])
            guard let fence = rows.int64(0, 0) else { return .refused(.notFound) }
            try Self.insertEvent(id: id, kind: "restarted", fence: fence, hostID: hostID, at: row.now, connection)
            return .applied(AppliedEdit(fence: fence))
        }
    }

    /// Re-arms a running or paused heartbeat timer of `owner` to its whole duration from now
    /// (`TimerEngine.beat`'s rule): due one duration after the transaction's instant, a paused one
    /// running again; its `beat_count` goes up by one and `last_beat_at` becomes that instant;
    /// `started_at` and the action stay. The fence moves on and any claim is cleared (a completion
    /// another host took on the old deadline is refused); the `beat` outbox row is written in the
    /// same transaction.
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - owner: the requester's uid (`nil`: any owner, for root).
    /// - Returns: what was written; refused with ``EditRefusal/notFound``,
    ///   ``EditRefusal/notAHeartbeat``, ``EditRefusal/wrongState(_:)`` (finished or stopped: its
    ///   alert has run, or it was stopped) or ``EditRefusal/beatTooLate(end:)`` (a running one whose
    ///   deadline has passed: it is due, and a host's next claim finishes it), checked in that order
    ///   as on one host.
    /// - Throws: ``PostgresError``; nothing is written then.
    public func beat(id: Int64, owner: UInt32?) throws(PostgresError) -> EditOutcome {
        let hostID = self.hostID
        return try connection.transaction { connection throws(PostgresError) in
            guard let row = try Self.lockRow(id: id, owner: owner, connection) else { return .refused(.notFound) }
            guard row.isHeartbeat else { return .refused(.notAHeartbeat) }
            guard row.state == "running" || row.state == "paused" else { return .refused(.wrongState(row.state)) }
            if row.isDue { return .refused(.beatTooLate(end: row.dueAt ?? row.now)) }
            let rows = try connection.query(
                """
                UPDATE timerd_timers
                SET state = 'running',
                    due_at = $3::timestamptz + make_interval(secs => segments_ns[step + 1] / 1e9),
                    remaining_ns = NULL, beat_count = beat_count + 1, last_beat_at = $3::timestamptz,
                    fence = fence + 1, claim_until = NULL, claimed_by = NULL, version = version + 1,
                    updated_at = now()
                WHERE id = $1 AND fence = $2 AND state IN ('running', 'paused')
                RETURNING fence
                """, [String(id), String(row.fence), row.now])
            guard let fence = rows.int64(0, 0) else { return .refused(.notFound) }
            try Self.insertEvent(id: id, kind: "beat", fence: fence, hostID: hostID, at: row.now, connection)
            return .applied(AppliedEdit(fence: fence))
        }
    }

    /// Gives a timer of `owner` a new name (`TimerEngine.rename`'s rule): unique among the
    /// owner's live timers; an ended timer may be renamed too. The fence and any claim stay (no
    /// deadline moves); the `renamed` outbox row carries the previous name (`{"from": …}`).
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - owner: the requester's uid (`nil`: any owner, for root).
    ///   - name: the new name, already valid and in NFC.
    /// - Returns: what was written; refused with ``EditRefusal/notFound`` or
    ///   ``EditRefusal/nameInUse(holder:)``.
    /// - Throws: ``PostgresError``; a live timer given the name by another host meanwhile is
    ///   ``PostgresError/constraint(sqlState:constraint:message:)`` on `timerd_timers_live_name`.
    public func rename(id: Int64, owner: UInt32?, to name: String) throws(PostgresError) -> EditOutcome {
        let hostID = self.hostID
        return try connection.transaction { connection throws(PostgresError) in
            guard let row = try Self.lockRow(id: id, owner: owner, connection) else { return .refused(.notFound) }
            if row.isLive, let holder = try Self.liveHolder(of: name, owner: row.owner, except: id, connection) {
                return .refused(.nameInUse(holder: holder))
            }
            let rows = try connection.query(
                """
                WITH old AS (SELECT id, name FROM timerd_timers WHERE id = $1 AND fence = $2)
                UPDATE timerd_timers t SET name = $3, version = t.version + 1, updated_at = now()
                FROM old WHERE t.id = old.id
                RETURNING t.fence, jsonb_build_object('from', old.name)::text
                """, [String(id), String(row.fence), name])
            guard let fence = rows.int64(0, 0) else { return .refused(.notFound) }
            try Self.insertEvent(
                id: id, kind: "renamed", fence: fence, hostID: hostID, at: row.now, detail: rows.value(0, 1), connection
            )
            return .applied(AppliedEdit(fence: fence))
        }
    }

    // MARK: - Internals

    /// The id of the live timer of `owner` named `name` other than `id`, if any.
    private static func liveHolder(of name: String, owner: Int64, except id: Int64, _ connection: PostgresConnection)
        throws(PostgresError) -> Int64?
    {
        try connection.query(
            "SELECT id FROM timerd_timers WHERE owner = $1 AND name = $2 AND live AND id <> $3 LIMIT 1",
            [String(owner), name, String(id)]
        ).int64(0, 0)
    }

    /// `{"by": seconds}`: the `by` member of an `extended` notification, seconds as applied, the
    /// engine's `Double(nanoseconds) / 1e9` in Swift's shortest form that reads back to the same
    /// `Double` (a JSON number: the figure is finite).
    static func extendedDetail(_ nanoseconds: Int64) -> String {
        "{\"by\":\(Double(nanoseconds) / 1e9)}"
    }

    /// One outbox row of an edit, at the edit's instant.
    private static func insertEvent(
        id: Int64, kind: String, fence: Int64, hostID: String, at now: String, detail: String? = nil,
        _ connection: PostgresConnection
    ) throws(PostgresError) {
        try connection.query(
            """
            INSERT INTO timerd_events (timer_id, kind, fence, host_id, at, detail)
            VALUES ($1, $2, $3, $4, $5::timestamptz, $6::jsonb)
            """, [String(id), kind, String(fence), hostID, now, detail])
    }

    /// Ends the locked row's current step at the edit's instant, in the form of a completion
    /// (``completeBatch(_:actionLeaseSeconds:)``): the next step armed (due a step length from
    /// now while running, its whole length kept while paused), or the timer finished with its
    /// on-finish action queued under this host's claim; the fence moved on and any other claim
    /// cleared. With `extendedBy`, an `extended` row with that amount comes before the `step` or
    /// `finished` row, under the same fence.
    ///
    /// - Returns: the edit, or `nil` when the row changed since the lock (it cannot: the lock holds).
    private static func endStep(
        id: Int64, _ row: LockedRow, extendedBy: Int64?, hostID: String, actionLeaseSeconds: Double,
        _ connection: PostgresConnection
    ) throws(PostgresError) -> AppliedEdit? {
        let rows = try connection.query(
            """
            UPDATE timerd_timers t
            SET step = CASE WHEN t.step + 1 < t.steps THEN t.step + 1 ELSE t.step END,
                state = CASE WHEN t.step + 1 < t.steps THEN t.state ELSE 'finished' END,
                live = t.step + 1 < t.steps,
                due_at = CASE WHEN t.step + 1 < t.steps AND t.state = 'running'
                    THEN $3::timestamptz + make_interval(secs => t.segments_ns[t.step + 2] / 1e9) END,
                remaining_ns = CASE WHEN t.step + 1 < t.steps AND t.state = 'paused'
                    THEN t.segments_ns[t.step + 2] END,
                ended_at = CASE WHEN t.step + 1 < t.steps THEN NULL ELSE $3::timestamptz END,
                action_state = CASE WHEN t.step + 1 >= t.steps AND t.action IS NOT NULL THEN 'pending' END,
                claim_until = CASE WHEN t.step + 1 >= t.steps AND t.action IS NOT NULL
                    THEN clock_timestamp() + make_interval(secs => $5::double precision) END,
                claimed_by = CASE WHEN t.step + 1 >= t.steps AND t.action IS NOT NULL THEN $4 END,
                fence = t.fence + 1, version = t.version + 1, updated_at = now()
            WHERE t.id = $1 AND t.fence = $2 AND t.state IN ('running', 'paused')
            RETURNING t.fence, t.state, t.step, t.owner, t.name, t.action, (SELECT sum(s) FROM unnest(t.segments_ns) s)
            """, [String(id), String(row.fence), row.now, hostID, String(actionLeaseSeconds)])
        guard let fence = rows.int64(0, 0) else { return nil }
        if let extendedBy {
            try insertEvent(
                id: id, kind: "extended", fence: fence, hostID: hostID, at: row.now,
                detail: extendedDetail(extendedBy), connection)
        }
        let isFinished = rows.value(0, 1) == "finished"
        // `due_at` is the deadline the step met: the instant it was ended.
        try connection.query(
            """
            INSERT INTO timerd_events (timer_id, kind, fence, host_id, at, due_at)
            VALUES ($1, $2, $3, $4, $5::timestamptz, $5::timestamptz)
            """, [String(id), isFinished ? "finished" : "step", String(fence), hostID, row.now])
        guard isFinished else {
            return AppliedEdit(fence: fence, stepEnd: .nextStep(Int(rows.int64(0, 2) ?? 0)))
        }
        let finished = FinishedTimer(
            owner: UInt32(clamping: rows.int64(0, 3) ?? 0), name: rows.value(0, 4),
            totalNanoseconds: rows.int64(0, 6) ?? 0, action: rows.value(0, 5))
        return AppliedEdit(fence: fence, stepEnd: .finished, finished: finished.action == nil ? nil : finished)
    }
}
