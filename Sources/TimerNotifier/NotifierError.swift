import TimerProtocol

/// Every way `timerctl notifier` can fail, each saying what went wrong and what to do.
public enum NotifierError: Error, Equatable, Sendable, CustomStringConvertible {
    /// This build has no D-Bus support (the package trait `Notifications` was off).
    case notBuilt
    /// The session bus could not be reached or a call on it failed; the text names the call and
    /// sd-bus's error (`sd_bus_open_user: No such file or directory`).
    case bus(String)
    /// timerd could not be reached or the connection to it was lost.
    case timerd(String)
    /// timerd refused the subscription, with its error.
    case refused(RPCError)
    /// timerd sent a line that is not JSON-RPC, or a listing of the wrong shape; the text quotes it.
    case protocolError(String)

    /// What a build without the trait says: how to build with it.
    public static let notBuiltMessage =
        "this timerctl was built without D-Bus support, so it cannot show desktop notifications:"
        + " build with the package trait Notifications (swift build -c release --traits Notifications;"
        + " needs libsystemd-dev and pkg-config), or use the Debian package, which has it"

    /// The message after `Error: `.
    public var description: String {
        switch self {
        case .notBuilt: return Self.notBuiltMessage
        case .bus(let message): return message
        case .timerd(let message): return message
        case .refused(let error): return "timerd refused the subscription: \(error.message)"
        case .protocolError(let message): return "unexpected reply from timerd: \(message)"
        }
    }
}
