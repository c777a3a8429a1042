import Countdown
import TimerModel
import TimerPostgres
import TimerProtocol
import TimerService

// Group commit of the starts of one loop turn. A start due one first step from now is held until
// the turn's end or the host's next statement, and one statement writes all that were held
// (`PostgresTimerQueue.startMany`): one round trip and, in autocommit, one WAL flush acknowledge
// them all, as one host's journal commits a turn's changes together. A start at an instant shares
// one transaction with the turn's later starts, so one COMMIT acknowledges them.

/// A start held for the turn's one statement (``SharedHost/flushPendingStarts()``).
struct PendingStart {
    /// What to write.
    var start: SharedStart
    /// The request's waiter: the key of its reply in ``SharedHost/deferredReplies``.
    var waiter: WaiterID
    /// The request's id, for its reply.
    var requestID: RPCID?
    /// The steps' lengths in seconds, for the log line.
    var durations: [Double]
}

extension SharedHost {
    /// Where the turn's shared transaction of starts is (``withStartBatch(_:)``).
    enum StartBatch: Equatable {
        /// No start ran in this turn yet.
        case idle
        /// `BEGIN` was sent; `count` starts are in the transaction, their replies held by the daemon
        /// until it commits.
        case open(count: Int)
        /// The transaction committed (before a statement of another kind, or at the turn's end);
        /// later starts of the turn commit one statement each.
        case committed
        /// The transaction was rolled back after some of its starts ran (`reason`): their held
        /// replies become errors, and later starts of the turn are refused unexecuted, so that no
        /// reply of the turn says "started" for a timer that is not there.
        case failed(reason: String)
        /// The connection broke during `COMMIT`: whether it committed is unknown.
        case lost
    }

    /// Runs one statement of a start inside the turn's shared transaction, opening it with `BEGIN`
    /// at the turn's first start.
    ///
    /// A statement that fails aborts the transaction: it is rolled back, and the starts already in
    /// it are refused at the turn's commit (``takeStartBatchVerdict()``); when it held none, the
    /// next start opens a new one.
    ///
    /// - Parameter body: the statement, on the host's connection.
    /// - Returns: what `body` returned.
    /// - Throws: ``PostgresError`` from `body` or from `BEGIN`; an `RPCError` (`-32603`) when the
    ///   turn's transaction already failed.
    func withStartBatch<T>(_ body: (PostgresTimerQueue) throws(PostgresError) -> T) throws -> T {
        switch startBatch {
        case .failed(let reason):
            throw RPCError(.internalError, "state could not be saved: \(reason)")
        case .lost:
            throw RPCError(
                .internalError, "state could not be saved: the database connection broke while committing")
        case .committed:
            return try withQueue(body)
        case .idle:
            _ = try withQueue { queue throws(PostgresError) in try queue.connection.execute("BEGIN") }
            startBatch = .open(count: 0)
        case .open:
            break
        }
        isInStartBatch = true
        defer { isInStartBatch = false }
        do {
            return try withQueue(body)
        } catch {
            if let queue, queue.connection.isConnected { _ = try? queue.connection.execute("ROLLBACK") }
            if case .open(let count) = startBatch {
                startBatch = count == 0 ? .idle : .failed(reason: "\(error)")
            }
            throw error
        }
    }

    /// Counts a start that ran in the open transaction (its reply waits for the commit).
    func noteBatchedStart() {
        if case .open(let count) = startBatch { startBatch = .open(count: count + 1) }
    }

    /// Commits the open transaction of starts, if any: before a statement that is not a start
    /// (so that it reads the starts and runs outside their transaction), and at the turn's end.
    func settleStartBatch() {
        guard case .open(let count) = startBatch else { return }
        guard let queue, queue.connection.isConnected else {
            // The connection broke before COMMIT was sent: the server rolled the transaction back.
            startBatch = count == 0 ? .idle : .failed(reason: "database unavailable (\(lastFailure))")
            return
        }
        do {
            _ = try queue.connection.execute("COMMIT")
            startBatch = .committed
        } catch {
            if case .unavailable(let message) = error {
                dropConnection(message)
                startBatch = count == 0 ? .idle : .lost
            } else {
                startBatch = count == 0 ? .idle : .failed(reason: "\(error)")
            }
        }
    }

