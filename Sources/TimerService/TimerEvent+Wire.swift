import Countdown
import TimerProtocol

extension TimerEvent.Name {
    /// The kind's name in `timer.event` notifications and in `timer.subscribe`'s `events` filter
    /// (docs/protocol.md): `started`, `paused`, `resumed`, `step`, `finished`, `stopped`, `missed`,
    /// `action`.
    public var wireName: String {
        switch self {
        case .steppedToChild: return "step"
        default: return rawValue
        }
    }
}

extension TimerEvent.ActionReport {
    /// Appends the `"action"` member of an action event's params:
    /// `"action":{"kind":"exec","outcome":"exited","status":0,"trigger":"finished"}` (keys sorted;
    /// `status` is `null` for an interrupted run, see `ActionRun.Outcome.status`).
    ///
    /// - Parameter writer: where the member goes (after a `{` or a `,`).
    package func writeMember(to writer: inout JSONBytesWriter) {
        writer.key("action")
        writer.raw("{")
        writer.key("kind")
        writer.string(kind.rawValue)
        writer.raw(",")
        writer.key("outcome")
        writer.string(outcome.name)
        writer.raw(",")
        writer.key("status")
        if let status = outcome.status { writer.integer(Int64(status)) } else { writer.null() }
        writer.raw(",")
        writer.key("trigger")
        writer.string(trigger.rawValue)
        writer.raw("}")
    }
}
