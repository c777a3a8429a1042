/// A failed system call: its name and ``Errno``, printed as `bind: Address already in use`.
///
/// Match the cause by pattern: `catch let error as SystemError where error.errno == .wouldBlock`.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call that failed (`bind`, `connect` …), sometimes with its subject (`connect /run/x.sock`).
    public var call: String
    /// The `errno` it left.
    public var errno: Errno

    /// Creates an error for `call` with `errno`.
    ///
    /// - Parameters:
    ///   - call: the call's name, with its subject where that helps (`open /etc/timerd.conf`).
    ///   - errno: the code it left.
    public init(_ call: String, errno: Errno) {
        self.call = call
        self.errno = errno
    }

    /// Creates an error for `call` with a raw C `errno` value.
    ///
    /// - Parameters:
    ///   - call: the call's name.
    ///   - errno: the C value (`EBADF` …).
    public init(_ call: String, errno: Int32) {
        self.init(call, errno: Errno(rawValue: errno))
    }

    /// `call: strerror(errno)`.
    public var description: String {
        "\(call): \(errno)"
    }
}
