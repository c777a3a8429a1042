import TimerProtocol

/// A `timer.event` notification (docs/protocol.md, "Events"): something happened to a timer.
public struct TimerEvent: Sendable, Hashable {
    /// The kind's wire name: `started`, `paused`, `resumed`, `step`, `finished`, `stopped`,
    /// `missed`, `action`, `extended`, `restarted`, `beat`, `renamed`, `removed`, `elapsed`, or a
    /// kind added later (kept as sent).
    public var kind: String
    /// The timer right after the event.
    public var timer: TimerInfo
    /// When it happened: ISO 8601 in UTC with milliseconds, as sent (for a step or a finish, when
    /// the boundary was due).
    public var at: String
    /// The event's number in the requester's sequence (1, 2, 3 …; it starts again at 1 when timerd
    /// starts).
    public var seq: UInt64
    /// Every member of the notification's `params`, the kind's own ones included (`child` of
    /// `step`, `by` of `extended`, `from` of `renamed` …).
    public var params: [String: JSONValue]

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - kind: the kind's wire name.
    ///   - timer: the timer after the event.
    ///   - at: when it happened, ISO 8601.
    ///   - seq: its sequence number.
    ///   - params: every member of the notification's params.
    public init(kind: String, timer: TimerInfo, at: String, seq: UInt64, params: [String: JSONValue]) {
        self.kind = kind
        self.timer = timer
        self.at = at
        self.seq = seq
        self.params = params
    }
}

/// One element of ``TimerClient/events(timer:kinds:afterSeq:reconnect:)``.
public enum TimerNotification: Sendable, Hashable {
    /// A `timer.event`.
    case event(TimerEvent)
    /// A `timer.gap`: events `fromSeq` … `toSeq` (inclusive) are lost to this subscriber; `reason`
    /// is `ring` (older than timerd keeps, 4,096 events) or `slow` (the client read too slowly).
    case gap(fromSeq: UInt64, toSeq: UInt64, reason: String)
    /// The stream connected again to a timerd that is not the one it followed (another process id):
    /// the sequence numbers started again at 1, and the events of the new timerd follow from its
    /// first (`afterSeq` 0), those of timers that ended while no timerd ran (`missed`) included.
    case restarted(pid: Int32)
}
