/// The reads of a streamed `timer.list` in shared mode: the ids first, then the rows a part at a
/// time, so that a listing of any size never sits whole in the host's memory.
extension PostgresTimerQueue {
    /// The ids of the timers `owner` may see, ascending: the live ones, and with `includeEnded`
    /// the ended ones too (the rows ``timers(owner:includeEnded:)`` reads).
    ///
    /// - Parameters:
    ///   - owner: the requester's uid; `nil` sees every owner's (root).
    ///   - includeEnded: whether finished and stopped timers are listed.
    /// - Returns: the ids.
    /// - Throws: ``PostgresError``.
    /// - Complexity: one round trip; O(n) ids.
    public func timerIDs(owner: UInt32?, includeEnded: Bool) throws(PostgresError) -> [Int64] {
        let rows = try connection.query(
            """
            SELECT t.id FROM timerd_timers t
            WHERE ($1::bigint IS NULL OR t.owner = $1) AND t.segments_ns IS NOT NULL AND ($2 OR t.live)
            ORDER BY t.id
            """, [owner.map { String($0) }, includeEnded ? "t" : "f"])
        return rows.rows.indices.compactMap { rows.int64($0, 0) }
    }

    /// The timers from `id` on, ascending, at most `limit`, of every owner: the next rows of a
    /// listing whose ids were read (and whose owner filter applied) by ``timerIDs(owner:includeEnded:)``.
    ///
    /// - Parameters:
    ///   - id: the first id wanted.
    ///   - limit: the most rows, ≥ 1.
    /// - Returns: the rows, each as of this read's one database instant.
    /// - Throws: ``PostgresError``.
    public func timers(fromID id: Int64, limit: Int) throws(PostgresError) -> [SharedTimerRow] {
        let rows = try connection.query(
            """
            SELECT \(Self.rowColumns) FROM timerd_timers t, (SELECT clock_timestamp() AS now) c
            WHERE t.id >= $1 AND t.segments_ns IS NOT NULL
            ORDER BY t.id LIMIT $2
            """, [String(id), String(max(1, limit))])
        return rows.rows.indices.compactMap { Self.timerRow(rows, $0) }
    }
}
