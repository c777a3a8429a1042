import CLinux
import Glibc

/// Every system call the service makes, behind small wrappers: `-1` becomes a thrown ``SystemError``
/// carrying the call's name and `errno`, and `EINTR` is retried (after swift-system's `Syscalls.swift`).
public enum Syscall {
    /// Runs `body` until it does not fail with `EINTR`.
    ///
    /// - Parameters:
    ///   - name: the call's name for the error, built only on failure.
    ///   - body: the call; -1 means failure with `errno` set.
    /// - Returns: what `body` returned.
    /// - Throws: ``SystemError`` with `name` when it returns -1 for another reason.
    @discardableResult
    public static func retrying<T: FixedWidthInteger>(_ name: @autoclosure () -> String, _ body: () -> T)
        throws(SystemError) -> T
    {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = Errno.current
            if code == .interrupted { continue }
            throw SystemError(name(), errno: code)
        }
    }

    /// Closes a descriptor number that no ``FileDescriptor`` owns, ignoring errors (after `close`
    /// the descriptor is gone either way; see close(2)). Prefer an owned ``FileDescriptor``.
    public static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Reads up to `capacity` bytes.
    ///
    /// - Returns: the bytes read; empty at end of file.
    /// - Throws: ``SystemError`` (`EAGAIN` for a non-blocking descriptor with nothing to read).
    public static func read(_ fd: Int32, into buffer: inout [UInt8], capacity: Int = 65_536) throws -> Int {
        if buffer.count < capacity { buffer = [UInt8](repeating: 0, count: capacity) }
        let count = try buffer.withUnsafeMutableBytes { raw throws in
            try retrying("read", { Glibc.read(fd, raw.baseAddress, capacity) })
        }
        return count
    }

    /// Writes as much of `bytes` as the descriptor takes now.
    ///
    /// - Returns: how many bytes were written.
    /// - Throws: ``SystemError`` (`EAGAIN` when a non-blocking descriptor is full, `EPIPE` when the peer left).
    public static func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws -> Int {
        try bytes.withUnsafeBytes { raw throws in
            try retrying("write", { Glibc.write(fd, raw.baseAddress, raw.count) })
        }
    }

    /// Writes all of `bytes`, waiting with `poll` when a non-blocking descriptor is full.
    ///
    /// - Throws: ``SystemError`` when the descriptor fails.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            do {
                offset += try write(fd, bytes[offset...])
            } catch let error as SystemError where error.errno == .wouldBlock {
                _ = try? Poll.wait(fd, events: Int16(POLLOUT), timeoutMilliseconds: 1_000)
            }
        }
    }

    /// Sets `O_NONBLOCK` on a descriptor.
    ///
    /// - Throws: ``SystemError`` from `fcntl`.
    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try retrying("fcntl(F_GETFL)", { fcntl(fd, F_GETFL) })
        try retrying("fcntl(F_SETFL)", { fcntl(fd, F_SETFL, flags | O_NONBLOCK) })
    }

    /// Sets `FD_CLOEXEC` on a descriptor so that children do not inherit it.
    ///
    /// - Throws: ``SystemError`` from `fcntl`.
    public static func setCloseOnExec(_ fd: Int32) throws(SystemError) {
        let flags = try retrying("fcntl(F_GETFD)", { fcntl(fd, F_GETFD) })
        try retrying("fcntl(F_SETFD)", { fcntl(fd, F_SETFD, flags | FD_CLOEXEC) })
    }

    /// Reads `CLOCK_BOOTTIME` in nanoseconds.
    public static func bootTimeNanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}

/// `poll(2)` on one descriptor.
public enum Poll {
    /// Waits until `fd` is ready for `events` or the time runs out.
    ///
    /// - Parameters:
    ///   - fd: the descriptor.
    ///   - events: `POLLIN`, `POLLOUT` …
    ///   - timeoutMilliseconds: how long to wait; -1 for ever.
    /// - Returns: the events that happened (0 on time-out).
    /// - Throws: ``SystemError`` from `poll`.
    public static func wait(_ fd: Int32, events: Int16, timeoutMilliseconds: Int32) throws -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let ready = try Syscall.retrying("poll", { Glibc.poll(&entry, 1, timeoutMilliseconds) })
        return ready == 0 ? 0 : entry.revents
    }
}

/// Unbuffered writes to the standard streams (`write(2)` on fd 1 and 2; no shared `FILE *` state).
public enum StandardStream {
    /// Writes `text` to standard output.
    public static func out(_ text: String) {
        try? Syscall.writeAll(1, Array(text.utf8))
    }

    /// Writes `text` to standard error.
    public static func error(_ text: String) {
        try? Syscall.writeAll(2, Array(text.utf8))
    }
}
