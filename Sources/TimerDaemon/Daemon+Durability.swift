import Countdown
import TimerProtocol
import TimerService
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
    /// For a placeholder (``ServiceOutcome/isReplyDeferred``): the request's waiter, the key of
    /// its real reply in ``TimerBackend/takeDeferredReplies()``.
    var deferredWaiter: WaiterID? = nil
}

extension Daemon {
    /// Queues `reply` now, or holds it until this turn's commit when it acknowledges a change or
    /// follows a held reply on the same connection.
    ///
    /// - Complexity: O(1); no hash lookup for a read-only reply while nothing is held.
    func hold(
        _ reply: [UInt8], to connection: Connection, id: RPCID?, isChange: Bool, deferredWaiter: WaiterID? = nil
    ) {
        if isChange || deferredWaiter != nil || (!heldTokens.isEmpty && heldTokens.contains(connection.token)) {
            heldReplies.append(
                HeldReply(
                    token: connection.token, id: id, reply: reply, isChange: isChange, deferredWaiter: deferredWaiter))
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

    /// After the backend refused the commit and undid the turn's changes: turns each held reply
    /// that acknowledged a change into a `-32603` error naming the reason
    /// (`… No space left on device`). Read-only replies stay.
    ///
    /// - Parameter reason: why the store refused.
    func refuseHeldChanges(_ reason: String) {
        let refused = heldReplies.filter(\.isChange).count
        log(
            "error: could not save state to \(backend.location): \(reason); undid this turn's changes and "
                + "refused \(refused) request\(refused == 1 ? "" : "s"); retrying")
        let message = "the change was not saved and was undone: \(reason)"
        for index in heldReplies.indices where heldReplies[index].isChange {
            heldReplies[index].reply = TimerService.errorLine(
                id: heldReplies[index].id ?? .null, RPCError(.internalError, message))
        }
    }

    /// After the backend could neither save nor read what is saved: closes the connections that
    /// wait for this turn's commit, whose changes are in an unknown state.
    /// Puts the backend's deferred replies in place of their placeholders and logs their changes.
    /// A reply so given is final (its change was written, or refused on its own): a refusal of the
    /// turn's commit does not turn it into an error. A change whose outcome is unknown closes its
    /// connection.
    func placeDeferredReplies() {
        let replies = backend.takeDeferredReplies()
        guard !replies.isEmpty else { return }
        for (_, reply) in replies.sorted(by: { $0.key < $1.key }) {
            if case .reply(_, let event?, let uid) = reply { log(Self.eventLine(event, uid: uid)) }
        }
        var closing: Set<UInt64> = []
        for index in heldReplies.indices {
            guard let waiter = heldReplies[index].deferredWaiter, let reply = replies[waiter] else { continue }
            switch reply {
            case .reply(let line, _, _):
                heldReplies[index].reply = line
                heldReplies[index].isChange = false
                heldReplies[index].deferredWaiter = nil
            case .lost: closing.insert(heldReplies[index].token)
            }
        }
        guard !closing.isEmpty else { return }
        heldReplies.removeAll { closing.contains($0.token) }
        for token in closing {
            heldTokens.remove(token)
            if let connection = connections[token] { close(connection) }
        }
    }

    func closeHeldConnections() {
        for item in heldReplies {
            if let connection = connections[item.token] { close(connection) }
        }
        heldReplies.removeAll()
        heldTokens.removeAll()
    }
}
