import Glibc

/// Where the service keeps its socket and its state, by the XDG Base Directory specification and systemd.exec(5) (`RuntimeDirectory=`, `StateDirectory=`).
public enum RuntimePaths {
    /// Problems with a runtime or state directory.
    public enum DirectoryError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The directory belongs to another user.
        case wrongOwner(String, owner: UInt32, expected: UInt32)
        /// The directory is readable or writable by others.
        case tooOpen(String, mode: UInt32)
        /// The path exists and is not a directory.
        case notADirectory(String)
        /// No directory could be chosen (no `HOME`).
        case noHome

        /// What is wrong and what is expected.
        public var description: String {
            switch self {
            case .wrongOwner(let path, let owner, let expected):
                return "\(path) belongs to uid \(owner), not to uid \(expected); refusing to use it"
            case .tooOpen(let path, let mode):
                return "\(path) has mode \(String(mode, radix: 8)); it must be 0700 (only its owner may enter it)"
            case .notADirectory(let path):
                return "\(path) exists and is not a directory"
            case .noHome:
                return "cannot find a state directory: set STATE_DIRECTORY, XDG_STATE_HOME or HOME"
            }
        }
    }

    /// The directory of the default socket: `$XDG_RUNTIME_DIR/timerd`, else `/tmp/timerd-UID`.
    public static func defaultRuntimeDirectory() -> String {
        if let runtime = ProcessEnvironment.value("XDG_RUNTIME_DIR") { return runtime + "/timerd" }
        return "/tmp/timerd-\(getuid())"
    }

    /// The default control socket: `$XDG_RUNTIME_DIR/timerd/timerd.sock`, else `/tmp/timerd-UID/timerd.sock`.
    public static func defaultSocketPath() -> String {
        defaultRuntimeDirectory() + "/timerd.sock"
    }

    /// The state directory: `$STATE_DIRECTORY` (systemd's `StateDirectory=`), else
    /// `$XDG_STATE_HOME/timerd`, else `$HOME/.local/state/timerd`; for root without these, `/var/lib/timerd`.
    ///
    /// - Throws: ``DirectoryError/noHome`` when none applies.
    public static func defaultStateDirectory() throws -> String {
        if let state = ProcessEnvironment.value("STATE_DIRECTORY") {
            return String(state.split(separator: ":").first ?? Substring(state))
        }
        if let xdg = ProcessEnvironment.value("XDG_STATE_HOME") { return xdg + "/timerd" }
        if getuid() == 0 { return "/var/lib/timerd" }
        if let home = ProcessEnvironment.value("HOME") { return home + "/.local/state/timerd" }
        throw DirectoryError.noHome
    }

    /// The file in a state directory that names the control socket of the timerd using it
    /// (`<state>/socket`): one daemon per user, found by its state directory, which stays the same
    /// when the socket's directory does not (root's `/var/lib/timerd` under two `XDG_RUNTIME_DIR`s).
    ///
    /// - Parameter stateDirectory: the state directory.
    /// - Returns: the file's path.
    public static func socketRecord(in stateDirectory: String) -> String {
        stateDirectory + "/socket"
    }

    /// Writes `socketPath` (made absolute) into ``socketRecord(in:)``: a temporary file, then
    /// `rename`, so that a reader sees the old path or the new one.
    ///
    /// - Parameters:
    ///   - socketPath: the socket the daemon listens on.
    ///   - stateDirectory: the state directory the daemon holds the lock of.
    /// - Throws: ``SystemError`` from `open`, `write` or `rename`.
    public static func recordSocket(_ socketPath: String, in stateDirectory: String) throws(SystemError) {
        var absolute = socketPath
        if !absolute.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                absolute =
                    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    + "/" + socketPath
            }
        }
        let record = socketRecord(in: stateDirectory)
        let temporary = record + ".new"
        let file = try FileDescriptor.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        let bytes = Array((absolute + "\n").utf8)
        let fd = file.rawValue
        let written = try Syscall.retrying("write \(temporary)", { Glibc.write(fd, bytes, bytes.count) })
        guard written == bytes.count else { throw SystemError("write \(temporary)", errno: ENOSPC) }
        try Syscall.retrying("rename \(temporary)", { rename(temporary, record) })
    }

    /// The socket path ``recordSocket(_:in:)`` wrote into `stateDirectory`, if any: the socket of
    /// the last timerd that used the directory (it may have stopped since).
    ///
    /// - Parameter stateDirectory: the state directory.
    /// - Returns: the absolute path, or nil when there is no record or it is not an absolute path.
    public static func recordedSocket(in stateDirectory: String) -> String? {
        guard let bytes = try? FileSystem.readAll(socketRecord(in: stateDirectory), maximumBytes: 4_096),
            bytes.count <= 4_096
        else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        return text.hasPrefix("/") ? text : nil
    }

    /// Creates `path` (and its parents) with mode 0700 if missing, then checks that it is a
    /// directory owned by the current user and closed to others.
    ///
    /// - Throws: ``DirectoryError`` or ``SystemError`` from `mkdir`.
    public static func ensurePrivateDirectory(_ path: String) throws {
        try makeDirectories(path, mode: 0o700)
        var info = stat()
        try Syscall.retrying("stat \(path)", { lstat(path, &info) })
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw DirectoryError.notADirectory(path) }
        guard info.st_uid == getuid() else {
            throw DirectoryError.wrongOwner(path, owner: info.st_uid, expected: getuid())
        }
        if info.st_mode & 0o077 != 0 { throw DirectoryError.tooOpen(path, mode: UInt32(info.st_mode & 0o7777)) }
    }

    /// `mkdir -p` with `mode` for the directories it creates.
    ///
    /// - Throws: ``SystemError`` from `mkdir`.
    public static func makeDirectories(_ path: String, mode: mode_t) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 {
                let code = Errno.current
                if code != .fileExists { throw SystemError("mkdir \(prefix)", errno: code) }
            }
        }
    }
}
