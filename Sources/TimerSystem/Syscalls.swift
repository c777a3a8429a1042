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

    /// Reads up to `capacity` bytes into the start of `buffer` (grown to `capacity` if smaller).
    ///
    /// - Parameters:
    ///   - fd: a descriptor that no ``FileDescriptor`` owns (or its ``FileDescriptor/rawValue``).
    ///   - buffer: where the bytes go.
    ///   - capacity: the most bytes read.
    /// - Returns: the count read; 0 at end of file.
    /// - Throws: ``SystemError`` (``Errno/wouldBlock`` for a non-blocking descriptor with nothing to
    ///   read; ``FileDescriptor/read(into:)-([UInt8])`` returns `nil` for that instead).
    public static func read(_ fd: Int32, into buffer: inout [UInt8], capacity: Int = 65_536) throws(SystemError)
        -> Int
    {
        if buffer.count < capacity { buffer = [UInt8](repeating: 0, count: capacity) }
        return try retrying("read", { buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, capacity) } })
    }

    /// Writes as much of `bytes` as the descriptor takes now.
    ///
    /// - Parameters:
    ///   - fd: a descriptor that no ``FileDescriptor`` owns (or its ``FileDescriptor/rawValue``).
    ///   - bytes: the bytes to write.
    /// - Returns: how many bytes were written.
    /// - Throws: ``SystemError`` (``Errno/wouldBlock`` when a non-blocking descriptor is full,
    ///   ``Errno/brokenPipe`` when the peer left).
    public static func write(_ fd: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemError) -> Int {
        try retrying("write", { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } })
    }

    /// Writes all of `bytes`, waiting with `poll` when a non-blocking descriptor is full.
    ///
    /// - Throws: ``SystemError`` when the descriptor fails.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            do {
                offset += try write(fd, bytes[offset...])
            } catch let error where error.errno == .wouldBlock {
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

    /// Hands the C library's freed but kept heap memory back to the kernel (`malloc_trim(3)`): glibc
    /// keeps what was freed in its arenas, so memory that many closed connections held stays in the
    /// resident size until this is called. It walks the heap: call it rarely (after a large release).
    ///
    /// - Returns: whether some memory was released.
    @discardableResult
    public static func releaseFreedMemory() -> Bool {
        malloc_trim(0) == 1
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
