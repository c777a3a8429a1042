/// The environment an on-finish action gets: which variables `timerctl start --exec/--notify`
/// captures from its caller, and the limits timerd checks them against (docs/actions.md).
///
/// Captured (when set): `PATH`, `HOME`, `USER`, `LOGNAME`, `LANG`, `LANGUAGE`, every `LC_*`, `TZ`,
/// `DISPLAY`, `WAYLAND_DISPLAY`, `DBUS_SESSION_BUS_ADDRESS` and `XDG_RUNTIME_DIR`: enough for a
/// command to find programs, files, the locale and the time zone, and for `notify-send` to reach the
/// caller's desktop session bus. Nothing else: no secrets that happen to be exported (tokens,
/// `SSH_AUTH_SOCK`), no `LD_PRELOAD`. timerd adds `TIMER_ID`, `TIMER_NAME`, `TIMER_EVENT` and
/// `TIMER_DURATION`, and uses `PATH=/usr/local/bin:/usr/bin:/bin` when none was captured.
public enum ActionEnvironment {
    /// One captured variable.
    public struct Variable: Sendable, Hashable {
        /// The name (`PATH`).
        public var name: String
        /// The value.
        public var value: String

        /// Creates a variable.
        ///
        /// - Parameters:
        ///   - name: the name.
        ///   - value: the value.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The names captured exactly (`LC_*` is matched by prefix: ``isCaptured(_:)``).
    public static let capturedNames: Set<String> = [
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "DISPLAY", "WAYLAND_DISPLAY",
        "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR",
    ]
    /// The variables timerd sets itself; a request may not set them.
    public static let timerNames: Set<String> = ["TIMER_ID", "TIMER_NAME", "TIMER_EVENT", "TIMER_DURATION"]
    /// The `PATH` an action gets when none was captured (the `PATH` of POSIX `sh` defaults).
    public static let fallbackPath = "/usr/local/bin:/usr/bin:/bin"
    /// The longest command accepted, in UTF-8 bytes: 16 KiB.
    public static let maximumCommandBytes = 16_384
    /// The longest captured value accepted, in UTF-8 bytes: 4 KiB.
    public static let maximumValueBytes = 4_096

    /// Whether `name` is one of the captured variables (``capturedNames`` or `LC_` and a letter).
    ///
    /// - Parameter name: a variable name.
    public static func isCaptured(_ name: String) -> Bool {
        if capturedNames.contains(name) { return true }
        guard name.hasPrefix("LC_"), name.utf8.count > 3 else { return false }
        return name.utf8.dropFirst(3).allSatisfy { ($0 >= 65 && $0 <= 90) || $0 == 95 }
    }

    /// The captured subset of an environment, sorted by name.
    ///
    /// - Parameter environment: the caller's variables (`ProcessEnvironment.current()`).
    /// - Returns: the variables ``isCaptured(_:)`` keeps, with values no longer than
    ///   ``maximumValueBytes`` and without NUL (others are left out).
    /// - Complexity: O(v) for v variables.
    public static func capture(from environment: [String: String]) -> [(name: String, value: String)] {
        environment.filter { name, value in
            isCaptured(name) && value.utf8.count <= maximumValueBytes && !value.utf8.contains(0)
        }
        .sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// The first directory of a `PATH` that holds an executable regular file `program`.
    ///
    /// - Parameters:
    ///   - program: a bare program name (`notify-send`).
    ///   - searchPath: a colon-separated `PATH`; empty entries are skipped.
    ///   - isExecutable: whether a path names an executable regular file (injected: no I/O here).
    /// - Returns: the program's full path, or `nil`.
    /// - Complexity: O(d) checks for d directories.
    public static func locate(_ program: String, in searchPath: String, isExecutable: (String) -> Bool) -> String? {
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = directory.hasSuffix("/") ? "\(directory)\(program)" : "\(directory)/\(program)"
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }
}
