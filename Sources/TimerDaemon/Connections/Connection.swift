import TimerService
import TimerSystem

/// One client as the event loop holds it: the socket it owns, the epoll token that names it, and
/// its protocol state (``ClientConnection``, which decides everything without I/O).
///
/// The socket is closed when the loop drops the connection (it is an owned ``FileDescriptor``);
/// `Daemon.close(_:)` removes it from epoll and from the table of connections first.
final class Connection {
    /// The connected socket (non-blocking).
    let socket: FileDescriptor
    /// The epoll token that names it.
    let token: UInt64
    /// Its framing, reply queue, pending waits and half-close state.
    var state: ClientConnection
    /// Whether its token is in `Daemon.pendingFlush` (set and cleared only there and in the
    /// commit's flush loop): the list's membership test without hashing the token.
    var isFlushPending = false
    /// Whether its token is in `Daemon.touchedTokens` (set by `Daemon.touch(_:)`, cleared by
    /// `Daemon.connectionHousekeeping()`): the list's membership test without hashing the token.
    var isTouched = false

    /// Wraps an accepted socket.
    ///
    /// - Parameters:
    ///   - socket: the accepted socket, now owned by the connection.
    ///   - token: its epoll token.
    ///   - uid: the peer's uid (`SO_PEERCRED`).
    init(socket: consuming FileDescriptor, token: UInt64, uid: UInt32) {
        self.socket = socket
        self.token = token
        self.state = ClientConnection(uid: uid)
    }

    /// The peer's uid (`SO_PEERCRED`).
    var uid: UInt32 { state.uid }
}
