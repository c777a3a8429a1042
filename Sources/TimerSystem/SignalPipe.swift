import Glibc

private nonisolated(unsafe) var signalPipeWriteEnd: Int32 = -1

/// Turns signals into bytes on a pipe that the event loop watches (the self-pipe trick): the
/// handler only calls `write(2)`, which is async-signal-safe (man signal-safety(7)).
public final class SignalPipe {
    /// The read end: one byte per signal received, the signal's number.
    public let readEnd: Int32
    private let writeEnd: Int32

    /// Installs handlers for `signals` and ignores `SIGPIPE` process-wide, so a vanished client is
    /// an `EPIPE`, not a death. Only one instance may exist per process.
    ///
    /// - Parameter signals: the signals to catch (e.g. `SIGTERM`, `SIGINT`, `SIGHUP`).
    /// - Throws: ``SystemError`` from `pipe`, `fcntl` or `sigaction`.
    public init(catching signals: [Int32]) throws {
        var ends: [Int32] = [0, 0]
        try Syscall.retrying("pipe", { pipe(&ends) })
        for end in ends {
            try Syscall.setCloseOnExec(end)
            try Syscall.setNonBlocking(end)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
        signalPipeWriteEnd = writeEnd
        signal(SIGPIPE, SIG_IGN)
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { received in
                var byte = UInt8(truncatingIfNeeded: received)
                let saved = errno
                _ = write(signalPipeWriteEnd, &byte, 1)
                errno = saved
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            try Syscall.retrying("sigaction", { sigaction(number, &action, nil) })
        }
        // A parent may have spawned us with these signals blocked (Foundation's Process, some
        // shells); unblock them, or SIGTERM would never arrive.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in signals { sigaddset(&unblock, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    deinit {
        Syscall.close(readEnd)
        Syscall.close(writeEnd)
    }

    /// The signals received since the last call, in order.
    public func drain() -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 64)
        var received: [Int32] = []
        while true {
            let count = Glibc.read(readEnd, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer.prefix(count).map { Int32($0) }
        }
        return received
    }
}
