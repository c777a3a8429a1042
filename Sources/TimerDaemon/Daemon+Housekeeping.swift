import TimerSystem

/// The per-connection time-outs (an incomplete request line, an idle connection) without a walk of
/// every connection on every turn (with 1,000 silent connections, such walks on each turn would
/// make every ping's round trip several times longer).
///
/// A connection's deadlines can only come earlier when something happens to it, and everything
/// that happens to a connection goes through accepting, serving or flushing it, which record its
/// token in ``touchedTokens``. Each turn re-reads the deadlines of those connections into
/// ``connectionDeadline``, a lower bound of every connection's deadline; the full passes
/// (`expirePartialLines`, `closeIdleConnections`) run only once that bound is reached, and then
/// recompute it exactly. A deadline that moved later (activity) only makes one pass early.
extension Daemon {
    /// The earliest time-out of `connection`, in boot-time nanoseconds, or `nil` for none: its
    /// incomplete line's (as `isPartialLineExpired` counts it) or its idle deadline.
    func timeoutDeadline(of connection: Connection) -> Int64? {
        var due: Int64?
        if let since = connection.state.partialSince, !connection.state.isStreaming,
            !connection.state.output.isClosingAfterFlush
        {
            due = since + Int64(options.requestTimeoutSeconds * 1e9)
        }
        if let idle = connection.state.idleDeadline(timeout: Int64(config.idleTimeoutSeconds * 1e9)) {
            due = min(due ?? idle, idle)
        }
        return due
    }

    /// Once per turn: folds the touched connections' deadlines into ``connectionDeadline`` and,
    /// when it is reached, expires incomplete lines and closes idle connections, then recomputes it.
    ///
    /// - Complexity: O(t) for the t connections touched this turn; O(c) over every connection only
    ///   on a turn where some deadline is due.
    func connectionHousekeeping() {
        trimHeapIfDue()
        for token in touchedTokens {
            guard let connection = connections[token] else { continue }
            connection.isTouched = false
            guard let due = timeoutDeadline(of: connection) else { continue }
            connectionDeadline = min(connectionDeadline ?? due, due)
        }
        touchedTokens.removeAll(keepingCapacity: true)
        guard let due = connectionDeadline, Syscall.bootTimeNanoseconds() >= due else { return }
        expirePartialLines()
        closeIdleConnections()
        var earliest: Int64?
        for connection in connections.values {
            guard let due = timeoutDeadline(of: connection) else { continue }
            earliest = min(earliest ?? due, due)
        }
        connectionDeadline = earliest
        // Touched by the passes (a flush): the bound just computed includes them.
        for token in touchedTokens { connections[token]?.isTouched = false }
        touchedTokens.removeAll(keepingCapacity: true)
    }

    /// The bytes closed connections must have released before the heap is trimmed (8 MiB).
    static let heapTrimThreshold = 8 << 20

    /// Gives the heap's free memory back to the kernel (``Syscall/releaseFreedMemory()``) once
    /// closed connections have released ``heapTrimThreshold`` bytes of queued notifications and
    /// replies since the last time: without it, glibc keeps what 250 closed subscribers held in its
    /// arenas and the resident size stays at its peak (docs/fairness.md).
    func trimHeapIfDue() {
        guard releasedSinceTrim >= Self.heapTrimThreshold else { return }
        releasedSinceTrim = 0
        Syscall.releaseFreedMemory()
    }

    /// Records that something happened to `connection` this turn (accepted, served, flushed), once.
    func touch(_ connection: Connection) {
        guard !connection.isTouched else { return }
        connection.isTouched = true
        touchedTokens.append(connection.token)
    }
}
