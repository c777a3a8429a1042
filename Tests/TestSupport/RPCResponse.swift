import TimerProtocol

/// A reply as `JSONDecoder` reads it: the tests' independent reference for what the product's own
/// reader (`RPCReply`) and writer produce. (It was `TimerProtocol.RPCResponse`, used only by tests.)
public struct RPCResponse<Result: Decodable & Sendable>: Decodable, Sendable {
    /// The id of the request answered (`null` when the request could not be read).
    public var id: RPCID
    /// The result, on success.
    public var result: Result?
    /// The error, on failure.
    public var error: RPCError?
}
