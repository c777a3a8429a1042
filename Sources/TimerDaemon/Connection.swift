/// One client connection's buffers and bookkeeping, owned by the daemon's event loop.
final class Connection {
    /// The connected socket (non-blocking).
    let fd: Int32
    /// The epoll token that names it.
    let token: UInt64
    /// The peer's uid (`SO_PEERCRED`).
    let uid: UInt32
    /// Bytes received and not yet consumed as lines.
    var input: [UInt8] = []
    /// How far `input` was already searched for a newline.
    var scanned = 0
    /// Bytes to send.
    var output: [UInt8] = []
    /// Whether the rest of an over-long line is being skipped (up to its newline).
    var isDiscarding = false
    /// When the incomplete line in `input` began, on the boot-time clock (nanoseconds).
    var partialSince: Int64?
    /// Whether epoll also watches for writability.
    var wantsWrite = false
    /// Close once `output` is flushed.
    var closeAfterFlush = false
    /// The peer shut down its sending side (`shutdown(SHUT_WR)`, as `socat` and `nc` do): nothing more
    /// is read, but pending waits are still answered before the connection is closed.
    var isReadClosed = false
    /// The `timer.wait` requests of this connection that are still pending.
    var waiters: Set<UInt64> = []

    init(fd: Int32, token: UInt64, uid: UInt32) {
        self.fd = fd
        self.token = token
        self.uid = uid
    }
}
