import Countdown
import Foundation

/// Recurring timers in shared mode (schema version 7): a series is one row whose `due_at` is its
/// next firing on the database clock; the host that claims it rings the elapse and re-arms the
/// next one in one transaction under the claim's fence, so each elapse rings once across hosts
/// (docs/multihost.md, "Recurring timers").
extension PostgresTimerQueue {
    /// What one firing of a recurring timer wrote.
    public struct RecurringFiring: Sendable, Equatable {
        /// The firing as the engine's rules decided it on the database clock.
        public var ring: TimerEngine.WallClockRing
        /// What its action needs: owner, name, the length of the period that ended (`TIMER_DURATION`)
        /// and the stored action.
        public var timer: FinishedTimer
        /// The run of the series' group this firing started (schema version 8), or `nil`: no group,
        /// nothing rang, or the overlap rule started none.
        public var run: Int64?
    }

    /// What a series' elapse does with its group (`SeriesGroup`), in the firing's transaction with
    /// the series' row locked: with no live run, starts one (`timerd_start_series_run`); while one
    /// runs, by `overlap`: `skip` counts a skipped elapse, `queue` marks one run to wait (a second
    /// elapse meanwhile counts as skipped), `restart` lets go of the run, stops it (fence + 1,
    /// `stopped` outbox row) and starts a new one.
    ///
    /// - Parameters:
    ///   - series: the series' id.
    ///   - overlap: its rule.
    ///   - current: its run (`sg_run`), or `nil`.
    ///   - currentIsLive: whether that run is live.
    ///   - host: the firing host.
    ///   - connection: the connection inside the firing's transaction.
    /// - Returns: the run started, or `nil` when none was.
    /// - Throws: ``PostgresError``.
    static func startRun(
        of series: Int64, overlap: SeriesGroup.Overlap, current: Int64?, currentIsLive: Bool, host: String,
        on connection: PostgresConnection
    ) throws(PostgresError) -> Int64? {
        if let current, currentIsLive {
            switch overlap {
            case .skip:
                try connection.query(
                    "UPDATE timerd_timers SET sg_skipped_count = sg_skipped_count + 1 WHERE id = $1", [String(series)])
                return nil
            case .queue:
                try connection.query(
                    """
                    UPDATE timerd_timers
                    SET sg_skipped_count = sg_skipped_count + CASE WHEN sg_queued THEN 1 ELSE 0 END, sg_queued = true
                    WHERE id = $1
                    """, [String(series)])
                return nil
            case .restart:
                // The series lets go of its run first, so that the run's end starts nothing queued.
                try connection.query(
                    "UPDATE timerd_timers SET sg_run = NULL, sg_queued = false WHERE id = $1", [String(series)])
                try connection.query(
                    """
                    WITH stopped AS (
                        UPDATE timerd_timers
                        SET state = 'stopped', live = false, due_at = NULL, ended_at = clock_timestamp(),
                            remaining_ns = CASE WHEN state = 'running'
                                THEN greatest(0, (extract(epoch FROM due_at - now()) * 1e9)::bigint)
                                ELSE remaining_ns END,
                            fence = fence + 1, claim_until = NULL, claimed_by = NULL, version = version + 1,
                            updated_at = now()
                        WHERE id = $1 AND live
                        RETURNING id, fence
                    )
                    INSERT INTO timerd_events (timer_id, kind, fence, host_id) SELECT id, 'stopped', fence, $2 FROM stopped
                    """, [String(current), host])
            }
        }
        return try connection.query("SELECT timerd_start_series_run($1, $2)", [String(series), host]).int64(0, 0)
    }

    /// The recurrence columns of version 7 as one statement's parameters `$first` …: kind,
    /// expression, period, zone, follows, skip-missed, randomized delay, next elapse, last elapse,
    /// elapse count, last missed.
    static func recurrenceParameters(_ recurrence: TimerRecurrence) -> [String?] {
        var kind = "every"
        var expression: String?
        var every: String?
        var zone: String?
        var follows = false
        switch recurrence.rule {
        case .calendar(let text, let name, let followsSystemZone):
            (kind, expression, zone, follows) = ("calendar", text, name, followsSystemZone)
        case .every(let seconds):
            every = String(seconds)
        }
        return [
            kind, expression, every, zone, follows ? "t" : "f", recurrence.skipMissed ? "t" : "f",
            String(recurrence.randomizedDelay), recurrence.nextElapse.map { String($0.timeIntervalSince1970) },
            recurrence.lastElapse.map { String($0.timeIntervalSince1970) }, String(recurrence.elapseCount),
            String(recurrence.lastMissed),
        ]
    }

