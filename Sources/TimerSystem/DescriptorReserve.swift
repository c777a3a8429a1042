import CLinux
import Glibc

/// Keeps a server accepting when it runs out of file descriptors.
///
/// With `EMFILE` or `ENFILE`, `accept` leaves the connection pending, so a level-triggered listener
/// stays readable and the loop spins. The classic remedy (libev, nginx): hold one spare descriptor,
/// and when out of them, release it, accept the pending connection, tell it why and close it.
public final class DescriptorReserve {
    private var spare: Int32

    /// Opens the spare descriptor (`/dev/null`) and raises the soft `RLIMIT_NOFILE` towards
    /// `wanted` (at most the hard limit), so that the usual limit of 1,024 does not undercut
    /// the server's own connection limit.
    ///
    /// - Parameter wanted: the descriptors the server may need.
    public init(wanted: Int) {
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(max(wanted, 0)) {
            limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    deinit {
        if spare >= 0 { Glibc.close(spare) }
    }

    /// The soft `RLIMIT_NOFILE` now.
    public static var openFileLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Whether `code` is the `errno` of running out of descriptors.
    public static func isExhaustion(_ code: Int32) -> Bool { code == EMFILE || code == ENFILE }

    /// Accepts one pending connection on `listener` with the spare descriptor, hands it to
    /// `refuse` (which writes the reason) and closes it.
    ///
    /// - Returns: whether a connection was taken off the queue; `false` when there is no spare
    ///   descriptor or nothing is pending, so the caller stops trying for this turn.
    public func shed(_ listener: Int32, refuse: (Int32) -> Void) -> Bool {
        guard spare >= 0 else { return false }
        Glibc.close(spare)
        let fd = accept4(listener, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
        if fd >= 0 {
            refuse(fd)
            Glibc.close(fd)
        }
        spare = open("/dev/null", O_RDONLY | O_CLOEXEC)
        return fd >= 0
    }
}
