import Glibc

/// A socket path claimed by one daemon: the lock that makes bind-or-replace atomic, and the
/// identity of the socket file bound, so that stopping removes only that file.
///
/// ``UnixSocket/listen(_:mode:backlog:)`` alone is not atomic: two daemons started at the same
/// moment on a path holding a stale socket can both find nobody answering, and the second then
/// unlinks the first one's fresh socket and binds its own. Both run, one unreachable, and
/// stopping that one unlinked the live daemon's socket.
///
/// The claim takes `flock(2)` (`LOCK_EX | LOCK_NB`) on `<path>.lock` before it looks at the path,
/// and holds it for the daemon's life; the kernel drops it when the process exits, even on
/// SIGKILL, so a crash leaves no stale lock (the file itself stays, empty but for the owner's pid,
/// and is reused: removing it could let two daemons lock two different files). Under the lock, the
/// stale-socket check, the `unlink` and the `bind` happen as one step for every daemon that uses a
/// claim. After `bind`, the socket file's device and inode are recorded; ``removeSocketFile()``
/// unlinks the path only if it still names that file (swift-nio's `cleanupUnixDomainSocket`
/// compares the file type; this compares the identity too).
public final class SocketFileClaim {
    /// The socket's path.
    public let path: String
    /// The lock file's path: the socket's path with `.lock` added.
    public var lockPath: String { path + ".lock" }
    /// The lock file's descriptor; closing it releases the claim.
    private let lockDescriptor: Int32
    /// Device and inode of the socket file this claim bound; `nil` before ``listen(mode:backlog:)``.
    private var boundFile: (device: UInt64, inode: UInt64)?

    /// Claims `path`: checks it and takes the lock next to it.
    ///
    /// - Parameter path: the socket path (its directory must exist and be writable).
    /// - Throws: ``UnixSocket/AddressError/emptyPath`` or ``UnixSocket/AddressError/pathTooLong(_:bytes:)``;
    ///   ``UnixSocket/AddressError/inUse(_:)`` when another process holds the lock (it is starting
    ///   or serving on `path`); ``SystemError`` when the lock file cannot be opened or locked.
    public init(path: String) throws {
        try UnixSocket.checkPath(path)
        self.path = path
        let lock = path + ".lock"
        let fd = try Syscall.retrying("open \(lock)", { open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) })
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            Syscall.close(fd)
            guard code == EWOULDBLOCK else { throw SystemError("flock \(lock)", errno: code) }
            throw UnixSocket.AddressError.inUse(path)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        lockDescriptor = fd
    }

    deinit { Syscall.close(lockDescriptor) }

    /// Binds and listens on the claimed path (replacing a stale socket, as
    /// ``UnixSocket/listen(_:mode:backlog:)`` does) and records the socket file's identity.
    ///
    /// - Parameters:
    ///   - mode: the socket file's permission bits.
    ///   - backlog: the listen backlog.
    /// - Returns: the listening descriptor (the caller owns it) and whether a stale socket was removed.
    /// - Throws: what ``UnixSocket/listen(_:mode:backlog:)`` throws; ``SystemError`` `lstat` when
    ///   the bound file cannot be examined.
    public func listen(mode: mode_t, backlog: Int32) throws -> (fd: Int32, removedStale: Bool) {
        let bound = try UnixSocket.listen(path, mode: mode, backlog: backlog)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            Syscall.close(bound.fd)
            throw SystemError("lstat \(path)", errno: code)
        }
        boundFile = (UInt64(info.st_dev), UInt64(info.st_ino))
        return bound
    }

    /// Removes the socket file if the path still names the file this claim bound.
    ///
    /// - Returns: whether it was removed; `false` when nothing was bound, the path is gone, or it
    ///   now names another file (someone replaced it: that file is left alone).
    @discardableResult
    public func removeSocketFile() -> Bool {
        guard let boundFile else { return false }
        var info = stat()
        guard lstat(path, &info) == 0, UInt64(info.st_dev) == boundFile.device, UInt64(info.st_ino) == boundFile.inode
        else { return false }
        return unlink(path) == 0
    }
}
