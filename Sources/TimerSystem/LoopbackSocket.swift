import CLinux
import Glibc

/// TCP sockets on the loopback interface only: what `timerd --metrics 127.0.0.1:PORT` listens on.
///
/// Only the two loopback addresses can be bound here (man ip(7), man ipv6(7)): no name is
/// resolved and no other interface is reachable, so a metrics endpoint cannot be exposed to the
/// network by a typo.
public enum LoopbackSocket {
    /// The loopback address to bind.
    public enum Host: Sendable, Hashable {
        /// `127.0.0.1` (`INADDR_LOOPBACK`).
        case ipv4
        /// `::1` (`in6addr_loopback`), IPv6 only (`IPV6_V6ONLY`).
        case ipv6

        /// The address as text: `127.0.0.1` or `::1`.
        public var text: String {
            switch self {
            case .ipv4: return "127.0.0.1"
            case .ipv6: return "::1"
            }
        }
    }

    /// Binds and listens on the loopback address `host` at `port`.
    ///
    /// - Parameters:
    ///   - host: which loopback address.
    ///   - port: the TCP port, 0 for one the kernel picks (the returned port says which).
    ///   - backlog: the listen backlog.
    /// - Returns: the listening, non-blocking, close-on-exec descriptor, which the caller owns
    ///   (adopt it with ``FileDescriptor/init(adopting:)``), and the port bound.
    /// - Throws: ``SystemError`` from `socket`, `setsockopt`, `bind` (`EADDRINUSE` when the port
    ///   is taken), `listen` or `getsockname`.
    public static func listen(host: Host, port: UInt16, backlog: Int32 = 64) throws(SystemError) -> (
        fd: Int32, port: UInt16
    ) {
        let family = host == .ipv4 ? AF_INET : AF_INET6
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        let socket = FileDescriptor(adopting: try Syscall.retrying("socket", { Glibc.socket(family, type, 0) }))
        let fd = socket.rawValue
        var on: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        try Syscall.retrying("setsockopt(SO_REUSEADDR)", { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, size) })
        let name = "bind \(host.text) port \(port)"
        switch host {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
            try bind(fd, &address, name: name)
        case .ipv6:
            try Syscall.retrying(
                "setsockopt(IPV6_V6ONLY)", { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, size) })
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0[15] = 1 }
            try bind(fd, &address, name: name)
        }
        try Syscall.retrying("listen \(host.text) port \(port)", { Glibc.listen(fd, backlog) })
        var bound = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        try withUnsafeMutablePointer(to: &bound) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(SystemError) in
                _ = try Syscall.retrying("getsockname", { getsockname(fd, generic, &length) })
            }
        }
        // sin_port and sin6_port sit at the same offset (after the family).
        return (socket.release(), UInt16(bigEndian: bound.sin6_port))
    }

    /// Binds `fd` to the address in `address` (a `sockaddr_in` or `sockaddr_in6`).
    private static func bind<Address>(_ fd: Int32, _ address: inout Address, name: String) throws(SystemError) {
        let length = socklen_t(MemoryLayout<Address>.size)
        try withUnsafePointer(to: &address) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(SystemError) in
                _ = try Syscall.retrying(name, { Glibc.bind(fd, generic, length) })
            }
        }
    }
}
