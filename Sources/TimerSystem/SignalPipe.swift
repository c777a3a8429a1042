import Glibc

private nonisolated(unsafe) var signalPipeWriteEnd: Int32 = -1

/// Turns signals into bytes on a pipe that the event loop watches (the self-pipe trick): the
/// handler only calls `write(2)`, which is async-signal-safe (man signal-safety(7)).
public final class SignalPipe {
    /// The read end: one byte per signal received, the signal's number.
    public let readEnd: FileDescriptor
    /// The write end; the handler writes to its number (kept in a global the handler can reach).
    private let writeEnd: FileDescriptor

    /// Installs handlers for `signals` and ignores `SIGPIPE` process-wide, so a vanished client is
    /// an `EPIPE`, not a death. Only one instance may exist per process.
    ///
    /// - Parameter signals: the signals to catch (e.g. `SIGTERM`, `SIGINT`, `SIGHUP`).
    /// - Throws: ``SystemError`` from `pipe`, `fcntl` or `sigaction`.
    public init(catching signals: [Int32]) throws(SystemError) {
        var ends: [Int32] = [0, 0]
        try Syscall.retrying("pipe", { pipe(&ends) })
        readEnd = FileDescriptor(adopting: ends[0])
        writeEnd = FileDescriptor(adopting: ends[1])
        for end in ends {
            try Syscall.setCloseOnExec(end)
            try Syscall.setNonBlocking(end)
        }
        signalPipeWriteEnd = ends[1]
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
        signalPipeWriteEnd = -1
    }

    /// The signals received since the last call, in order.
    ///
    /// - Returns: the signal numbers.
    public func drain() -> [Int32] {
        var buffer = [UInt8](repeating: 0, count: 64)
        var received: [Int32] = []
        while let count = try? readEnd.read(into: &buffer), count > 0 {
            received += buffer.prefix(count).map { Int32($0) }
        }
        return received
    }
}
