import Glibc
import TimerModel
import TimerProtocol
import TimerService
import TimerSystem

/// Shares of the daemon between users (docs/fairness.md): who may connect, and closing idle
/// connections so that a silent client holds no slot for long.
extension Daemon {
    /// Whether `uid` is privileged for connection shares: root or the daemon's own uid (they keep
    /// ``DaemonConfig/reservedConnections`` and have no per-user share).
    func isPrivileged(_ uid: UInt32) -> Bool { uid == 0 || uid == getuid() }

    /// Why a new connection from `uid` is refused, or `nil` to accept it.
    ///
    /// The rules, in order: nobody past `max_connections`; other users together not into the last
    /// ``DaemonConfig/reservedConnections`` slots; one other user not past
    /// `max_connections_per_user`.
    ///
    /// - Parameter uid: the peer's uid.
    /// - Returns: the `-32006` message, or `nil`.
    func admissionRefusal(uid: UInt32) -> String? {
        let total = connections.count
        if total >= config.maximumConnections {
            return "timerd has \(config.maximumConnections) connections, its limit; try again later"
        }
        guard !isPrivileged(uid) else { return nil }
        let shared = config.maximumConnections - config.reservedConnections
        if total >= shared {
            return
                "timerd has \(total) connections; the last \(config.reservedConnections) are kept for root; try again later"
        }
        let own = connectionsPerUID[uid, default: 0]
        if own >= config.maximumConnectionsPerUser {
            return
                "uid \(uid) has \(own) connections, the limit per user (max_connections_per_user); close some and try again"
        }
        return nil
    }

    /// Closes every connection idle past `idle_timeout` (no pending wait, nothing queued, no
    /// incomplete line, nothing read or written for that long), telling it why with `-32005`.
    func closeIdleConnections() {
        let now = Syscall.bootTimeNanoseconds()
        let timeout = Int64(config.idleTimeoutSeconds * 1e9)
        for connection in connections.values {
            guard let deadline = connection.state.idleDeadline(timeout: timeout), now >= deadline else { continue }
            let seconds = DurationFormatter.number(config.idleTimeoutSeconds)
            let error = RPCError(
                .requestTimeout, "connection idle for \(seconds) s with no pending wait; closing it")
            connection.state.expirePartialLine(reply: TimerService.errorLine(id: .null, error))
            log("client \(connection.token) (uid \(connection.uid)): idle for \(seconds) s; closed")
            flush(connection)
            if connections[connection.token] != nil { updateInterest(connection) }
        }
    }
}