    /// The `SET` list writing the recurrence columns from parameters `$n` … `$n+10`
    /// (``recurrenceParameters(_:)``).
    static func recurrenceAssignments(from n: Int) -> String {
        """
        recurrence = $\(n), rec_expression = $\(n + 1), rec_every_s = $\(n + 2)::double precision,
        rec_zone = $\(n + 3), rec_follows_zone = $\(n + 4)::boolean, rec_skip_missed = $\(n + 5)::boolean,
        rec_randomized_delay_s = $\(n + 6)::double precision,
        rec_next_elapse = to_timestamp($\(n + 7)::double precision),
        rec_last_elapse = to_timestamp($\(n + 8)::double precision), rec_elapse_count = $\(n + 9)::bigint,
        rec_last_missed = $\(n + 10)::integer
        """
    }

    /// Starts a recurring timer: in one transaction, the row as ``start(owner:name:segmentsNanoseconds:action:dueAt:heartbeat:)``
    /// writes it, then its series as `arm` makes it for the id the row got (the randomized delay is
    /// derived from the id), due at its first firing.
    ///
    /// - Parameters:
    ///   - owner: the uid that owns it.
    ///   - name: its name, unique among the owner's live timers, or `nil`.
    ///   - action: its action run at each elapse (JSON), or `nil`.
    ///   - createdAt: the instant the series was computed from (seconds since 1970, database clock):
    ///     the row's `created_at`, so that `createdAt` and the first elapse agree as on one host.
    ///   - provisionalRingAt: a first firing (seconds since 1970) to insert the row with; `arm` replaces it.
    ///   - group: the group each elapse starts (schema version 8), or `nil`.
    ///   - arm: the series, its first firing (seconds since 1970, database clock) and the first
    ///     period's length (nanoseconds, ≥ 1) for the new id.
    /// - Returns: the store-assigned id.
    /// - Throws: ``PostgresError``; a taken name as for a one-shot start.
    @discardableResult
    public func startRecurring(
        owner: UInt32, name: String?, action: String?, createdAt: Double, provisionalRingAt: Double,
        group: SeriesGroup? = nil,
        arm: (Int64) -> (recurrence: TimerRecurrence, ringAt: Double, periodNanoseconds: Int64)
    ) throws(PostgresError) -> Int64 {
        try connection.transaction { connection throws(PostgresError) in
            let id = try start(
                owner: owner, name: name, segmentsNanoseconds: [1], action: action, dueAt: provisionalRingAt)
            let (recurrence, ringAt, period) = arm(id)
            try connection.query(
                """
                UPDATE timerd_timers
                SET due_at = to_timestamp($2::double precision), segments_ns = ARRAY[$3::bigint],
                    created_at = to_timestamp($15::double precision), \(Self.recurrenceAssignments(from: 4))
                WHERE id = $1
                """,
                [String(id), String(ringAt), String(max(1, period))] + Self.recurrenceParameters(recurrence)
                    + [String(createdAt)])
            if let group {
                try connection.query(
                    """
                    UPDATE timerd_timers
                    SET sg_durations_s = $2::double precision[], sg_segments_ns = $3::bigint[], sg_overlap = $4
                    WHERE id = $1
                    """,
                    [
                        String(id), "{" + group.durations.map { String($0) }.joined(separator: ",") + "}",
                        "{" + Self.segments(group.durations).map(String.init).joined(separator: ",") + "}",
                        group.overlap.rawValue,
                    ])
            }
            return id
        }
    }

    /// A run's step lengths in nanoseconds for `durations` in seconds, as a group's start rounds them
    /// (each ≥ 1).
    static func segments(_ durations: [Double]) -> [Int64] {
        durations.map { max(1, Int64(($0 * 1e9).rounded())) }
    }

    /// The columns a firing or a resume reads of a locked recurring row (after ``rowColumns``' own
    /// recurrence columns): the deadline, the transaction's instant, owner, name, action and the
    /// length of the current period.
    private static let firingColumns = """
        extract(epoch FROM t.due_at), extract(epoch FROM clock_timestamp()), t.owner, t.name, t.action,
        t.segments_ns[1]
        """

