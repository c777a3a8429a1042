import Countdown
import TimerProtocol

/// What handling one request line produced.
public struct ServiceOutcome: Sendable {
    /// The reply line (JSON, without the newline), or `nil` when the reply waits (`timer.wait`)
    /// or the request was a notification (no `id`).
    public var reply: [UInt8]?
    /// Whether the engine's state changed, so it must be saved before the reply is sent.
    public var changedState: Bool
    /// Waiters to answer now because this request (or a timer that fell due before it) ended their timer.
    public var wakeups: [(waiter: WaiterID, reply: [UInt8])]
    /// One line for the daemon's log when the request changed something (`started timer 3 ("tea"), 25m`).
    public var event: String?
    /// Whether the request itself changed the state (start, stop, pause, resume), so that the
    /// change must be durable before the reply is sent. Timers that merely finished do not count.
    public var requiresDurability = false
    /// Timers that were due and finished just before the request ran.
    public var endings: [TimerEnding] = []
    /// Set for `daemon.reload`: the daemon reloads, then answers with
    /// ``TimerService/reloadReply(id:_:)`` (``reply`` is then `nil`), so the answer comes only
    /// after the reload completed.
    public var reloadRequest: ReloadRequest?
    /// Set for `daemon.metrics`: the daemon renders its metrics and answers (``reply`` is then
    /// `nil`), because the figures it reports (connections, request latency) are the daemon's.
    public var metricsRequest: MetricsRequest?
    /// The request's method, once the envelope named a known one; `nil` for a line refused before
    /// (not JSON, no method, an unknown method). The daemon times requests per method with it.
    public var method: RPCMethod?
    /// Set for a `timer.list` of more than ``TimerService/streamingThreshold`` timers (``reply``
    /// is then `nil`): the daemon writes it a part at a time with
    /// ``TimerService/writeListing(_:into:upTo:)``.
    public var listing: TimerListing?
    /// The request's `id`, when it had a valid one: the daemon answers with an error under this id
    /// when the change cannot be saved (docs/durability.md, "Disk full").
    public var requestID: RPCID?
    /// Set for a `timer.subscribe` that subscribed: its subscription number (the request's
    /// ``RequestContext/waiter``), which the daemon ties to the connection. Its notifications
    /// come from ``TimerService/takeNotifications()``.
    public var newSubscription: SubscriptionRegistry.SubscriberID?
    /// Set for a `timer.unsubscribe` that ended a subscription: its number.
    public var endedSubscription: SubscriptionRegistry.SubscriberID?
    /// Whether ``reply`` is a placeholder: the backend writes the change with others of the turn
    /// and gives the real reply at the turn's commit, keyed by the request's
    /// ``RequestContext/waiter`` (timerd's shared mode batches starts so).
    public var isReplyDeferred = false

    /// An outcome with nothing changed in the engine, for a request answered elsewhere (another
    /// backend that committed its change itself).
    ///
    /// - Parameters:
    ///   - reply: the reply line, or `nil`.
    ///   - requestID: the request's id.
    ///   - event: a log line for a change, or `nil`.
    public init(reply: [UInt8]?, requestID: RPCID?, event: String?) {
        self.init(reply: reply, changedState: false, wakeups: [], event: event)
        self.requestID = requestID
    }

    init(
        reply: [UInt8]?, changedState: Bool, wakeups: [(waiter: WaiterID, reply: [UInt8])], event: String?
    ) {
        self.reply = reply
        self.changedState = changedState
        self.wakeups = wakeups
        self.event = event
    }
}

/// A `daemon.reload` the daemon has to carry out and then answer.
public struct ReloadRequest: Sendable, Hashable {
    /// The request's id, or `nil` for a notification (reload, no reply).
    public var id: RPCID?
}

/// A `daemon.metrics` the daemon has to answer with its rendered metrics.
public struct MetricsRequest: Sendable, Hashable {
    /// The request's id, or `nil` for a notification (no reply).
    public var id: RPCID?
}
