import CLinux
import Glibc

/// Socket activation (man sd_listen_fds(3), systemd.socket(5)): adopts the listening socket that
/// systemd, or `systemd-socket-activate`, passes to the daemon as a descriptor from 3 up.
///
/// ``parse(environment:pid:)`` is a pure function of the environment; ``adoptControlSocket(environment:pid:)``
/// also checks the descriptor and prepares it.
public enum SocketActivation {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3
    /// The name timerd's socket unit gives its socket (`FileDescriptorName=control`).
    public static let controlName = "control"
    /// The variables of the protocol, unset once read so that children do not inherit them.
    public static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// One passed descriptor and its name (`unknown` when `LISTEN_FDNAMES` is absent, as in sd_listen_fds_with_names(3)).
    public struct PassedDescriptor: Sendable, Equatable {
        /// The descriptor number (3, 4, …).
        public var fd: Int32
        /// Its `FileDescriptorName=`.
        public var name: String

        /// Creates a passed descriptor.
        public init(fd: Int32, name: String) {
            self.fd = fd
            self.name = name
        }
    }

    /// Why passed descriptors cannot be used.
    public enum ActivationError: Error, Equatable, Sendable, CustomStringConvertible {
        /// `LISTEN_FDS` or `LISTEN_PID` is not a number.
        case malformed(variable: String, value: String)
        /// `LISTEN_FDNAMES` does not have one name per descriptor.
        case nameCountMismatch(count: Int, names: Int)
        /// Descriptors were passed but none is named `control` (and there is not exactly one).
        case noControlSocket(names: [String])
        /// The descriptor is not a listening `AF_UNIX` `SOCK_STREAM` socket.
        case wrongSocket(fd: Int32, reason: String)

        /// What is wrong and what is expected.
        public var description: String {
            switch self {
            case .malformed(let variable, let value):
                return "\(variable)=\(value) is not a whole number (see man sd_listen_fds)"
            case .nameCountMismatch(let count, let names):
                return "LISTEN_FDS=\(count) but LISTEN_FDNAMES has \(names) names"
            case .noControlSocket(let names):
                return "no passed socket is named \"control\" (names: \(names.joined(separator: ", "))); "
                    + "set FileDescriptorName=control in the socket unit"
            case .wrongSocket(let fd, let reason):
                return "passed descriptor \(fd) is not a listening AF_UNIX stream socket: \(reason)"
            }
        }
    }

    /// The descriptors passed to process `pid` by `environment` (man sd_listen_fds(3)).
    ///
    /// - Parameters:
    ///   - environment: the environment (`LISTEN_PID`, `LISTEN_FDS`, `LISTEN_FDNAMES`).
    ///   - pid: this process's id.
    /// - Returns: the descriptors; empty when none were passed, or they were passed to another
    ///   process (`LISTEN_PID` differs).
    /// - Throws: ``ActivationError/malformed(variable:value:)``, ``ActivationError/nameCountMismatch(count:names:)``.
    public static func parse(environment: [String: String], pid: Int32) throws(ActivationError) -> [PassedDescriptor] {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else { return [] }
        guard let owner = Int32(pidText) else { throw .malformed(variable: "LISTEN_PID", value: pidText) }
        guard owner == pid else { return [] }
        guard let count = Int(countText), count >= 0, count <= 4_096 else {
            throw .malformed(variable: "LISTEN_FDS", value: countText)
        }
        var names = [String](repeating: "unknown", count: count)
        if let text = environment["LISTEN_FDNAMES"] {
            let given = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard given.count == count else { throw .nameCountMismatch(count: count, names: given.count) }
            names = given
        }
        return names.enumerated().map { PassedDescriptor(fd: firstDescriptor + Int32($0.offset), name: $0.element) }
    }

    /// Chooses the control socket among `passed`: the one named `control`, else the only one when
    /// `LISTEN_FDNAMES` was absent (`hasNames` false) and exactly one descriptor was passed.
    ///
    /// - Parameters:
    ///   - passed: the descriptors from ``parse(environment:pid:)``.
    ///   - hasNames: whether `LISTEN_FDNAMES` was set.
    /// - Returns: the descriptor, or `nil` when none was passed.
    /// - Throws: ``ActivationError/noControlSocket(names:)``.
    public static func controlDescriptor(in passed: [PassedDescriptor], hasNames: Bool) throws(ActivationError)
        -> Int32?
    {
        if passed.isEmpty { return nil }
        if let named = passed.first(where: { $0.name == controlName }) { return named.fd }
        if !hasNames && passed.count == 1 { return passed[0].fd }
        throw .noControlSocket(names: passed.map(\.name))
    }

    /// Adopts the passed control socket: finds it, checks that it is a listening `AF_UNIX`
    /// `SOCK_STREAM` socket (`getsockopt` `SO_TYPE`, `SO_DOMAIN`, `SO_ACCEPTCONN`), sets
    /// `FD_CLOEXEC` and `O_NONBLOCK` on it and on every other passed descriptor's close-on-exec,
    /// and unsets ``variables`` in the process environment.
    ///
    /// - Parameters:
    ///   - environment: the environment to read.
    ///   - pid: this process's id.
    /// - Returns: the listening descriptor, or `nil` when none was passed (then bind your own).
    /// - Throws: ``ActivationError`` or ``SystemError`` from `getsockopt`/`fcntl`.
    public static func adoptControlSocket(environment: [String: String], pid: Int32) throws -> Int32? {
        let passed = try parse(environment: environment, pid: pid)
        for name in variables { unsetenv(name) }
        guard let fd = try controlDescriptor(in: passed, hasNames: environment["LISTEN_FDNAMES"] != nil) else {
            return nil
        }
        try check(fd)
        for descriptor in passed { try Syscall.setCloseOnExec(descriptor.fd) }
        try Syscall.setNonBlocking(fd)
        return fd
    }

    /// Checks that `fd` is a listening `AF_UNIX` `SOCK_STREAM` socket.
    ///
    /// - Throws: ``ActivationError/wrongSocket(fd:reason:)`` or ``SystemError``.
    public static func check(_ fd: Int32) throws {
        let type: Int32
        do {
            type = try option(fd, SO_TYPE, "SO_TYPE")
        } catch let error as SystemError where error.errno == .notSocket {
            throw ActivationError.wrongSocket(fd: fd, reason: "not a socket")
        }
        guard type == Int32(SOCK_STREAM.rawValue) else {
            throw ActivationError.wrongSocket(fd: fd, reason: "SO_TYPE \(type)")
        }
        let domain = try option(fd, TIMERD_SO_DOMAIN, "SO_DOMAIN")
        guard domain == AF_UNIX else { throw ActivationError.wrongSocket(fd: fd, reason: "SO_DOMAIN \(domain)") }
        let listening = try option(fd, SO_ACCEPTCONN, "SO_ACCEPTCONN")
        guard listening != 0 else { throw ActivationError.wrongSocket(fd: fd, reason: "not listening") }
    }

    private static func option(_ fd: Int32, _ name: Int32, _ label: String) throws -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try Syscall.retrying("getsockopt(\(label)) on fd \(fd)", { getsockopt(fd, SOL_SOCKET, name, &value, &length) })
        return value
    }
}
