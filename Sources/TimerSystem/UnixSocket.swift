import CLinux
import Glibc

/// Unix-domain stream sockets: address checks, listening, connecting and peer credentials.
///
/// See man unix(7): `sun_path` holds 108 bytes including the terminating NUL, so a path of more
/// than 107 bytes is refused before `bind` or `connect`.
public enum UnixSocket {
    /// The longest socket path, in bytes (`sun_path` minus the NUL).
    public static let maximumPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Errors of socket set-up that are not a single failed call.
    public enum AddressError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The path is longer than `sun_path` allows.
        case pathTooLong(String, bytes: Int)
        /// The path is the empty string.
        case emptyPath
        /// Another process answers on the path, or holds its lock file (``SocketFileClaim``).
        case inUse(String)
        /// Something other than a socket is at the path; `kind` names it ("a directory",
        /// "a regular file" …, from ``UnixSocket/fileKind(at:followingLinks:)``).
        case notASocket(String, kind: String)

        /// What went wrong and what is allowed.
        public var description: String {
            switch self {
            case .pathTooLong(let path, let bytes):
                return
                    "socket path too long: \(bytes) bytes, the limit is \(UnixSocket.maximumPathBytes) bytes (sun_path, man unix(7)): \(path)"
            case .emptyPath:
                return "socket path is empty: give the path of a socket file, e.g. /run/user/1000/timerd/timerd.sock"
            case .inUse(let path):
                return "another timerd is already listening on \(path)"
            case .notASocket(let path, let kind):
                return "\(path) is \(kind), not a socket; choose another --socket"
            }
        }
    }

    /// Checks that `path` can name a socket at all: not empty and within `sun_path`.
    ///
    /// - Parameter path: the socket path as given (`--socket`).
    /// - Throws: ``AddressError/emptyPath`` or ``AddressError/pathTooLong(_:bytes:)``.
    public static func checkPath(_ path: String) throws(AddressError) {
        let count = path.utf8.count
        if count == 0 { throw .emptyPath }
        if count > maximumPathBytes { throw .pathTooLong(path, bytes: count) }
    }

    /// What kind of file is at `path` when it is not a socket.
    ///
    /// - Parameters:
    ///   - path: the path to look at.
    ///   - followingLinks: `stat` (what `connect` sees) rather than `lstat` (what `bind` replaces).
    /// - Returns: `nil` when nothing is there or it is a socket; else `"a directory"`,
    ///   `"a regular file"`, `"a symbolic link"`, `"a named pipe"`, `"a device"` or `"not a socket"`.
    public static func fileKind(at path: String, followingLinks: Bool) -> String? {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFSOCK: return nil
        case S_IFDIR: return "a directory"
        case S_IFREG: return "a regular file"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a named pipe"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "a file of another kind"
        }
    }

    /// Builds the address for `path`.
    ///
    /// - Throws: ``AddressError/emptyPath`` or ``AddressError/pathTooLong(_:bytes:)``.
    public static func address(_ path: String) throws -> (sockaddr_un, socklen_t) {
        try checkPath(path)
        let bytes = Array(path.utf8)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
            raw[bytes.count] = 0
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path).map { $0 + bytes.count + 1 }
        return (address, socklen_t(length ?? MemoryLayout<sockaddr_un>.size))
    }

    /// Connects to the socket at `path` (blocking connect, then the descriptor is returned as is).
    ///
    /// - Parameter path: the socket's path.
    /// - Returns: the connected descriptor (close-on-exec); the caller owns it (adopt it with
    ///   ``FileDescriptor/init(adopting:)`` or close it with ``Syscall/close(_:)``).
    /// - Throws: ``AddressError`` or ``SystemError`` (`ENOENT`, `ECONNREFUSED`, `EACCES` …).
    public static func connect(_ path: String) throws -> Int32 {
        var (address, length) = try self.address(path)
        let socket = try stream(flags: 0)
        let fd = socket.rawValue
        try withUnsafePointer(to: &address) { pointer throws in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws in
                _ = try Syscall.retrying("connect \(path)", { Glibc.connect(fd, generic, length) })
            }
        }
        return socket.release()
    }

    /// A new `AF_UNIX` `SOCK_STREAM` socket, close-on-exec, with `flags` (`SOCK_NONBLOCK`) added.
    private static func stream(flags: Int32) throws(SystemError) -> FileDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | flags
        return FileDescriptor(adopting: try Syscall.retrying("socket", { socket(AF_UNIX, type, 0) }))
    }

    /// Whether a process answers on `path` right now.
    public static func isAnswering(_ path: String) -> Bool {
        guard let fd = try? connect(path) else { return false }
        FileDescriptor(adopting: fd).close()
        return true
    }

    /// Binds and listens on `path` with the given file mode, removing a stale socket left by a dead
    /// process first (after swift-nio's `cleanupUnixDomainSocket`): an old file there is removed only
    /// if it is a socket and nobody answers on it.
    ///
    /// - Parameters:
    ///   - path: the socket path.
    ///   - mode: the socket file's permission bits (0600 for a user daemon).
    ///   - backlog: the listen backlog.
    /// - Returns: the listening, non-blocking, close-on-exec descriptor, which the caller owns (adopt
    ///   it with ``FileDescriptor/init(adopting:)``), and whether a stale socket was removed.
    /// - Throws: ``AddressError/inUse(_:)`` when another process answers, ``AddressError/notASocket(_:kind:)``,
    ///   ``AddressError/pathTooLong(_:bytes:)``, or ``SystemError``.
    public static func listen(_ path: String, mode: mode_t = 0o600, backlog: Int32 = 1_024) throws -> (
        fd: Int32, removedStale: Bool
    ) {
        var (address, length) = try self.address(path)
        var removedStale = false
        var info = stat()
        if lstat(path, &info) == 0 {
            if let kind = fileKind(at: path, followingLinks: false) { throw AddressError.notASocket(path, kind: kind) }
            if isAnswering(path) { throw AddressError.inUse(path) }
            unlink(path)
            removedStale = true
        }
        let socket = try stream(flags: Int32(SOCK_NONBLOCK.rawValue))
        let fd = socket.rawValue
        let oldMask = umask(~mode & 0o777)
        defer { umask(oldMask) }
        try withUnsafePointer(to: &address) { pointer throws in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws in
                _ = try Syscall.retrying("bind \(path)", { bind(fd, generic, length) })
            }
        }
        try Syscall.retrying("chmod \(path)", { chmod(path, mode) })
        try Syscall.retrying("listen \(path)", { Glibc.listen(fd, backlog) })
        return (socket.release(), removedStale)
    }

    /// The peer's credentials at `connect()` time (`SO_PEERCRED`, man unix(7)).
    ///
    /// - Returns: pid, uid and gid of the peer.
    /// - Throws: ``SystemError`` from `getsockopt`.
    public static func peerCredentials(_ fd: Int32) throws -> (pid: Int32, uid: UInt32, gid: UInt32) {
        var credentials = timerd_ucred()
        var length = socklen_t(MemoryLayout<timerd_ucred>.size)
        try Syscall.retrying(
            "getsockopt(SO_PEERCRED)", { getsockopt(fd, SOL_SOCKET, TIMERD_SO_PEERCRED, &credentials, &length) })
        return (credentials.pid, credentials.uid, credentials.gid)
    }
}
