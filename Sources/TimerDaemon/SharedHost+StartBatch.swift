import TimerPostgres
import TimerProtocol

// Group commit of the starts of one loop turn: they share one transaction, so one COMMIT (one WAL
// flush) acknowledges all of them, as one host's journal commits a turn's changes together.

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

    /// At the daemon's commit: settles the turn's transaction and says what became of its starts;
    /// the next turn starts afresh.
    ///
    /// - Returns: `.committed` when starts were made durable in it, `.refused` when they were rolled
    ///   back, `.lost` when the commit's outcome is unknown, `.nothing` when it held none.
    func takeStartBatchVerdict() -> CommitResult {
        settleStartBatch()
        defer { startBatch = .idle }
        switch startBatch {
        case .idle, .open: return .nothing
        case .committed: return .committed
        case .failed(let reason): return .refused(message: reason)
        case .lost: return .lost
        }
    }
}
