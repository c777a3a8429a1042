import TimerProtocol

/// The result of `timer.subscribe`: the subscription's number and the last event number so far.
package struct SubscribeResult: JSONReadable, Sendable, Equatable {
    /// The number to pass to `timer.unsubscribe`.
    package var subscription: UInt64
    /// The last event number when the subscription began; its notifications come after it.
    package var seq: UInt64

    /// Reads `{"seq":N,"subscription":S}`.
    ///
    /// - Parameter json: the result.
    /// - Throws: ``JSONShapeError`` when a member is missing or not a whole number.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "subscribe result")
        subscription = try object.integer("subscription")
        seq = try object.integer("seq")
    }
}

/// The result of `timer.unsubscribe`: `{"unsubscribed":true}`.
package struct UnsubscribeResult: JSONReadable, Sendable, Equatable {
    /// Whether the subscription was ended (always `true` in a result; a missing one is an error).
    package var unsubscribed: Bool

    /// Reads `{"unsubscribed":true}`.
    ///
    /// - Parameter json: the result.
    /// - Throws: ``JSONShapeError`` when the member is missing or not a Boolean.
    package init(json: JSONValue) throws(JSONShapeError) {
        unsubscribed = try JSONObjectReader(json, "unsubscribe result").bool("unsubscribed")
    }
}
