import Countdown
import TimerStorage

extension PostgresStore {
    /// A batched statement broke the live-name index: which record did is found by running the
    /// commit again one record at a time (rare: a name refused).
    struct BatchNameConflict: Error {}

    /// Inserts or updates `records` in one statement (rows from `unnest` of one array parameter per
    /// column), then writes their outbox rows in one more: two round trips for any number of
    /// timers, where one statement per timer took two each (Benchmarks/run: 902 → see
    /// docs/performance.md).
    ///
    /// - Parameters:
    ///   - records: the rows; at most one per id.
    ///   - connection: inside the commit's transaction.
    /// - Throws: ``BatchNameConflict`` for a taken name, else `PostgresError`.
    /// - Complexity: O(k) in the records, two round trips.
    func upsertBatch(_ records: [TimerRecord], _ connection: PostgresConnection) throws {
        guard !records.isEmpty else { return }
        let rows = records.map { Self.parameters(of: $0, hostID: hostID) }
        let columns = (0..<12).map { index in Self.arrayLiteral(rows.map { $0[index] }) }
        var result = PostgresRows(columns: [], rows: [], affected: 0)
        do {
            result = try connection.query(
                """
                INSERT INTO timerd_timers (id, owner, name, live, state, due_at, remaining_ns, step, steps, fence,
                    written_by, record, segments_ns)
                SELECT r.id, r.owner, r.name, r.live, r.state, to_timestamp(r.due), r.remaining, r.step, r.steps,
                    CASE WHEN r.state = 'running' THEN 1 ELSE 0 END, $13, r.record, r.segments::bigint[]
                FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::boolean[], $5::text[],
                    $6::double precision[], $7::bigint[], $8::integer[], $9::integer[], $10::bytea[], $11::text[],
                    $12::integer[])
                    AS r(id, owner, name, live, state, due, remaining, step, steps, record, segments, position)
                ORDER BY r.position
                ON CONFLICT (id) DO UPDATE SET
                    owner = EXCLUDED.owner, name = EXCLUDED.name, live = EXCLUDED.live, state = EXCLUDED.state,
                    due_at = EXCLUDED.due_at, remaining_ns = EXCLUDED.remaining_ns, step = EXCLUDED.step,
                    steps = EXCLUDED.steps, version = timerd_timers.version + 1,
                    fence = timerd_timers.fence
                        + CASE WHEN EXCLUDED.state = 'running' AND timerd_timers.state <> 'running' THEN 1 ELSE 0 END,
                    written_by = EXCLUDED.written_by, record = EXCLUDED.record, segments_ns = EXCLUDED.segments_ns,
                    updated_at = now()
                RETURNING id, fence
                """,
                [
                    columns[0], columns[1], columns[2], columns[3], columns[4], columns[5], columns[6], columns[7],
                    columns[8], columns[10], columns[11], Self.arrayLiteral(rows.indices.map { String($0) }), hostID,
                ])
        } catch {
            if case .constraint(let sqlState, let constraint, _) = error, sqlState == "23505",
                constraint == "timerd_timers_live_name"
            {
                throw BatchNameConflict()
            }
            throw error
        }
        var fences: [UInt64: String] = [:]
        for row in result.rows.indices {
            if let id = result.value(row, 0).flatMap(UInt64.init), let fence = result.value(row, 1) {
                fences[id] = fence
            }
        }
        var ids: [String?] = []
        var kinds: [String?] = []
        var eventFences: [String?] = []
        for record in records {
            guard let kind = Self.eventKind(from: durable[record.id]?.state, to: record.state) else { continue }
            ids.append(String(record.id))
            kinds.append(kind)
            eventFences.append(fences[record.id] ?? "0")
        }
        guard !ids.isEmpty else { return }
        try connection.query(
            """
            INSERT INTO timerd_events (timer_id, kind, fence, host_id)
            SELECT e.id, e.kind, e.fence, $4 FROM unnest($1::bigint[], $2::text[], $3::bigint[]) AS e(id, kind, fence)
            """, [Self.arrayLiteral(ids), Self.arrayLiteral(kinds), Self.arrayLiteral(eventFences), hostID])
    }

    /// An array literal in PostgreSQL's text input form (documentation 8.15.2): every element
    /// double-quoted with `\` and `"` escaped, `NULL` for `nil`.
    ///
    /// - Parameter values: the elements, each in its type's text form.
    /// - Returns: `{"a","b\"c",NULL}`.
    /// - Complexity: O(n) in the text.
    static func arrayLiteral(_ values: [String?]) -> String {
        var text = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            guard let value else {
                text += "NULL"
                continue
            }
            text += "\""
            for character in value {
                if character == "\\" || character == "\"" { text += "\\" }
                text.append(character)
            }
            text += "\""
        }
        return text + "}"
    }
}
