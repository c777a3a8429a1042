/// A line timerd sends without an `id`: a notification of an open `timer.subscribe`
/// (docs/protocol.md, "Events"), as a client reads it with the product's one JSON reader.
///
/// ```swift
/// switch try ServerNotification(line: line) {
/// case .event(let event)?: print(event.seq, event.event, event.timer.id)
/// case .gap(let from, let to, let reason)?: print("lost \(from)…\(to) (\(reason))")
/// case .other?, nil: break   // nil: a reply, read it as one
/// }
/// ```
package enum ServerNotification {
    /// `timer.event`: something happened to a timer.
    case event(TimerEventNotification)
    /// `timer.gap`: events `fromSeq` … `toSeq` were lost to this subscriber; `reason` is `ring`
    /// (older than timerd keeps) or `slow` (the client read too slowly).
    case gap(fromSeq: UInt64, toSeq: UInt64, reason: String)
    /// A notification of a method this client does not know (a newer daemon): to be ignored.
    case other(method: String)

    /// Reads a line as a notification.
    ///
    /// - Parameter line: the line's bytes, without the newline.
    /// - Returns: `nil` when the line is a reply (it has an `id`) rather than a notification.
    /// - Throws: ``JSONShapeError`` when it is not JSON, or a known notification of the wrong shape.
    package init?(line: [UInt8]) throws(JSONShapeError) {
        guard let value = JSONValue(parsing: line) else { throw JSONShapeError("the line is not JSON") }
        guard case .object(let members) = value else { throw JSONShapeError("the line is not a JSON object") }
        guard members["id"] == nil, case .string(let method)? = members["method"] else { return nil }
        let params = try JSONObjectReader(members["params"] ?? .object([:]), method)
        switch method {
        case "timer.event":
            self = .event(try TimerEventNotification(json: members["params"] ?? .null, line: line))
        case "timer.gap":
            self = .gap(
                fromSeq: try params.integer("fromSeq"), toSeq: try params.integer("toSeq"),
                reason: try params.string("reason"))
        default:
            self = .other(method: method)
        }
    }
}

/// The `params` of a `timer.event` notification.
package struct TimerEventNotification {
    /// The kind's wire name: `started`, `paused`, `resumed`, `step`, `finished`, `stopped`,
    /// `missed`, or a kind added later (kept as sent).
    package var event: String
    /// The timer right after the event.
    package var timer: TimerInfo
    /// When it happened (ISO 8601, UTC, milliseconds), as sent.
    package var at: String
    /// The event's sequence number.
    package var seq: UInt64
    /// Every member of `params`, the kind's own ones included (`child` of `step` …).
    package var params: [String: JSONValue]
    /// The line as received, for printing it on unchanged.
    package var line: [UInt8]

    /// Reads the params object.
    ///
    /// - Parameters:
    ///   - json: the `params` value.
    ///   - line: the whole line.
    /// - Throws: ``JSONShapeError`` naming the first member with the wrong shape.
    package init(json: JSONValue, line: [UInt8]) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "timer.event")
        guard case .object(let members) = json else { throw JSONShapeError("timer.event: expected an object") }
        event = try object.string("event")
        timer = try TimerInfo(json: object.required("timer"))
        at = try object.string("at")
        seq = try object.integer("seq")
        params = members
        self.line = line
    }
}