    /// Fires a recurring timer this host claimed: in one transaction, the row locked under the
    /// claim's fence, the engine's rules (`TimerEngine.ringOnWallClock(_:id:scheduled:wall:)`)
    /// applied at the database clock's now, then the series moved on and re-armed at its next firing
    /// (the claim released), or ended (`finished`) when the rule never elapses again; the `elapsed`
    /// outbox row (`{"missed": N}`, dated at the nominal elapse, under the claim's fence) when it
    /// rang, the `finished` row when it ended.
    ///
    /// - Parameter claim: a claim of this host on a recurring timer.
    /// - Returns: what the firing wrote, or `nil` when the claim's fence is no longer current (the
    ///   lease ran out and another host claimed it, or it was paused or stopped): nothing was written.
    /// - Throws: ``PostgresError``; nothing is written then.
    public func completeRecurring(_ claim: Claim) throws(PostgresError) -> RecurringFiring? {
        let hostID = self.hostID
        return try connection.transaction { connection throws(PostgresError) in
            let rows = try connection.query(
                """
                SELECT t.recurrence, t.rec_expression, t.rec_every_s, t.rec_zone, t.rec_follows_zone,
                    t.rec_skip_missed, t.rec_randomized_delay_s, extract(epoch FROM t.rec_next_elapse),
                    extract(epoch FROM t.rec_last_elapse), t.rec_elapse_count, t.rec_last_missed,
                    \(Self.firingColumns), t.sg_overlap, t.sg_run,
                    (SELECT r.live FROM timerd_timers r WHERE r.id = t.sg_run)
                FROM timerd_timers t
                WHERE t.id = $1 AND t.fence = $2 AND t.claimed_by = $3 AND t.state = 'running'
                FOR UPDATE
                """, [String(claim.id), String(claim.fence), hostID])
            guard let recurrence = Self.recurrence(rows, 0, from: 0), let scheduled = Double(rows.value(0, 11) ?? ""),
                let now = Double(rows.value(0, 12) ?? "")
            else { return nil }
            let wall = Date(timeIntervalSince1970: now)
            let ring = TimerEngine.ringOnWallClock(
                recurrence, id: UInt64(claim.id), scheduled: Date(timeIntervalSince1970: scheduled), wall: wall)
            let series = Self.recurrenceParameters(ring.recurrence)
            if let ringAt = ring.ringAt {
                // The new period runs from the latest elapse rung (as the engine rebases it) to the next firing.
                let from = ring.missed != nil ? min(now, ring.recurrence.lastElapse?.timeIntervalSince1970 ?? now) : now
                let period = max(1, Int64(((ringAt.timeIntervalSince1970 - from) * 1e9).rounded()))
                try connection.query(
                    """
                    UPDATE timerd_timers
                    SET due_at = to_timestamp($2::double precision), segments_ns = ARRAY[$3::bigint], step = 0,
                        claimed_by = NULL, claim_until = NULL, version = version + 1, updated_at = now(),
                        \(Self.recurrenceAssignments(from: 4))
                    WHERE id = $1
                    """, [String(claim.id), String(ringAt.timeIntervalSince1970), String(period)] + series)
            } else {
                try connection.query(
                    """
                    UPDATE timerd_timers
                    SET state = 'finished', live = false, due_at = NULL, ended_at = clock_timestamp(),
                        claimed_by = NULL, claim_until = NULL, version = version + 1, updated_at = now(),
                        \(Self.recurrenceAssignments(from: 2))
                    WHERE id = $1
                    """, [String(claim.id)] + series)
            }
            if let missed = ring.missed {
                try connection.query(
                    """
                    INSERT INTO timerd_events (timer_id, kind, fence, host_id, at, due_at, rescue, detail)
                    VALUES ($1, 'elapsed', $2, $3, to_timestamp($4::double precision),
                        to_timestamp($5::double precision), $6::boolean, jsonb_build_object('missed', $7::integer))
                    """,
                    [
                        String(claim.id), String(claim.fence), hostID,
                        String(ring.recurrence.lastElapse?.timeIntervalSince1970 ?? now), String(scheduled),
                        claim.isRescue ? "t" : "f", String(missed),
                    ])
            }
            var run: Int64?
            if ring.missed != nil, let overlap = rows.value(0, 17).flatMap(SeriesGroup.Overlap.init(rawValue:)) {
                run = try Self.startRun(
                    of: claim.id, overlap: overlap, current: rows.int64(0, 18), currentIsLive: rows.value(0, 19) == "t",
                    host: hostID, on: connection)
            }
            if ring.ringAt == nil {
                try connection.query(
                    """
                    INSERT INTO timerd_events (timer_id, kind, fence, host_id, at, due_at, rescue)
                    VALUES ($1, 'finished', $2, $3, clock_timestamp(), to_timestamp($4::double precision), $5::boolean)
                    """, [String(claim.id), String(claim.fence), hostID, String(scheduled), claim.isRescue ? "t" : "f"])
            }
            return RecurringFiring(
                ring: ring,
                timer: FinishedTimer(
                    owner: UInt32(clamping: rows.int64(0, 13) ?? 0), name: rows.value(0, 14),
                    totalNanoseconds: rows.int64(0, 16) ?? 0, action: rows.value(0, 15)),
                run: run)
        }
    }

