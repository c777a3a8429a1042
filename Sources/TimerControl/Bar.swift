import FoundationEssentials
import Glibc
import TimerClient
import TimerModel
import TimerProtocol
import TimerSystem

/// `timerctl bar`: a status-bar feed, one line each time the shown text changes.
///
/// It subscribes to every event of the user's timers (`timer.subscribe`) and asks for the live
/// timers once (`timer.list`; again after a `timer.gap`), then prints from pushed events plus a
/// local tick on the boot-time clock that counts the shown timer down each second: timerd is never
/// polled. What to print is ``BarFeed``'s; this loop only moves bytes and waits.
///
/// When timerd goes away (a restart), the last state keeps ticking and bar connects again, after
/// 0.25 s and then twice as long each time up to 5 s, without starting a daemon (socket activation
/// starts one; a daemon someone stopped stays stopped). Event numbers start again at 1 when timerd
/// starts (docs/protocol.md, "Events"), so a reconnection does not pass `afterSeq`: it subscribes
/// afresh and asks for the listing, which replaces what was kept.
///
/// `SIGPIPE` is ignored while it runs: a bar that closes its end of the pipe makes the next write
/// fail, or `poll` report an error on standard output, and bar then exits 0.
enum Bar {
    /// An open connection with its subscription.
    private struct Connection {
        var client: ControlClient
        var subscribeID: Int
        var listID: Int

        /// Subscribes to every event of the user's timers and asks for the live timers.
        init(_ client: ControlClient) throws(ControlError) {
            self.client = client
            subscribeID = try client.send(.subscribe(timer: nil, kinds: nil, afterSeq: nil))
            listID = try client.send(.list(includingEnded: false))
        }
    }

    /// Whether standard output is open. With it closed, the socket would take descriptor 1 and the
    /// lines would go to timerd: `bar` then has nobody to print for and exits 0 before connecting.
    static var hasStandardOutput: Bool { fcntl(1, F_GETFD) >= 0 }

    /// The first wait before connecting again, in milliseconds.
    static let firstRetryMilliseconds: Int64 = 250
    /// The longest wait before connecting again, in milliseconds.
    static let longestRetryMilliseconds: Int64 = 5_000

    /// Runs the feed until standard output is closed.
    ///
    /// - Parameters:
    ///   - client: the first connection.
    ///   - feed: what to print.
    ///   - socketPath: `--socket`, for connecting again (`nil`: the default socket).
    ///   - outputFD: where lines go (standard output).
    /// - Returns: 0 once the reader of `outputFD` has gone.
    /// - Throws: ``ControlError/failed(_:)`` when the subscription is refused,
    ///   ``ControlError/protocolError(_:)`` for a line that is not JSON-RPC,
    ///   ``ControlError/unavailable(_:)`` when `poll` fails.
    static func run(_ client: ControlClient, feed: BarFeed, socketPath: String?, outputFD: Int32 = 1)
        throws(ControlError) -> Int32
    {
        signal(SIGPIPE, SIG_IGN)
        var feed = feed
        var connection: Connection? = try Connection(client)
        var retryMilliseconds = firstRetryMilliseconds
        var retryAt: Int64 = 0
        while true {
            if var open = connection {
                do throws(ControlError) {
                    // Lines already read into the client's buffer first: poll would not report them.
                    while let line = try open.client.readLine(timeoutMilliseconds: 0) {
                        let now = Syscall.bootTimeNanoseconds()
                        if try feed.receive(line, now: now, subscribeID: open.subscribeID, listID: open.listID) {
                            open.listID = try open.client.send(.list(includingEnded: false))
                        }
                    }
                    connection = open
                } catch {
                    guard case .unavailable = error else { throw error }
                    connection = nil
                    retryMilliseconds = firstRetryMilliseconds
                    retryAt = Syscall.bootTimeNanoseconds() + retryMilliseconds * 1_000_000
                }
            }
            let now = Syscall.bootTimeNanoseconds()
            if let text = feed.changedLine(now: now, wallNow: Date()) {
                do {
                    try Syscall.writeAll(outputFD, Array(text.utf8))
                } catch {
                    return 0  // EPIPE: the bar went away
                }
            }
            var timeout = feed.waitMilliseconds(now: now)
            if connection == nil {
                let untilRetry = Int32(max(0, (retryAt - now + 999_999) / 1_000_000))
                timeout = timeout < 0 ? untilRetry : min(timeout, untilRetry)
            }
            var descriptors = [pollfd(fd: outputFD, events: 0, revents: 0)]
            if let open = connection {
                descriptors.append(pollfd(fd: open.client.fd, events: Int16(POLLIN), revents: 0))
            }
            if poll(&descriptors, nfds_t(descriptors.count), timeout) < 0 && errno != EINTR {
                throw .unavailable("poll: \(SystemError("poll", errno: errno))")
            }
            // A pipe whose reader closed reports POLLERR to its writer, a hung-up terminal POLLHUP, a
            // closed standard output POLLNVAL: each time, nobody reads the lines any more.
            if descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return 0 }
            if connection == nil && Syscall.bootTimeNanoseconds() >= retryAt {
                do throws(ControlError) {
                    connection = try Connection(ControlClient.connect(explicitPath: socketPath, autostart: false))
                } catch {
                    retryMilliseconds = min(retryMilliseconds * 2, longestRetryMilliseconds)
                    retryAt = Syscall.bootTimeNanoseconds() + retryMilliseconds * 1_000_000
                }
            }
        }
    }
}
