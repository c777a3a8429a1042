import TimerSystem

/// One scraper's connection to the metrics endpoint: the socket, its request head so far, and
/// the response being written. The daemon closes it once the response is written, or at
/// ``deadline``.
final class ScrapeConnection {
    /// The accepted socket (non-blocking).
    let socket: FileDescriptor
    /// Its epoll token.
    let token: UInt64
    /// The request head read so far.
    var request = ScrapeRequest()
    /// The response, once the head is complete; `nil` while reading.
    var response: [UInt8]?
    /// How much of ``response`` is written.
    var written = 0
    /// When the exchange must be over (boot-time nanoseconds): a slow scraper is then answered
    /// 408 (if it has not sent its head) and closed.
    let deadline: Int64

    /// Wraps an accepted socket.
    ///
    /// - Parameters:
    ///   - socket: the accepted socket, now owned here.
    ///   - token: its epoll token.
    ///   - deadline: when the exchange must be over, boot-time nanoseconds.
    init(socket: consuming FileDescriptor, token: UInt64, deadline: Int64) {
        self.socket = socket
        self.token = token
        self.deadline = deadline
    }
}

/// The metrics endpoint `timerd --metrics` opened: its listening socket and what it serves.
final class MetricsEndpoint {
    /// The listening socket (non-blocking).
    let listener: FileDescriptor
    /// The Unix socket path's claim (removed at stop), `nil` for a loopback TCP port.
    let claim: SocketFileClaim?
    /// The address with the port bound (`127.0.0.1:9464`, or the socket's path), for the log.
    let address: String

    /// Holds an opened endpoint.
    ///
    /// - Parameters:
    ///   - listener: the listening socket, now owned here.
    ///   - claim: the Unix socket path's claim, or `nil`.
    ///   - address: the address as logged.
    init(listener: consuming FileDescriptor, claim: SocketFileClaim?, address: String) {
        self.listener = listener
        self.claim = claim
        self.address = address
    }
}

/// The metrics endpoint could not be opened (the port is taken, the socket's directory is
/// missing): timerd does not start (exit 1, as for its control socket).
struct MetricsEndpointError: Error, CustomStringConvertible {
    /// What failed and why.
    var description: String
}