    /// Resumes a paused calendar timer of `owner` from any host, as the engine resumes one
    /// (`TimerEngine.resumeOnWallClock(_:id:wall:)`): the series goes on at the first elapse after
    /// the database clock's now (those that passed while paused do not ring), or ends (`finished`)
    /// when the rule never elapses again; fence + 1, `resumed` (or `finished`) outbox row.
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - owner: the requester's uid (`nil`: any owner, for root).
    /// - Returns: whether a paused calendar timer of `owner` with that id was resumed (or ended).
    /// - Throws: ``PostgresError``.
    public func resumeCalendar(id: Int64, owner: UInt32?) throws(PostgresError) -> Bool {
        let hostID = self.hostID
        return try connection.transaction { connection throws(PostgresError) in
            let rows = try connection.query(
                """
                SELECT t.recurrence, t.rec_expression, t.rec_every_s, t.rec_zone, t.rec_follows_zone,
                    t.rec_skip_missed, t.rec_randomized_delay_s, extract(epoch FROM t.rec_next_elapse),
                    extract(epoch FROM t.rec_last_elapse), t.rec_elapse_count, t.rec_last_missed,
                    \(Self.firingColumns)
                FROM timerd_timers t
                WHERE t.id = $1 AND ($2::bigint IS NULL OR t.owner = $2) AND t.state = 'paused'
                    AND t.recurrence = 'calendar'
                FOR UPDATE
                """, [String(id), owner.map { String($0) }])
            guard let recurrence = Self.recurrence(rows, 0, from: 0), let now = Double(rows.value(0, 12) ?? "") else {
                return false
            }
            let kind: String
            if let (series, ringAt) = TimerEngine.resumeOnWallClock(
                recurrence, id: UInt64(id), wall: Date(timeIntervalSince1970: now))
            {
                let from = min(now, series.lastElapse?.timeIntervalSince1970 ?? now)
                let period = max(1, Int64(((ringAt.timeIntervalSince1970 - from) * 1e9).rounded()))
                try connection.query(
                    """
                    UPDATE timerd_timers
                    SET state = 'running', due_at = to_timestamp($2::double precision), remaining_ns = NULL,
                        segments_ns = ARRAY[$3::bigint], step = 0, fence = fence + 1, claimed_by = NULL,
                        claim_until = NULL, version = version + 1, updated_at = now(),
                        \(Self.recurrenceAssignments(from: 4))
                    WHERE id = $1
                    """,
                    [String(id), String(ringAt.timeIntervalSince1970), String(period)]
                        + Self.recurrenceParameters(series))
                kind = "resumed"
            } else {
                try connection.query(
                    """
                    UPDATE timerd_timers
                    SET state = 'finished', live = false, due_at = NULL, remaining_ns = NULL,
                        ended_at = clock_timestamp(), rec_next_elapse = NULL, fence = fence + 1, claimed_by = NULL,
                        claim_until = NULL, version = version + 1, updated_at = now()
                    WHERE id = $1
                    """, [String(id)])
                kind = "finished"
            }
            try connection.query(
                """
                INSERT INTO timerd_events (timer_id, kind, fence, host_id)
                SELECT id, $2, fence, $3 FROM timerd_timers WHERE id = $1
                """, [String(id), kind, hostID])
            return true
        }
    }
}
