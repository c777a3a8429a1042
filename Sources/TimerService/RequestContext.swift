/// Who sent a request, and the token its reply waits under if it has to wait.
public struct RequestContext: Sendable, Hashable {
    /// The peer's uid (from `SO_PEERCRED`); timers it starts belong to it.
    public var uid: UInt32
    /// Whether the peer may see every user's timers (root).
    public var seesAll: Bool
    /// A token unique to this request: the subscriber id of a `timer.wait` that has to wait.
    public var waiter: WaiterID
    /// The connection the request came on (its pending waits count against it); 0 when there is
    /// only one.
    public var connection: UInt64

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - uid: the peer's uid.
    ///   - seesAll: whether it sees every user's timers; defaults to `uid == 0`.
    ///   - waiter: a token unique to the request.
    ///   - connection: the connection it came on (default 0).
    public init(uid: UInt32, seesAll: Bool? = nil, waiter: WaiterID, connection: UInt64 = 0) {
        self.uid = uid
        self.seesAll = seesAll ?? (uid == 0)
        self.waiter = waiter
        self.connection = connection
    }

    var requester: UInt32? { seesAll ? nil : uid }
}

/// Identifies one pending `timer.wait` request: its subscriber id in the ``SubscriptionRegistry``.
public typealias WaiterID = SubscriptionRegistry.SubscriberID
