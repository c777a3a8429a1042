import Glibc
import TimerService
import TimerSystem

/// Shared mode's part of the loop (`--shared`, issue 14): the database socket in epoll (a
/// `timerd_wake` notification starts a turn at once), the timerfd armed for the next claim, and
/// requests answered by ``SharedHost``.
extension Daemon {
    /// Keeps epoll watching the connection's current socket, which changes at each reconnection.
    func watchSharedSocket() {
        guard let shared else { return }
        let generation = shared.connectionGeneration
        guard generation != sharedSocketGeneration else { return }
        sharedSocketGeneration = generation
        let socket = shared.socket
        guard socket >= 0 else { return }
        do {
            try epoll.add(rawDescriptor: socket, interest: .readable, token: Self.sharedSocketToken)
        } catch {
            log("warning: cannot watch the database connection: \(error); polling every second instead")
        }
    }

    /// A turn of shared mode: claims and completes what is due, follows the outbox, and hands the
    /// waits it ends and the notifications to the connections.
    func sharedTurn() {
        guard let shared else { return }
        shared.historyLimit = service.engine.historyLimit  // as a reload left them
        shared.historyMaximumAge = service.engine.historyMaximumAge
        bootTimer.drain()
        armedDeadline = nil
        apply(shared.turn())
        let launches = shared.launches
        shared.launches.removeAll()
        var started: [(id: Int64, fence: Int64)] = []
        for item in launches {
            startAction(item.launch)
            if started.last.map({ $0 != (item.id, item.fence) }) ?? true { started.append((item.id, item.fence)) }
        }
        for run in started { shared.markActionStarted(id: run.id, fence: run.fence) }
        watchSharedSocket()
    }

    /// After the requests of a turn changed timers: follows the outbox at once, so this host's own
    /// waits and subscribers hear of the change in the same turn.
    func sharedEndOfTurn() {
        guard let shared, shared.changedThisTurn else { return }
        shared.changedThisTurn = false
        try? shared.announce()
        if let output = try? shared.followEvents() { apply(output) }
        shared.nextTurnAt = min(shared.nextTurnAt, shared.now)  // a new deadline may be the earliest
        watchSharedSocket()
    }

    func apply(_ output: SharedHost.TurnOutput) {
        for wakeup in output.wakeups { deliver(wakeup) }
        if !output.notifications.isEmpty { pendingNotifications += output.notifications }
    }

    /// Runs a request line in shared mode.
    ///
    /// - Returns: whether shared mode took it (else the daemon's ``TimerService`` answers it).
    func handleShared(_ line: [UInt8], from connection: Connection, context: RequestContext) -> Bool {
        guard let shared else { return false }
        shared.quota = service.quota  // max_timers_per_user, as a reload left it
        shared.waitLimits = service.waitLimits
        guard let outcome = shared.handle(line: line, context: context) else { return false }
        if let reply = outcome.reply {
            hold(reply, to: connection, id: outcome.requestID, isChange: false)
        } else if outcome.isWaiting {
            connection.state.waiters.insert(context.waiter)
            waiterConnections[context.waiter] = connection.token
        }
        if let subscriber = outcome.newSubscription { connection.state.subscriptions.insert(subscriber) }
        if let subscriber = outcome.endedSubscription {
            connection.state.subscriptions.remove(subscriber)
            connection.state.settleAfterHeldLines()
        }
        if !outcome.notifications.isEmpty { pendingNotifications += outcome.notifications }
        if let event = outcome.event { log(event) }
        watchSharedSocket()
        return true
    }
}