    /// Writes the turn's pending starts in one statement (in autocommit: committed when it returns)
    /// and keeps each one's reply in ``deferredReplies``: its timer, or the error of a taken name;
    /// when the statement failed, every one of them is refused and none was started; when the
    /// connection broke during it, whether they were started is unknown (``DeferredReply/lost``).
    func flushPendingStarts() {
        guard !pendingStarts.isEmpty else { return }
        let batch = pendingStarts
        pendingStarts.removeAll(keepingCapacity: true)
        isInStartBatch = true  // the statements below do not flush again
        defer { isInStartBatch = false }
        var sent = false
        let written: (rows: [SharedTimerRow?], woke: Bool)
        do {
            written = try withQueue { queue throws(PostgresError) in
                sent = true
                return try queue.startMany(batch.map(\.start))
            }
        } catch {
            let unknown: Bool
            if case .unavailable = error { unknown = sent } else { unknown = false }
            for pending in batch {
                deferredReplies[pending.waiter] =
                    unknown
                    ? .lost
                    : .reply(
                        TimerService.errorLine(
                            id: pending.requestID ?? .null,
                            // Refused by the server: the refusal of a commit's changes; not sent:
                            // the refusal of any change while the database is away.
                            RPCError(
                                .internalError,
                                (sent ? "the change was not saved and was undone: " : "state could not be saved: ")
                                    + "\(error)")),
                        event: nil, uid: pending.start.owner)
            }
            return
        }
        flushedStartsThisTurn = true
        if written.woke { deadlineMovedThisTurn = true }
        for (pending, row) in zip(batch, written.rows) {
            guard let row else {
                // The name is taken by a live timer of this owner (on any host, or an earlier start
                // of this statement): the one-host daemon's error.
                let name = pending.start.name ?? ""
                let holder = try? withQueue { queue throws(PostgresError) in
                    try queue.timer(named: name, owner: pending.start.owner)
                }
                deferredReplies[pending.waiter] = .reply(
                    TimerService.errorLine(
                        id: pending.requestID ?? .null,
                        RPCError(CountdownError.nameInUse(name, id: holder.map { String($0.id) } ?? "?"))),
                    event: nil, uid: pending.start.owner)
                continue
            }
            changedThisTurn = true
            figures.timerCounts.started += 1
            let event =
                (pending.start.isHeartbeat ? "started heartbeat timer " : "started timer ") + "\(Self.label(row)), "
                + pending.durations.map { DurationFormatter.compact(seconds: $0) }.joined(separator: " ")
            var writer = JSONBytesWriter()
            let reply: [UInt8]
            do {
                try Self.info(row).write(to: &writer)
                reply = TimerService.resultLine(id: pending.requestID ?? .null, resultJSON: writer.bytes)
            } catch {
                reply = TimerService.errorLine(id: pending.requestID ?? .null, RPCError(.internalError, "\(error)"))
            }
            deferredReplies[pending.waiter] = .reply(reply, event: event, uid: pending.start.owner)
        }
    }

    /// Runs a read on the host's connection without writing the turn's pending starts first (the
    /// quota check of a start that will join them counts them itself).
    ///
    /// - Parameter body: the read.
    /// - Returns: what `body` returned.
    /// - Throws: ``PostgresError``.
    func readKeepingPendingStarts<T>(_ body: (PostgresTimerQueue) throws(PostgresError) -> T) throws(PostgresError)
        -> T
    {
        let inBatch = isInStartBatch
        isInStartBatch = true
        defer { isInStartBatch = inBatch }
        return try withQueue(body)
    }

    /// The replies of the pending starts written since the last call, by request waiter.
    ///
    /// - Returns: the replies; the daemon puts each in place of its request's placeholder.
    func takeDeferredReplies() -> [WaiterID: DeferredReply] {
        defer { deferredReplies.removeAll(keepingCapacity: true) }
        return deferredReplies
    }

    /// At the daemon's commit: writes the pending starts, settles the turn's transaction and says
    /// what became of its starts; the next turn starts afresh.
    ///
    /// - Returns: `.committed` when starts were made durable in it, `.refused` when they were rolled
    ///   back, `.lost` when the commit's outcome is unknown, `.nothing` when it held none.
    func takeStartBatchVerdict() -> CommitResult {
        flushPendingStarts()
        settleStartBatch()
        let flushed = flushedStartsThisTurn
        defer {
            startBatch = .idle
            flushedStartsThisTurn = false
        }
        switch startBatch {
        case .idle, .open: return flushed ? .committed : .nothing
        case .committed: return .committed
        case .failed(let reason): return .refused(message: reason)
        case .lost: return .lost
        }
    }
}
