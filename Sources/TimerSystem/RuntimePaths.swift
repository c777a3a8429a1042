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
