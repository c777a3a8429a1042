import TimerProtocol

/// The params of `timer.subscribe`: `{"timer"?: …, "events"?: [kind, …], "afterSeq"?: N}`.
struct SubscribeParams: RequestParams, Sendable {
    /// A timer's id or name, or `nil` for every timer the user may see (`"all"`).
    var timer: String?
    /// The kinds wanted by wire name, or `nil` for every kind.
    var events: [String]?
    /// The last event number already seen, to replay what came after it.
    var afterSeq: UInt64?

    var jsonMembers: [String] {
        var members: [String] = []
        if let timer { members.append(#""timer":"# + RequestJSON.string(timer)) }
        if let events { members.append(#""events":["# + events.map(RequestJSON.string).joined(separator: ",") + "]") }
        if let afterSeq { members.append(#""afterSeq":"# + String(afterSeq)) }
        return members
    }
}

/// The result of `timer.subscribe`: the subscription's number and the last event number so far.
struct SubscribeResult: JSONReadable, Sendable, Equatable {
    /// The number to pass to `timer.unsubscribe`.
    var subscription: UInt64
    /// The last event number when the subscription began; its notifications come after it.
    var seq: UInt64

    init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "subscribe result")
        subscription = try object.integer("subscription")
        seq = try object.integer("seq")
    }
}
