import CLinux
import Glibc

/// One field of an `sd_notify` message (man sd_notify(3), systemd 252).
public enum SystemdNotification: Sendable, Equatable {
    /// `READY=1`: start-up (or a reload) is complete.
    case ready
    /// `RELOADING=1`: a reload begins. Always sent together with ``monotonicTime(microseconds:)``.
    case reloading
    /// `MONOTONIC_USEC=…`: the `CLOCK_MONOTONIC` time in microseconds at which a reload began.
    case monotonicTime(microseconds: UInt64)
    /// `STOPPING=1`: shutdown begins.
    case stopping
    /// `WATCHDOG=1`: the keep-alive ping.
    case watchdog
    /// `STATUS=…`: one line for `systemctl status`; line breaks are replaced by spaces.
    case status(String)
    /// `EXTEND_TIMEOUT_USEC=…`: ask for that many more microseconds of start-up or shutdown time.
    case extendTimeout(microseconds: UInt64)

    /// The `KEY=VALUE` line of this field, without the newline.
    public var line: String {
        switch self {
        case .ready: return "READY=1"
        case .reloading: return "RELOADING=1"
        case .monotonicTime(let microseconds): return "MONOTONIC_USEC=\(microseconds)"
        case .stopping: return "STOPPING=1"
        case .watchdog: return "WATCHDOG=1"
        case .status(let text):
            let oneLine = String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
            return "STATUS=\(oneLine)"
        case .extendTimeout(let microseconds): return "EXTEND_TIMEOUT_USEC=\(microseconds)"
        }
    }
}

/// Where `sd_notify` datagrams go: the production socket, or a recorder in tests.
public protocol SystemdNotificationSink: AnyObject {
    /// Sends one datagram.
    ///
    /// - Parameter datagram: the newline-separated `KEY=VALUE` lines.
    /// - Throws: ``SystemError`` when the datagram cannot be sent.
    func send(_ datagram: [UInt8]) throws
}

/// Speaks the `sd_notify` protocol without libsystemd (man sd_notify(3)): one `AF_UNIX`
/// `SOCK_DGRAM` datagram per notification to the address in `$NOTIFY_SOCKET`, and nothing at all
/// when that variable is unset. Also reads the watchdog settings (`WATCHDOG_USEC`, `WATCHDOG_PID`).
///
/// The message helpers are pure functions of their inputs, so tests check them without a socket;
/// ``init(sink:watchdogMicroseconds:)`` accepts a test double.
public final class SystemdNotifier {
    /// Where datagrams go; `nil` when `$NOTIFY_SOCKET` is unset (every send is then a no-op).
    public let sink: (any SystemdNotificationSink)?
    /// The watchdog interval in microseconds (`WATCHDOG_USEC`), when it applies to this process.
    public let watchdogMicroseconds: UInt64?

    /// Creates a notifier from the process environment.
    ///
    /// - Parameters:
    ///   - environment: the environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `WATCHDOG_PID`).
    ///   - pid: this process's id, to check `WATCHDOG_PID` against.
    /// - Throws: ``NotifyAddressError`` when `$NOTIFY_SOCKET` is set but not a usable address,
    ///   ``SystemError`` when the datagram socket cannot be made.
    public convenience init(environment: [String: String], pid: Int32) throws {
        let sink: (any SystemdNotificationSink)?
        if let value = environment["NOTIFY_SOCKET"], !value.isEmpty {
            sink = try DatagramSink(address: try Self.address(value))
        } else {
            sink = nil
        }
        self.init(sink: sink, watchdogMicroseconds: Self.watchdogInterval(environment: environment, pid: pid))
    }

    /// Creates a notifier around a sink (a test double, or `nil` for none).
    ///
    /// - Parameters:
    ///   - sink: where datagrams go.
    ///   - watchdogMicroseconds: the watchdog interval in microseconds, or `nil` for no watchdog.
    public init(sink: (any SystemdNotificationSink)?, watchdogMicroseconds: UInt64?) {
        self.sink = sink
        self.watchdogMicroseconds = watchdogMicroseconds
    }

    /// Whether anything listens (`$NOTIFY_SOCKET` was set).
    public var isEnabled: Bool { sink != nil }

