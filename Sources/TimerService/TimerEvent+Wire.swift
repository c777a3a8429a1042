import Countdown
import TimerProtocol

extension TimerEvent.ActionReport {
    /// The value of the `"action"` member of an action event's params:
    /// `{"kind":"exec","outcome":"exited","status":0,"trigger":"finished"}` (keys sorted; `status`
    /// is `null` for an interrupted run, see `ActionRun.Outcome.status`).
    package var jsonObject: [UInt8] {
        var writer = JSONBytesWriter(capacity: 80)
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
        return writer.bytes
    }
}
