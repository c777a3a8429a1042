import CLinux
import Glibc

/// Keeps a server accepting when it runs out of file descriptors.
///
/// With `EMFILE` or `ENFILE`, `accept` leaves the connection pending, so a level-triggered listener
/// stays readable and the loop spins. The classic remedy (libev, nginx): hold one spare descriptor,
/// and when out of them, release it, accept the pending connection, tell it why and close it.
public final class DescriptorReserve {
    private var spare: FileDescriptor?

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
        spare = try? FileDescriptor.open("/dev/null", O_RDONLY)
    }

    /// The soft `RLIMIT_NOFILE` now.
    public static var openFileLimit: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Accepts one pending connection on `listener` with the spare descriptor, hands it to
    /// `refuse` (which writes the reason) and closes it.
    ///
    /// - Parameters:
    ///   - listener: the listening socket that ran out (``Errno/isDescriptorExhaustion``).
    ///   - refuse: writes the refusal to the accepted connection, which is closed afterwards.
    /// - Returns: whether a connection was taken off the queue; `false` when there is no spare
    ///   descriptor or nothing is pending, so the caller stops trying for this turn.
    public func shed(_ listener: borrowing FileDescriptor, refuse: (borrowing FileDescriptor) -> Void) -> Bool {
        guard let released = spare.take() else { return false }
        released.close()
        var wasTaken = false
        if let connection = try? listener.accept() {
            refuse(connection)
            connection.close()
            wasTaken = true
        }
        spare = try? FileDescriptor.open("/dev/null", O_RDONLY)
        return wasTaken
    }
}
