import Glibc
import Synchronization

/// The descriptor a blocking read waits on, and whether its task was cancelled: cancelling shuts the
/// socket down (shutdown(2), `SHUT_RDWR`), which wakes a `poll` or `read` blocked on it at once, and
/// the reader then reports cancellation instead of the closed connection.
///
/// The descriptor is only shut down while attached, under the lock, so a descriptor number the owner
/// has closed and the system has given to someone else is never touched.
package final class CancellableDescriptor: Sendable {
    private struct State {
        var fd: Int32?
        var isCancelled = false
    }

    private let state = Mutex(State())

    /// Creates an unattached, uncancelled hook.
    package init() {}

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Attaches the descriptor about to be read, unless already cancelled.
    ///
    /// - Parameter fd: an open socket that stays open until ``detach()``.
    /// - Returns: `false` when cancellation came first (the caller then closes and stops).
    package func attach(_ fd: Int32) -> Bool {
        state.withLock { state in
            guard !state.isCancelled else { return false }
            state.fd = fd
            return true
        }
    }

    /// Forgets the descriptor; call before closing it.
    package func detach() {
        state.withLock { $0.fd = nil }
    }

    /// Marks the operation cancelled and shuts the attached socket down, if any.
    package func cancel() {
        state.withLock { state in
            state.isCancelled = true
            if let fd = state.fd { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
