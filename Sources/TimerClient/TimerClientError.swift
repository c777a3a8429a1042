import TimerProtocol

/// Every way a ``TimerClient`` call can fail short of cancellation (which throws `CancellationError`).
///
/// A refusal by timerd keeps the protocol's stable error code (docs/protocol.md, "Errors";
/// `RPCErrorCode`): `code` and `message` read it whatever the case.
public enum TimerClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing answers on `path`: no socket there, or one nobody listens on. `reason` is the
    /// system's word for it (`connect: No such file or directory`).
    case notRunning(path: String, reason: String)
    /// The socket path given names something that is not a socket (`kind`: `a directory`,
    /// `a regular file` …).
    case notASocket(path: String, kind: String)
    /// The connection could not be made or was lost: timerd could not be started, refused the
    /// connection at its limit, closed it, or did not answer in time. The message says which.
    case unavailable(String)
    /// timerd refused the connection rather than a request (an error reply with a `null` id), such as
    /// -32603 "timerd is stopping; connect again in a moment" while it shuts down.
    case refused(RPCError)
    /// timerd refused the request; the error object carries the stable code (-32001 no such
    /// timer, -32002 not in this state …) and a message a person can act on.
    case daemon(RPCError)
    /// timerd's reply could not be read as the protocol documents it (the start of the line, or
    /// what was missing).
    case protocolError(String)
    /// A request could not be written: a figure in it is NaN or infinite, which JSON cannot hold.
    case invalidRequest(String)

    /// The protocol's error code of a ``daemon(_:)`` or ``refused(_:)`` error (-32700 … -32001),
    /// else `nil`.
    public var code: Int? {
        switch self {
        case .daemon(let error), .refused(let error): return error.code
        default: return nil
        }
    }

    /// The message alone: timerd's own for a refusal, else what ``description`` says.
    public var message: String {
        switch self {
        case .daemon(let error), .refused(let error): return error.message
        default: return description
        }
    }

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .notRunning(let path, let reason): return "timerd is not running on \(path) (\(reason))"
        case .notASocket(let path, let kind): return "\(path) is \(kind), not a socket"
        case .unavailable(let message): return message
        case .daemon(let error): return error.message
        case .refused(let error): return "timerd refused the connection: \(error.message) (\(error.code))"
        case .protocolError(let text): return "unexpected reply from timerd: \(text)"
        case .invalidRequest(let text): return "cannot write the request: \(text)"
        }
    }
}
