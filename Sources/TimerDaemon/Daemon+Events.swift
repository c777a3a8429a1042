import Countdown
import TimerService

/// Server-pushed events (docs/protocol.md, "Events"): the notifications the service produces are
/// held until the turn's commit (a subscriber never hears of a change before it is on disk), then
/// offered to each connection's bounded ``EventBacklog`` and written as the client reads.
extension Daemon {
    /// Ties a new subscription to its connection, or forgets an ended one, after a request.
    ///
    /// - Parameters:
    ///   - outcome: what the request produced.
    ///   - connection: where it came from.
    func trackSubscriptions(_ outcome: ServiceOutcome, on connection: Connection) {
        if let subscriber = outcome.newSubscription, backend.hasSubscription(subscriber) {
            connection.state.subscriptions.insert(subscriber)
        }
        if let subscriber = outcome.endedSubscription {
            connection.state.subscriptions.remove(subscriber)
            connection.state.settleAfterHeldLines()
        }
    }

    /// After the turn's commit: takes the backend's notifications, in order, all at once
    /// (appending each request's to a list of the daemon's, 100 per event with 100 subscribers,
    /// copied every one of them), and offers each to its connection's backlog, which a
    /// slow client overflows into a `timer.gap` (reason `slow`), and marks the connection for the
    /// turn's flush.
    ///
    /// Each line is written once into the turn's ``SharedLines`` (the notifications of one event
    /// come one after the other with the same number and line); a backlog refers to runs of those
    /// lines, so a subscriber of every event holds one entry per turn and its socket is written
    /// from the shared buffer (``flush(_:)``), with no copy per subscriber.
    ///
    /// - Returns: the turn's shared lines and the connections that hold runs of them, for
    ///   ``detachSharedLines(_:)`` after the flush; `nil` when there was nothing to send.
    /// - Complexity: O(n) in the notifications of the turn.
    func deliverNotifications() -> (lines: SharedLines, holders: [UInt64])? {
        let taken = backend.takeNotifications()
        guard !taken.isEmpty else { return nil }
        var holders: [UInt64] = []
        let lines = SharedLines()
        var index = -1
        var lastSeq: UInt64?
        var lastLine: UnsafePointer<UInt8>?
        // Read in place: copying each notification out would retain and release its line.
        taken.withUnsafeBufferPointer { taken in
            for position in taken.indices {
                // A firing waits for at most one slice of the fan-out (fireDueBetweenSlices()); what
                // it produces is sent after the next commit, behind these notifications.
                if position & 63 == 63 { fireDueBetweenSlices() }
                guard let connection = connections[taken[position].connection] else { continue }
                let seq = taken[position].seq
                // The same line object: the same event in the same numbering (a user's own numbers
                // and root's global ones are two lines of one event; two events may share a number).
                let line = taken[position].line.withUnsafeBufferPointer { $0.baseAddress }
                if index < 0 || seq == nil || seq != lastSeq || line != lastLine {
                    index = lines.append(seq: seq, line: taken[position].line)
                    lastSeq = seq
                    lastLine = line
                }
                // A backlog that already held lines is either marked for this turn's flush (by its
                // first line here) or waits for the socket to take more (flush() leaves lines queued
                // only when write(2) would block, and then epoll watches for writability): no
                // second hash probe.
                let before = connection.state.events.bytes
                let (wasEmpty, dropped, newRun) = connection.state.offerEvent(lines, line: index)
                if newRun { holders.append(connection.token) }
                if dropped {
                    log(
                        "client \(connection.token) (uid \(connection.uid)): does not read its events "
                            + "(over \(EventBacklog.maximumBytes >> 20) MiB queued); dropped them for a timer.gap")
                } else {
                    boundEventBytesOfUser(connection, before: before)
                }
                settleEventBytes(of: connection, from: before)
                if wasEmpty { markForFlush(connection) }
            }
        }
        return (lines, holders)
    }

    /// The most bytes of unsent notifications the connections of one user may hold together
    /// (16 MiB): 250 subscribers of one user that do not read hold about 64 KiB each, not 1 MiB
    /// each (``EventBacklog/maximumBytes`` bounds one connection).
    static let eventBytesPerUser = 16 << 20

    /// Keeps one user's unsent notifications under ``eventBytesPerUser``: when the user is over it
    /// after an offer to `connection`, and that connection holds at least its share (the bound
    /// over the user's connections) or the user is past twice the bound, its backlog is dropped
    /// for a `timer.gap` (reason `slow`), as a backlog past 1 MiB is. Logged once per connection.
    ///
    /// - Parameters:
    ///   - connection: the connection just offered a notification.
    ///   - before: its backlog's bytes before the offer.
    func boundEventBytesOfUser(_ connection: Connection, before: Int) {
        let held = connection.state.events.bytes
        let total = eventBytesPerUID[connection.uid, default: 0] + held - before
        guard total > Self.eventBytesPerUser else { return }
        let share = Self.eventBytesPerUser / max(1, connectionsPerUID[connection.uid, default: 1])
        guard held >= share || total > 2 * Self.eventBytesPerUser else { return }
        connection.state.events.dropForGap()
        if connection.state.events.dropCount == 1 {
            log(
                "client \(connection.token) (uid \(connection.uid)): does not read its events while uid "
                    + "\(connection.uid)'s connections hold over \(Self.eventBytesPerUser >> 20) MiB of them; "
                    + "dropped its queue for a timer.gap (logged once per connection)")
        }
    }

    /// Adds the change of `connection`'s backlog bytes since `before` to its user's total
    /// (``eventBytesPerUID``).
    ///
    /// - Parameters:
    ///   - connection: a connection whose backlog may have changed.
    ///   - before: its backlog's bytes before the change.
    func settleEventBytes(of connection: Connection, from before: Int) {
        let change = connection.state.events.bytes - before
        guard change != 0 else { return }
        let total = eventBytesPerUID[connection.uid, default: 0] + change
        eventBytesPerUID[connection.uid] = total > 0 ? total : nil
    }

    /// After the turn's flush: a connection whose socket did not take all of its runs of the
    /// turn's shared lines gets its own copy of them (``EventBacklog/detach(from:)``), so a slow
    /// subscriber holds at most its own 1 MiB, never other subscribers' lines of the turns it
    /// missed. Nothing is copied when every run was written (the usual case).
    ///
    /// - Parameter turn: what ``deliverNotifications()`` returned.
    func detachSharedLines(_ turn: (lines: SharedLines, holders: [UInt64])?) {
        guard let turn else { return }
        for token in turn.holders {
            guard let connection = connections[token], !connection.state.events.isEmpty else { continue }
            connection.state.events.detach(from: turn.lines)
        }
    }

    /// Ends the subscriptions of a connection that goes away.
    func cancelSubscriptions(of connection: Connection) {
        for subscriber in connection.state.subscriptions {
            backend.cancelSubscription(subscriber)
        }
        connection.state.subscriptions.removeAll()
    }
}
