import CLinux
import Glibc
import TimerSystem

/// Finds timerd's socket and connects to it: the path given, else the default socket, else the socket
/// recorded in the default state directory by a timerd started under another `XDG_RUNTIME_DIR`, else
/// (when the policy allows) a timerd started here. timerctl and ``TimerClient`` both connect this way.
package enum SocketDiscovery {
    /// Connects to `explicitPath`, or to the default socket (``RuntimePaths/defaultSocketPath()``),
    /// starting timerd there when nothing answers and `autostart` allows.
    ///
    /// - Parameters:
    ///   - explicitPath: the socket to use, or `nil` for the default rules.
    ///   - autostart: whether timerd may be started; applies to the default socket only.
    /// - Returns: the connected descriptor (the caller owns it) and the path it is connected to.
    /// - Throws: ``TimerClientError/notASocket(path:kind:)`` when `explicitPath` names something
    ///   that is not a socket; ``TimerClientError/notRunning(path:reason:)`` when nothing answers
    ///   and none may be started; ``TimerClientError/unavailable(_:)`` when the default path cannot
    ///   be formed or timerd could not be started.
    package static func connect(explicitPath: String?, autostart: AutostartPolicy) throws(TimerClientError) -> (
        fd: Int32, path: String
    ) {
        let path = explicitPath ?? RuntimePaths.defaultSocketPath()
        do {
            return (try UnixSocket.connect(path), path)
        } catch let error as SystemError where explicitPath == nil && isAbsent(error) {
            // One daemon per user: a timerd started under another XDG_RUNTIME_DIR (root's login
            // and `sudo -i` differ) listens elsewhere but holds the same state directory.
            if let recorded = connectToRecordedSocket(besides: path) { return recorded }
            guard autostart == .whenNotRunning else { throw .notRunning(path: path, reason: "\(error)") }
            return try startDaemon(socketPath: path)
        } catch let error as UnixSocket.AddressError {
            // The path is too long for `sun_path` (a long XDG_RUNTIME_DIR, or a path given unchecked).
            throw .unavailable("cannot reach timerd: \(error)")
        } catch {
            if let explicitPath, let kind = UnixSocket.fileKind(at: explicitPath, followingLinks: true) {
                throw .notASocket(path: explicitPath, kind: kind)
            }
            if let error = error as? SystemError, error.errno == .permissionDenied || error.errno == .notPermitted {
                // A timerd answers there, but its socket (or a directory above it) is not open to
                // this user: another user's daemon. Saying "not running" would be wrong.
                throw .unavailable(
                    "cannot connect to timerd on \(path): \(error.errno) for uid \(getuid()) (another user's "
                        + "timerd): use your own (timerctl without --socket) or ask its owner for access")
            }
            throw .notRunning(path: path, reason: "\(error)")
        }
    }

    /// Connects to the socket the default state directory names (``RuntimePaths/recordedSocket(in:)``)
    /// when it is not `defaultPath`.
    ///
    /// - Parameter defaultPath: the default socket, already tried.
    /// - Returns: the descriptor and path, or nil when there is no other socket or nothing answers there.
    private static func connectToRecordedSocket(besides defaultPath: String) -> (fd: Int32, path: String)? {
        guard let stateDirectory = try? RuntimePaths.defaultStateDirectory(),
            let recorded = RuntimePaths.recordedSocket(in: stateDirectory), recorded != defaultPath,
            let fd = try? UnixSocket.connect(recorded)
        else { return nil }
        return (fd, recorded)
    }

    /// The last line of timerd's log that says why it did not start (`timerd: cannot start: …`),
    /// read from the last 4 KiB of `logPath`.
    ///
    /// - Parameter logPath: the log the autostarted daemon wrote its standard error to.
    /// - Returns: the line without its time stamp, or nil when there is none.
    package static func startFailure(inLog logPath: String) -> String? {
        guard let file = try? FileDescriptor.open(logPath, O_RDONLY) else { return nil }
        let end = lseek(file.rawValue, 0, SEEK_END)
        let start = max(0, end - 4_096)
        var bytes = [UInt8](repeating: 0, count: Int(end - start))
        let count = pread(file.rawValue, &bytes, bytes.count, start)
        guard count > 0 else { return nil }
        let lines = String(decoding: bytes[0..<count], as: UTF8.self).split(separator: "\n")
        guard let line = lines.last(where: { $0.contains("cannot start: ") }),
            let reason = line.firstRange(of: "cannot start: ")
        else { return nil }
        return String(line[reason.upperBound...])
    }

    private static func isAbsent(_ error: SystemError) -> Bool {
        error.errno == .noSuchFileOrDirectory || error.errno == .connectionRefused
    }

    /// Starts `timerd --exit-when-idle 300` in its own session, its stderr appended to
    /// `timerd.log` in the state directory and no other descriptor inherited (as tmux does for
    /// its server), and waits up to 5 s for it to answer.
    private static func startDaemon(socketPath: String) throws(TimerClientError) -> (fd: Int32, path: String) {
        guard let executable = daemonExecutable() else {
            throw .unavailable(
                "timerd is not running on \(socketPath) and no timerd executable was found beside timerctl or on PATH")
        }
        let logPath: String
        do {
            let stateDirectory = try RuntimePaths.defaultStateDirectory()
            try RuntimePaths.ensurePrivateDirectory(stateDirectory)
            logPath = stateDirectory + "/timerd.log"
        } catch {
            throw .unavailable("cannot start timerd: \(error)")
        }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        posix_spawnattr_setflags(&attributes, TIMERD_POSIX_SPAWN_SETSID)
        let arguments = [executable, "--exit-when-idle", "300"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let status = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        guard status == 0 else {
            throw .unavailable("cannot start \(executable): \(SystemError("posix_spawn", errno: status))")
        }
        let deadline = Syscall.bootTimeNanoseconds() + 5_000_000_000
        while Syscall.bootTimeNanoseconds() < deadline {
            if let fd = try? UnixSocket.connect(socketPath) { return (fd, socketPath) }
            var exitStatus: Int32 = 0
            if waitpid(pid, &exitStatus, WNOHANG) == pid {
                // Another timerd may have taken the state directory meanwhile: use it if it answers.
                if let recorded = connectToRecordedSocket(besides: socketPath) { return recorded }
                let reason = startFailure(inLog: logPath).map { ": \($0)" } ?? ""
                throw .unavailable("timerd exited at start-up (status \(exitStatus >> 8))\(reason); see \(logPath)")
            }
            usleep(10_000)
        }
        throw .unavailable("timerd did not answer on \(socketPath) within 5 s; see \(logPath)")
    }

    /// `timerd` beside this executable, else the first on `PATH`.
    private static func daemonExecutable() -> String? {
        var candidates: [String] = []
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let own = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = own.lastIndex(of: "/") { candidates.append(String(own[..<slash]) + "/timerd") }
        }
        for directory in (ProcessEnvironment.value("PATH") ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            candidates.append(directory + "/timerd")
        }
        return candidates.first { access($0, X_OK) == 0 }
    }
}
