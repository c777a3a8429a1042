import CLinux
import Glibc

/// An open file descriptor that this value owns: it is closed exactly once, by ``close()`` or when
/// the value goes away (`deinit`), so a descriptor can neither leak nor be closed twice.
///
/// The type is `~Copyable` (after swift-system's `IORing`): passing it `borrowing` lends it,
/// passing it `consuming` hands it over. It is not `Sendable`: one thread owns a descriptor.
/// Every call returns a count, `nil` where a non-blocking descriptor is not ready (`EAGAIN`), or
/// throws ``SystemError`` naming the call; `EINTR` is retried inside.
///
/// ```swift
/// let file = try FileDescriptor.open("/etc/hostname", O_RDONLY)
/// var buffer = [UInt8](repeating: 0, count: 256)
/// let count = try file.read(into: &buffer) ?? 0
/// file.close()  // or let it go out of scope
/// ```
public struct FileDescriptor: ~Copyable {
    /// The descriptor number; valid while this value lives. Do not close it by hand.
    public let rawValue: Int32

    /// Takes ownership of an open descriptor (one passed by systemd, or returned by a C call).
    ///
    /// - Parameter rawValue: an open descriptor that nothing else will close.
    public init(adopting rawValue: Int32) {
        self.rawValue = rawValue
    }

    deinit { _ = Glibc.close(rawValue) }

    /// Closes the descriptor now. Errors are ignored: after `close` the descriptor is gone either
    /// way, and retrying could close one another thread just opened (man close(2)).
    public consuming func close() {
        _ = Glibc.close(rawValue)
        discard self
    }

    /// Gives up ownership without closing: the caller now owns the number.
    ///
    /// - Returns: the descriptor number.
    public consuming func release() -> Int32 {
        let raw = rawValue
        discard self
        return raw
    }

    /// Opens `path` (man open(2)); `O_CLOEXEC` is always added.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - flags: `O_RDONLY`, `O_WRONLY | O_CREAT` …
    ///   - mode: the permission bits of a file that `O_CREAT` creates.
    /// - Returns: the open descriptor.
    /// - Throws: ``SystemError`` `open <path>` (``Errno/noSuchFileOrDirectory`` …).
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(SystemError)
        -> FileDescriptor
    {
        FileDescriptor(adopting: try Syscall.retrying("open \(path)", { Glibc.open(path, flags | O_CLOEXEC, mode) }))
    }

    /// Reads at most `buffer.count` bytes into `buffer` (man read(2)).
    ///
    /// - Parameter buffer: where the bytes go.
    /// - Returns: the count read, 0 at end of file, `nil` when a non-blocking descriptor has nothing now.
    /// - Throws: ``SystemError`` `read` for anything but `EAGAIN` (and `EINTR`, which is retried).
    public borrowing func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        let fd = rawValue
        return try Self.unlessWouldBlock { () throws(SystemError) in
            try Syscall.retrying("read", { Glibc.read(fd, buffer.baseAddress, buffer.count) })
        }
    }

    /// Reads at most `buffer.count` bytes into the start of `buffer`.
    ///
    /// - Parameter buffer: where the bytes go; its size is the most that is read.
    /// - Returns: the count read, 0 at end of file, `nil` when a non-blocking descriptor has nothing now.
    /// - Throws: ``SystemError`` `read`.
    public borrowing func read(into buffer: inout [UInt8]) throws(SystemError) -> Int? {
        let fd = rawValue
        return try Self.unlessWouldBlock { () throws(SystemError) in
            try Syscall.read(fd, into: &buffer, capacity: buffer.count)
        }
    }

    /// Writes as much of `bytes` as the descriptor takes now (man write(2)).
    ///
    /// - Parameter bytes: the bytes to write.
    /// - Returns: the count written, `nil` when a non-blocking descriptor is full.
    /// - Throws: ``SystemError`` `write` (``Errno/brokenPipe`` when the peer left).
    public borrowing func write(_ bytes: ArraySlice<UInt8>) throws(SystemError) -> Int? {
        let fd = rawValue
        return try Self.unlessWouldBlock { () throws(SystemError) in try Syscall.write(fd, bytes) }
    }

    /// Accepts one pending connection on this listening socket, non-blocking and close-on-exec
    /// (man accept4(2)).
    ///
    /// - Returns: the connection, or `nil` when none is pending (`EAGAIN`).
    /// - Throws: ``SystemError`` `accept`; ``Errno/isDescriptorExhaustion`` tells the caller it is out
    ///   of descriptors (see ``DescriptorReserve``).
    public borrowing func accept() throws(SystemError) -> FileDescriptor? {
        let fd = rawValue
        let flags = Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let accepted = try Self.unlessWouldBlock { () throws(SystemError) in
            try Syscall.retrying("accept", { accept4(fd, nil, nil, flags) })
        }
        return accepted.map { FileDescriptor(adopting: $0) }
    }

    /// Runs `body`, turning `EAGAIN` into `nil`.
    private static func unlessWouldBlock<T>(_ body: () throws(SystemError) -> T) throws(SystemError) -> T? {
        do {
            return try body()
        } catch let error where error.errno == .wouldBlock {
            return nil
        }
    }
}

/// Descriptors are owned by one thread (swift-system's `FileDescriptor` is `Sendable` only because
/// it does not own; this one does).
@available(*, unavailable)
extension FileDescriptor: Sendable {}
