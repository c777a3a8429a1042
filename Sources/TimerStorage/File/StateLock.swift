import Glibc
import TimerSystem

/// An exclusive lock on a state directory, so that two daemons never share one journal.
///
/// `flock(2)` with `LOCK_EX | LOCK_NB` on `<state>/lock`, held for the daemon's life (the kernel
/// drops it when the process exits, even on SIGKILL, so a crash never leaves a stale lock). The
/// file holds the owner's pid, for the error message of the daemon that is refused.
final class StateLock {
    /// The lock file's descriptor; closing it releases the lock.
    private let fd: Int32

    /// What prevents taking the lock.
    struct HeldError: Error, Equatable, CustomStringConvertible {
        /// The state directory.
        var directory: String
        /// The holder's pid, when the file names one.
        var pid: Int32?

        /// Says who holds the directory and what to do.
        var description: String {
            let holder = pid.map { "another timerd (pid \($0))" } ?? "another timerd"
            return "\(holder) is using the state directory \(directory); stop it, or give this one its own --state-dir"
        }
    }

    /// Takes the lock on `directory` or throws.
    ///
    /// - Throws: ``HeldError`` when another process holds it; ``SystemError`` when the file cannot be opened.
    init(directory: String) throws {
        let path = directory + "/lock"
        fd = try Syscall.retrying("open \(path)", { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) })
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, buffer.count, 0)
            Syscall.close(fd)
            guard code == EWOULDBLOCK else { throw SystemError("flock \(path)", errno: code) }
            let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
            throw HeldError(directory: directory, pid: Int32(text.filter(\.isNumber)))
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
    }

    deinit { Syscall.close(fd) }
}