    /// Sends `fields` in one datagram (`RELOADING=1` and `MONOTONIC_USEC=` must share one).
    ///
    /// - Parameter fields: the fields, in order.
    /// - Throws: ``SystemError`` from `sendto`; nothing when notifications are off.
    public func notify(_ fields: [SystemdNotification]) throws {
        guard let sink, !fields.isEmpty else { return }
        try sink.send(Array(Self.datagram(fields).utf8))
    }

    /// The datagram for `fields`: their lines joined by newlines (man sd_notify(3)).
    ///
    /// - Parameter fields: the fields, in order.
    /// - Returns: the text to send.
    public static func datagram(_ fields: [SystemdNotification]) -> String {
        fields.map(\.line).joined(separator: "\n")
    }

    /// The fields that announce a reload: `RELOADING=1` and `MONOTONIC_USEC=` (one datagram).
    ///
    /// - Parameter monotonicMicroseconds: `CLOCK_MONOTONIC` now, in microseconds.
    /// - Returns: the two fields.
    public static func reloading(monotonicMicroseconds: UInt64) -> [SystemdNotification] {
        [.reloading, .monotonicTime(microseconds: monotonicMicroseconds)]
    }

    /// `CLOCK_MONOTONIC` in microseconds, as `MONOTONIC_USEC=` wants it (not wall time).
    public static func monotonicMicroseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1_000
    }

    /// The watchdog interval that applies to process `pid` (man sd_watchdog_enabled(3)):
    /// `WATCHDOG_USEC` when it is a positive integer and `WATCHDOG_PID` is unset or equals `pid`.
    ///
    /// - Parameters:
    ///   - environment: the environment.
    ///   - pid: this process's id.
    /// - Returns: the interval in microseconds, or `nil` for no watchdog.
    public static func watchdogInterval(environment: [String: String], pid: Int32) -> UInt64? {
        guard let text = environment["WATCHDOG_USEC"], let interval = UInt64(text), interval > 0 else {
            return nil
        }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty, Int32(owner) != pid { return nil }
        return interval
    }

    /// A `$NOTIFY_SOCKET` value that cannot be used.
    public enum NotifyAddressError: Error, Equatable, Sendable, CustomStringConvertible {
        /// Neither an absolute path nor `@name`, or longer than `sun_path`.
        case invalid(String)

        /// What is wrong and what is allowed.
        public var description: String {
            switch self {
            case .invalid(let value):
                return "NOTIFY_SOCKET=\(value) is neither an absolute path nor @abstract-name of at most "
                    + "\(UnixSocket.maximumPathBytes) bytes"
            }
        }
    }

    /// The socket address bytes of a `$NOTIFY_SOCKET` value: the `sun_path` contents, with a NUL in
    /// place of a leading `@` (Linux abstract namespace), without a trailing NUL.
    ///
    /// - Parameter value: the variable's value (`/run/systemd/notify` or `@/org/…`).
    /// - Returns: the bytes for `sun_path`.
    /// - Throws: ``NotifyAddressError/invalid(_:)`` for anything else or a name that does not fit.
    public static func address(_ value: String) throws(NotifyAddressError) -> [UInt8] {
        var bytes = Array(value.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@"), bytes.count > 1,
            bytes.count <= UnixSocket.maximumPathBytes
        else { throw .invalid(value) }
        if first == UInt8(ascii: "@") { bytes[0] = 0 }
        return bytes
    }
}

/// The production sink: an unconnected `SOCK_DGRAM` socket sending to one address with `sendto`.
final class DatagramSink: SystemdNotificationSink {
    private let socket: FileDescriptor
    private let address: [UInt8]

    init(address: [UInt8]) throws {
        self.address = address
        socket = FileDescriptor(
            adopting: try Syscall.retrying(
                "socket(AF_UNIX, SOCK_DGRAM)",
                { Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }))
    }

    func send(_ datagram: [UInt8]) throws {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (index, byte) in address.enumerated() where index < raw.count { raw[index] = byte }
        }
        // An abstract address's length counts exactly its bytes; a path's includes the NUL.
        let extra = address.first == 0 ? 0 : 1
        let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        let length = socklen_t(min(offset + address.count + extra, MemoryLayout<sockaddr_un>.size))
        let fd = socket.rawValue
        try withUnsafePointer(to: &storage) { pointer throws in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws in
                try datagram.withUnsafeBytes { raw throws in
                    _ = try Syscall.retrying(
                        "sendto NOTIFY_SOCKET",
                        { sendto(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), generic, length) })
                }
            }
        }
    }
}
