import CLinux
import Glibc

/// A child process started with `posix_spawn` in its own process group, watched through a pidfd
/// and a pipe that carries its standard output and standard error: what timerd runs on-finish
/// actions with, without ever blocking its event loop.
///
/// - The child gets `/dev/null` as standard input and the pipe as standard output and error; every
///   other descriptor of the parent is close-on-exec or closed (`closefrom(3)`).
/// - It is the leader of a new process group (`POSIX_SPAWN_SETPGROUP`), so ``signalGroup(_:)``
///   reaches everything it started; signals that the parent ignores (`SIGPIPE`) or blocks are
///   reset to their defaults (`POSIX_SPAWN_SETSIGDEF`, `POSIX_SPAWN_SETSIGMASK`).
/// - ``exitDescriptor`` (pidfd_open(2), Linux ≥ 5.3) becomes readable when it exits; the owner adds
///   it to epoll and calls ``reap()`` then. ``outputDescriptor`` is non-blocking.
///
/// A class because it owns two descriptors and one process: ``reap()`` once, or the process
/// becomes a zombie until the daemon exits.
public final class ChildProcess {
    /// The child's pid (also its process group id).
    public let pid: Int32
    /// Readable when the child has exited (a pidfd).
    public let exitDescriptor: FileDescriptor
    /// The read end of the child's standard output and error (non-blocking); `nil` once closed.
    private var output: FileDescriptor?

    /// The number of the output pipe's read end, to watch in epoll; `nil` once closed (closing
    /// takes it out of epoll, as no other process holds it).
    public var outputDescriptor: Int32? { output?.rawValue }

    /// How a child ended.
    public enum Termination: Sendable, Hashable {
        /// It exited with this status (0–255).
        case exited(Int32)
        /// A signal killed it.
        case signalled(Int32)
    }

    private init(pid: Int32, exitDescriptor: consuming FileDescriptor, output: consuming FileDescriptor) {
        self.pid = pid
        self.exitDescriptor = exitDescriptor
        self.output = .some(output)
    }

    /// Starts `executable` with `arguments` (argv[0] included) and exactly `environment`.
    ///
    /// - Parameters:
    ///   - executable: an absolute path (`/bin/sh`).
    ///   - arguments: the whole argv, argv[0] first.
    ///   - environment: `NAME=value` strings; nothing is inherited.
    ///   - workingDirectory: the directory the child starts in.
    /// - Returns: the running child.
    /// - Throws: ``SystemError`` from `pipe`, `posix_spawn` (for example `ENOENT` when the
    ///   directory or the program is missing) or `pidfd_open`; nothing is left running then.
    public static func spawn(
        executable: String, arguments: [String], environment: [String], workingDirectory: String
    ) throws(SystemError) -> ChildProcess {
        var ends: [Int32] = [-1, -1]
        // pipe2(O_CLOEXEC) is GNU-only in the headers; the daemon spawns from its one thread, so
        // setting the flag right after pipe() races no other fork.
        try Syscall.retrying("pipe", { pipe(&ends) })
        let readEnd = FileDescriptor(adopting: ends[0])
        let writeEnd = FileDescriptor(adopting: ends[1])
        try Syscall.setCloseOnExec(readEnd.rawValue)
        try Syscall.setCloseOnExec(writeEnd.rawValue)
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd.rawValue, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd.rawValue, 2)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        posix_spawn_file_actions_addchdir_np(&actions, workingDirectory)
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard status == 0 else { throw SystemError("posix_spawn \(executable)", errno: status) }
        writeEnd.close()
        let pidfd = timerd_pidfd_open(pid)
        guard pidfd >= 0 else {
            let code = Errno.current
            Glibc.kill(-pid, SIGKILL)
            var ignored: Int32 = 0
            _ = waitpid(pid, &ignored, 0)
            throw SystemError("pidfd_open", errno: code)
        }
        let exitDescriptor = FileDescriptor(adopting: pidfd)
        try Syscall.setCloseOnExec(pidfd)
        try Syscall.setNonBlocking(readEnd.rawValue)
        return ChildProcess(pid: pid, exitDescriptor: exitDescriptor, output: readEnd)
    }

    /// Collects the child's status if it has exited (`waitpid` with `WNOHANG`).
    ///
    /// - Returns: how it ended, or `nil` while it runs.
    public func reap() -> Termination? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return nil }
        // The wait(2) status layout: low 7 bits the signal (0 for a normal exit), bits 8–15 the status.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// Sends `signal` to the child's whole process group (kill(2) with `-pid`); ignores a group
    /// that is already gone.
    ///
    /// - Parameter signal: `SIGTERM`, `SIGKILL` …
    public func signalGroup(_ signal: Int32) {
        _ = Glibc.kill(-pid, signal)
    }

    /// Reads what the child wrote so far, without blocking.
    ///
    /// - Parameter buffer: scratch space (grown to 64 KiB if smaller).
    /// - Returns: the bytes (empty when nothing is ready now), or `nil` at end of output, after
    ///   which the pipe is closed.
    public func readOutput(_ buffer: inout [UInt8]) -> ArraySlice<UInt8>? {
        guard let fd = output?.rawValue else { return nil }
        do {
            let count = try Syscall.read(fd, into: &buffer)
            if count > 0 { return buffer[0..<count] }
        } catch let error where error.errno == .wouldBlock {
            return []
        } catch {}
        closeOutput()
        return nil
    }

    /// Closes the output pipe (a process still writing then gets `EPIPE`).
    public func closeOutput() {
        if let fd = output.take() { fd.close() }
    }

    private static func withCStrings<Result>(
        _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        let copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let terminated = copies + [nil]
        return terminated.withUnsafeBufferPointer { pointer in
            // Never nil: the array holds at least the terminating nil.
            guard let base = pointer.baseAddress else { preconditionFailure("empty argument array") }
            return body(base)
        }
    }
}
