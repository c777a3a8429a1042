import Countdown
import TimerPostgres

extension SharedHost {
    /// The figures of the daemon's metrics in shared mode: the live timers of the whole schema
    /// (every host's, every owner's) counted in the database, this host's own counters (its
    /// starts, stops and completions, claims, rescues, lost fences, round trips), and, when
    /// `includingTimers`, the named running timers' next elapses (`due_at`: for a group, the end
    /// of its current step). A database error leaves the counts out (logged by ``withQueue(_:)``).
    ///
    /// - Parameter includingTimers: also read the named running timers.
    /// - Returns: the figures.
    /// - Complexity: one or two database round trips.
    func metricFigures(includingTimers: Bool) -> BackendFigures {
        var result = BackendFigures()
        if let rows = try? withQueue({ queue throws(PostgresError) in
            try queue.connection.query(
                """
                SELECT count(*) FILTER (WHERE live), count(*) FILTER (WHERE live AND state = 'running')
                FROM timerd_timers WHERE segments_ns IS NOT NULL
                """)
        }) {
            let live = Int(rows.int64(0, 0) ?? 0)
            let running = Int(rows.int64(0, 1) ?? 0)
            result.timersByState = (running, max(0, live - running))
        }
        result.timerCounts = figures.timerCounts
        result.lateness = figures.lateness.histogram
        result.shared = MetricsReport.SharedFigures(
            claims: figures.claims, leaseRescues: figures.rescues, fencesLost: figures.fencesLost,
            roundTrips: figures.roundTrips.histogram)
        if includingTimers,
            let rows = try? withQueue({ queue throws(PostgresError) in
                try queue.connection.query(
                    """
                    SELECT owner, name, extract(epoch FROM due_at) FROM timerd_timers
                    WHERE live AND state = 'running' AND name IS NOT NULL AND due_at IS NOT NULL
                      AND segments_ns IS NOT NULL
                    ORDER BY id
                    """)
            })
        {
            result.timerElapses = rows.rows.indices.compactMap { row in
                guard let owner = rows.int64(row, 0).flatMap(UInt32.init(exactly:)), let name = rows.value(row, 1),
                    let due = rows.value(row, 2).flatMap(Double.init)
                else { return nil }
                return MetricsReport.TimerElapse(owner: owner, name: name, nextElapse: due)
            }
        }
        return result
    }
}
