import Countdown
import TimerProtocol
import TimerService
import TimerStorage
import TimerSystem

/// A reply that waits for this turn's commit: the reply to a request that changed the state, or
/// any later reply on the same connection in the same turn (so that replies keep their order).
struct HeldReply {
    /// The connection's token.
    var token: UInt64
    /// The request's id, for the error that replaces the reply when the change cannot be saved.
    var id: RPCID?
    /// The reply line.
    var reply: [UInt8]
    /// Whether the request itself changed the state (start, stop, pause, resume).
    var isChange: Bool
}

extension Daemon {
    /// The first wait before retrying a refused commit, in nanoseconds (250 ms); it doubles after
    /// each further refusal up to 10 s.
    static let commitFirstBackoff: Int64 = 250_000_000
    /// The longest wait between retries of a refused commit: 10 s.
    static let commitMaximumBackoff: Int64 = 10_000_000_000

    /// Queues `reply` now, or holds it until this turn's commit when it acknowledges a change or
    /// follows a held reply on the same connection.
    ///
    /// - Complexity: O(1); no hash lookup for a read-only reply while nothing is held.
    func hold(_ reply: [UInt8], to connection: Connection, id: RPCID?, isChange: Bool) {
        if isChange || (!heldTokens.isEmpty && heldTokens.contains(connection.token)) {
            heldReplies.append(HeldReply(token: connection.token, id: id, reply: reply, isChange: isChange))
            heldTokens.insert(connection.token)
        } else {
            queue(reply, to: connection)
        }
    }

    /// Queues the held replies, in order, after the commit (or its refusal) decided their fate.
    func releaseHeldReplies() {
        guard !heldReplies.isEmpty else { return }  // a turn of read-only requests holds nothing
        let held = heldReplies
        heldReplies.removeAll(keepingCapacity: true)
        heldTokens.removeAll(keepingCapacity: true)
        for item in held {
            if let connection = connections[item.token] { queue(item.reply, to: connection) }
        }
    }

    /// Undoes what the store refused: rebuilds the engine from the store's durable state (so the
    /// refused changes are gone from memory and no later compaction can write them), keeps the
    /// next id from going back, and turns each held reply that acknowledged a change into a
    /// `-32603` error naming the reason (`… No space left on device`). Read-only replies stay.
    ///
    /// Why a rebuild from the store rather than an undo log in the engine: a refusal is rare (a
    /// full or failing disk), and this costs nothing on the hot path of a start (no pre-image is
    /// copied per change), while the store already knows exactly what is durable.
    ///
    /// - Parameters:
    ///   - error: why the store refused.
    ///   - now: the boot-time clock, in nanoseconds, for the retry.
    /// - Complexity: O(n log n) in the timers, only when a commit was refused.
    func rollBack(after error: any Error, now: Int64) {
        let backoff = commitRetry.map { min($0.backoff * 2, Self.commitMaximumBackoff) } ?? Self.commitFirstBackoff
        commitRetry = (now + backoff, backoff)
        let refused = heldReplies.filter(\.isChange).count
        do {
            var durable = try store.durableState()
            durable.nextID = max(durable.nextID, service.engine.snapshot.nextID)
            _ = service.engine.restore(durable, sameBoot: true)
            stateIsDirty = true
            log(
                "error: could not save state to \(store.location): \(error); undid this turn's changes and "
                    + "refused \(refused) request\(refused == 1 ? "" : "s"); retrying")
        } catch let readError {
            log(
                "error: could not save state to \(store.location): \(error), nor read what is saved: "
                    + "\(readError); closing this turn's connections")
            for item in heldReplies {
                if let connection = connections[item.token] { close(connection) }
            }
            heldReplies.removeAll()
            heldTokens.removeAll()
            return
        }
        let message = "the change was not saved and was undone: \(error)"
        for index in heldReplies.indices where heldReplies[index].isChange {
            heldReplies[index].reply = TimerService.errorLine(
                id: heldReplies[index].id ?? .null, RPCError(.internalError, message))
        }
    }
}
