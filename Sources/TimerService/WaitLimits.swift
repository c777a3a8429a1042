import Countdown
import TimerProtocol

/// How many `timer.wait`s (subscriptions) may be pending at once, per connection and per user, so
/// that one client cannot make the daemon hold unbounded memory for everyone (docs/fairness.md).
///
/// A pending wait costs about 200 bytes (its subscription, its request id and the counters here);
/// the defaults bound one user to about 0.8 MiB of waits. A wait past a limit is refused with
/// `-32004` (`RPCErrorCode/quotaExceeded`), naming the limit; nothing else about the connection
/// changes.
public struct WaitLimits: Sendable, Hashable {
    /// The most pending waits one connection may have (default 1,024).
    public var perConnection: Int
    /// The most pending waits one uid may have across its connections (default 4,096); root's
    /// requests (which see every timer) are bounded per connection only.
    public var perUser: Int

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - perConnection: the most pending waits per connection; at least 1.
    ///   - perUser: the most pending waits per uid; at least 1.
    public init(perConnection: Int = 1_024, perUser: Int = 4_096) {
        self.perConnection = max(1, perConnection)
        self.perUser = max(1, perUser)
    }
}

extension WaitLimits {
    /// The `-32004` refusal of one more wait (or subscription) by `context`, or `nil` when it is
    /// admitted: the rule of the one-host service and of the shared (PostgreSQL) host alike.
    ///
    /// - Parameters:
    ///   - connectionWaits: the waits pending on the requester's connection.
    ///   - userWaits: the waits pending for the requester's uid (not checked for root's requests).
    ///   - context: who asks.
    /// - Returns: the error to answer, naming the limit, or `nil`.
    package func refusal(connectionWaits: Int, userWaits: Int, context: RequestContext) -> RPCError? {
        if connectionWaits >= perConnection {
            return RPCError(
                .quotaExceeded,
                "this connection has \(perConnection) pending waits, the limit per connection; "
                    + "wait for some to end or use another connection")
        }
        if !context.seesAll, userWaits >= perUser {
            return RPCError(
                .quotaExceeded,
                "uid \(context.uid) has \(perUser) pending waits, the limit per user; wait for some to end first")
        }
        return nil
    }
}

/// One pending `timer.wait`: the request id its reply answers under and who it counts against.
struct PendingWait: Sendable {
    /// The request's id.
    var id: RPCID
    /// The requester's uid.
    var uid: UInt32
    /// The requester's connection.
    var connection: UInt64
}

extension TimerService {
    /// Throws the `-32004` refusal when one more wait by `context` would pass a limit.
    ///
    /// - Parameter context: who asks to wait.
    /// - Throws: ``RPCError`` with `RPCErrorCode/quotaExceeded`.
    func checkWaitLimits(for context: RequestContext) throws(RPCError) {
        if let refusal = waitLimits.refusal(
            connectionWaits: waitsPerConnection[context.connection, default: 0],
            userWaits: waitsPerUser[context.uid, default: 0], context: context)
        {
            throw refusal
        }
    }

    /// Records a pending wait and its subscription.
    mutating func addWait(_ id: RPCID, timer: UInt64, context: RequestContext) {
        pendingWaits[context.waiter] = PendingWait(id: id, uid: context.uid, connection: context.connection)
        waitsPerConnection[context.connection, default: 0] += 1
        waitsPerUser[context.uid, default: 0] += 1
        subscriptions.subscribe(
            context.waiter, to: .timer(timer), kinds: TimerEvent.Name.endings, lifetime: .untilFirstEvent)
    }

    /// Forgets a pending wait (answered or cancelled) and returns it.
    ///
    /// - Complexity: O(1).
    mutating func removeWait(_ waiter: WaiterID) -> PendingWait? {
        guard let wait = pendingWaits.removeValue(forKey: waiter) else { return nil }
        let onConnection = waitsPerConnection[wait.connection, default: 1] - 1
        waitsPerConnection[wait.connection] = onConnection > 0 ? onConnection : nil
        let ofUser = waitsPerUser[wait.uid, default: 1] - 1
        waitsPerUser[wait.uid] = ofUser > 0 ? ofUser : nil
        return wait
    }

    /// The number of pending waits of `uid`, across its connections.
    ///
    /// - Parameter uid: a uid.
    public func pendingWaitCount(uid: UInt32) -> Int { waitsPerUser[uid, default: 0] }
}
