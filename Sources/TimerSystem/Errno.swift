import Glibc

/// An `errno` value with names for the codes the service acts on, matched by pattern:
///
/// ```swift
/// switch error.errno {
/// case .wouldBlock: return nil
/// case .tooManyOpenFiles, .tooManyOpenFilesInSystem: shed()
/// default: throw error
/// }
/// ```
///
/// The names follow swift-system's `Errno`; each says which C constant it stands for (man errno(3)).
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The C `errno` value.
    public let rawValue: Int32

    /// Wraps a C `errno` value.
    ///
    /// - Parameter rawValue: the value, as `errno` holds it.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now: read it right after the failed call.
    public static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// `strerror(3)`: "Resource temporarily unavailable" for ``wouldBlock``.
    public var description: String { String(cString: strerror(rawValue)) }

    /// `EINTR`: a signal interrupted the call; the wrappers retry it.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EAGAIN` (the same value as `EWOULDBLOCK` on Linux): a non-blocking descriptor is not ready.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `EMFILE`: the process has no free file descriptor.
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    /// `ENFILE`: the system has no free file descriptor.
    public static let tooManyOpenFilesInSystem = Errno(rawValue: ENFILE)
    /// `ENOENT`: no such file or directory.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EEXIST`: the file exists.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `ECONNREFUSED`: nobody listens on the socket.
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    /// `ENOTSOCK`: the descriptor is not a socket.
    public static let notSocket = Errno(rawValue: ENOTSOCK)
    /// `ECANCELED`: the operation was cancelled (a `TFD_TIMER_CANCEL_ON_SET` timerfd after a clock step).
    public static let canceled = Errno(rawValue: ECANCELED)
    /// `EPERM`: the operation needs a privilege (a capability) the process lacks.
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `EACCES`: permission denied (a file's or a directory's mode refuses the caller).
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EPIPE`: the peer closed its end (delivered as an error because `SIGPIPE` is ignored).
    public static let brokenPipe = Errno(rawValue: EPIPE)
    /// `EBADF`: not an open descriptor — a bug in the caller, never the input's fault.
    public static let badFileDescriptor = Errno(rawValue: EBADF)

    /// Whether this is running out of descriptors (``tooManyOpenFiles`` or ``tooManyOpenFilesInSystem``).
    public var isDescriptorExhaustion: Bool { self == .tooManyOpenFiles || self == .tooManyOpenFilesInSystem }
}
