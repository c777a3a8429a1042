import Countdown
import Foundation
import Glibc
import TimerModel
import TimerProtocol
import TimerSystem

/// timerd's configuration file: `KEY=VALUE` lines, `#` comments and blank lines.
///
/// The file is `/etc/timerd.conf` for root, else `$XDG_CONFIG_HOME/timerd/timerd.conf`, else
/// `~/.config/timerd/timerd.conf` (XDG Base Directory Specification); `--config PATH` overrides.
/// A missing file means the defaults. Command-line flags override the file. It is read at start-up
/// (a bad file refuses to start, exit 78, `EX_CONFIG`) and again on reload (SIGHUP or
/// `daemon.reload`; a bad file keeps the old configuration).
///
/// ```
/// # /etc/timerd.conf
/// history_limit=500
/// history_max_age=2d
/// ```
public struct DaemonConfig: Sendable, Equatable {
    /// `history_limit`: how many ended timers are kept, 0…1,000,000 (default 1,000).
    public var historyLimit = 1_000
    /// `store`: the PostgreSQL database to keep the timers in (a libpq connection string
    /// or URI, no password), or `nil` for the state directory. `--store` wins over it; a reload
    /// does not switch stores (read at start-up only).
    public var storeConnection: String?
    /// `shared`: `yes` serves the `store` schema's timers together with other timerd hosts
    /// (docs/multihost.md form 2); `no` (the default) as its only writer. `--shared`
    /// wins; read at start-up only.
    public var shared = false
    /// `history_max_age`: how long an ended timer is kept, in seconds (default 7 days, 604,800 s).
    ///
    /// Stored and exposed only: age-based trimming is implemented elsewhere.
    public var historyMaxAgeSeconds: Double = 7 * 86_400
    /// `max_timers_per_user`: the most live timers per uid, 1…1,000,000 (default 10,000).
    public var maximumTimersPerUser = 10_000
    /// `max_connections`: the most concurrent client connections, 1…65,536 (default 1,024).
    public var maximumConnections = 1_024
    /// `max_connections_per_user`: the most concurrent connections of one uid other than root and
    /// timerd's own, 1…65,536 (default 256, a quarter of the default `max_connections`); see
    /// docs/fairness.md for the reserve kept for root.
    public var maximumConnectionsPerUser = 256
    /// `idle_timeout`: seconds after which a connection with no pending wait, no queued reply and
    /// no incomplete line, that sent nothing, is closed with `-32005` (default 300 s).
    public var idleTimeoutSeconds: Double = 300
    /// `log_level`: the least severe lines written to stderr, `error`, `warning` or `info` (default).
    public var logLevel = LogLevel.info
    /// `pg_lock_timeout`: the PostgreSQL session's `lock_timeout` with `store`, in seconds (default
    /// 2; 0 turns it off). Read at start-up only.
    public var postgresLockTimeoutSeconds: Double = 2
    /// `pg_statement_timeout`: the PostgreSQL session's `statement_timeout`, in seconds (default
    /// 30; 0 turns it off). Read at start-up only.
    public var postgresStatementTimeoutSeconds: Double = 30
    /// `pg_idle_in_transaction_timeout`: the PostgreSQL session's
    /// `idle_in_transaction_session_timeout`, in seconds (default 3; 0 turns it off): a host stopped
    /// inside a transaction has its session ended by the server after this long, so that its row
    /// locks go. Read at start-up only.
    public var postgresIdleInTransactionTimeoutSeconds: Double = 3
    /// `metrics`: where to serve the Prometheus metrics (a Unix socket path or a loopback
    /// `HOST:PORT`; docs/metrics.md), or `nil` (the default) for no endpoint. `--metrics` wins;
    /// read at start-up only.
    public var metricsAddress: MetricsAddress?
    /// `metrics_timers`: `yes` adds a series per named running timer (its owner's uid and its
    /// name as labels) to the metrics; `no` (the default) leaves names out. `--metrics-timers`
    /// turns it on; a reload applies a change.
    public var metricsTimers = false
    /// `ring_interval`: seconds between two rings of a ringing timer (`--ring`), > 0 and ≤ 1 day
    /// (default 30 s). A timer keeps the interval it was started with; a reload applies a change to
    /// timers started after it.
    public var ringIntervalSeconds: Double = 30
    /// `ring_limit`: seconds after its first ring at which an unanswered ringing timer stops and
    /// ends as finished, unanswered, > 0 and ≤ 366 days (default 10 min, Android's clock app's
    /// "Silence after" default). Kept per timer as ``ringIntervalSeconds`` is.
    public var ringLimitSeconds: Double = 600
    /// `snooze`: how long `timerctl snooze NAME` without a DURATION runs a ringing timer again,
    /// > 0 and ≤ 366 days (default 9 min, as iOS's Clock snoozes).
    public var snoozeSeconds: Double = 540
    /// `sound_player`: the one player `--sound` uses, `pw-play`, `paplay` or `aplay`, or `nil`
    /// (the default, `auto`) for the first of them found in the timer's `PATH`, in that order. A
    /// reload applies a change to the sounds played after it.
    public var soundPlayer: String?
    /// `sound_device`: the device or sink the player plays on (`pw-play --target DEV`,
    /// `paplay --device=DEV`, `aplay -D DEV`), or `nil` (the default) for the player's own default.
    public var soundDevice: String?

    /// The players `sound_player` may name, in the order `auto` tries them.
    public static let soundPlayers = ["pw-play", "paplay", "aplay"]

    /// The defaults.
    public init() {}

    /// The keys a file may set, in the order error messages list them.
    public static let keys = [
        "history_limit", "history_max_age", "max_timers_per_user", "max_connections", "max_connections_per_user",
        "idle_timeout", "log_level", "store", "shared", "pg_lock_timeout", "pg_statement_timeout",
        "pg_idle_in_transaction_timeout", "metrics", "metrics_timers", "ring_interval", "ring_limit", "snooze",
        "sound_player", "sound_device",
    ]

    /// A configuration file that cannot be used.
    public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The file.
        public var path: String
        /// The 1-based line, or `nil` when the whole file is at fault (unreadable).
        public var line: Int?
        /// What is wrong and what is allowed.
        public var message: String

        /// Creates an error.
        public init(path: String, line: Int?, message: String) {
            self.path = path
            self.line = line
            self.message = message
        }

        /// `path:line: message`, the way compilers report.
        public var description: String {
            line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)"
        }
    }

    /// Parses the text of a configuration file, starting from the defaults.
    ///
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - path: the file's path, for error messages.
    /// - Returns: the configuration; a key given twice takes its last value.
    /// - Throws: ``ConfigError`` for the first line that is not a comment, blank or a known
    ///   `KEY=VALUE` with a valid value.
    public static func parse(_ text: String, path: String) throws(ConfigError) -> DaemonConfig {
        var config = DaemonConfig()
        var number = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            func fail(_ message: String) -> ConfigError { ConfigError(path: path, line: number, message: message) }
            guard let equals = line.firstIndex(of: "=") else {
                throw fail("expected KEY=VALUE, got \"\(line)\"")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            func count(_ range: ClosedRange<Int>) throws(ConfigError) -> Int {
                guard let parsed = Int(value), range.contains(parsed) else {
                    throw fail(
                        "\(key) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(value)\""
                    )
                }
                return parsed
            }
            switch key {
            case "history_limit":
                config.historyLimit = try count(0...1_000_000)
            case "history_max_age":
                do throws(CountdownError) {
                    config.historyMaxAgeSeconds = try DurationParser.seconds(from: value)
                } catch {
                    throw fail("history_max_age: \(error)")
                }
            case "max_timers_per_user":
                config.maximumTimersPerUser = try count(1...1_000_000)
            case "max_connections":
                config.maximumConnections = try count(1...65_536)
            case "max_connections_per_user":
                config.maximumConnectionsPerUser = try count(1...65_536)
            case "idle_timeout":
                do throws(CountdownError) {
                    config.idleTimeoutSeconds = try DurationParser.seconds(from: value)
                } catch {
                    throw fail("idle_timeout: \(error)")
                }
            case "store":
                // A PostgreSQL connection string or URI; checked when timerd connects.
                guard !value.isEmpty else { throw fail("store needs a PostgreSQL connection string") }
                config.storeConnection = value
            case "shared":
                guard value == "yes" || value == "no" else { throw fail("shared must be yes or no, got \"\(value)\"") }
                config.shared = value == "yes"
            case "pg_lock_timeout", "pg_statement_timeout", "pg_idle_in_transaction_timeout":
                let seconds: Double
                do throws(CountdownError) {
                    seconds = try DaemonConfig.timeoutSeconds(value)
                } catch {
                    throw fail("\(key): \(error) (0 turns it off)")
                }
                switch key {
                case "pg_lock_timeout": config.postgresLockTimeoutSeconds = seconds
                case "pg_statement_timeout": config.postgresStatementTimeoutSeconds = seconds
                default: config.postgresIdleInTransactionTimeoutSeconds = seconds
                }
            case "metrics":
                do throws(MetricsAddress.ParseError) {
                    config.metricsAddress = try MetricsAddress(parsing: value)
                } catch {
                    throw fail("metrics: \(error)")
                }
            case "metrics_timers":
                guard value == "yes" || value == "no" else {
                    throw fail("metrics_timers must be yes or no, got \"\(value)\"")
                }
                config.metricsTimers = value == "yes"
            case "ring_interval", "ring_limit", "snooze":
                let seconds: Double
                do throws(CountdownError) {
                    seconds = try DurationParser.seconds(from: value)
                } catch {
                    throw fail("\(key): \(error)")
                }
                switch key {
                case "ring_interval":
                    guard seconds <= TimerEngine.maximumRingInterval else {
                        throw fail("ring_interval must be at most 1d, got \"\(value)\"")
                    }
                    config.ringIntervalSeconds = seconds
                case "ring_limit": config.ringLimitSeconds = seconds
                default: config.snoozeSeconds = seconds
                }
            case "sound_player":
                guard value == "auto" || soundPlayers.contains(value) else {
                    throw fail("sound_player must be auto, \(soundPlayers.joined(separator: ", ")), got \"\(value)\"")
                }
                config.soundPlayer = value == "auto" ? nil : value
            case "sound_device":
                guard !value.isEmpty, value.utf8.count <= 256,
                    !value.unicodeScalars.contains(where: { $0.value < 0x20 })
                else {
                    throw fail("sound_device must be a device or sink name of 1 to 256 bytes, got \"\(value)\"")
                }
                config.soundDevice = value
            case "log_level":
                guard let level = LogLevel(rawValue: value) else {
                    throw fail("log_level must be \(LogLevel.choices), got \"\(value)\"")
                }
                config.logLevel = level
            default:
                throw fail("unknown key \"\(key)\"; keys: \(keys.joined(separator: ", "))")
            }
        }
        return config
    }

    /// Reads and parses the file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - mustExist: whether a missing file is an error: `true` for a path given with `--config`
    ///     (as `nginx -c` and `sshd -f` refuse one), `false` for the default path, whose absence
    ///     means the defaults.
    /// - Returns: the configuration, or `nil` when there is no file there and `mustExist` is false
    ///   (use the defaults).
    /// - Throws: ``ConfigError`` when it cannot be read (missing, when `mustExist`) or parsed.
    public static func load(path: String, mustExist: Bool = false) throws(ConfigError) -> DaemonConfig? {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readAll(path, maximumBytes: 1 << 20)
        } catch let error where error.errno == .noSuchFileOrDirectory {
            guard !mustExist else {
                throw ConfigError(path: path, line: nil, message: "no such file (named by --config)")
            }
            return nil
        } catch {
            // The texts of before: a failed open says why; a failed read also names the call.
            let reason = error.call.hasPrefix("open") ? "\(error.errno)" : "read: \(error.errno)"
            throw ConfigError(path: path, line: nil, message: "cannot read: \(reason)")
        }
        if bytes.count > 1 << 20 { throw ConfigError(path: path, line: nil, message: "larger than 1 MiB") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError(path: path, line: nil, message: "not UTF-8 text")
        }
        return try parse(text, path: path)
    }

    /// The default file: `/etc/timerd.conf` for root, else `$XDG_CONFIG_HOME/timerd/timerd.conf`,
    /// else `$HOME/.config/timerd/timerd.conf`.
    ///
    /// - Parameters:
    ///   - uid: the effective uid.
    ///   - environment: the environment (`XDG_CONFIG_HOME`, `HOME`).
    /// - Returns: the path, or `nil` when neither variable is set for a non-root user.
    public static func defaultPath(uid: UInt32, environment: [String: String]) -> String? {
        if uid == 0 { return "/etc/timerd.conf" }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/timerd/timerd.conf" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/timerd/timerd.conf" }
        return nil
    }

    /// This configuration with the command line's explicit flags applied on top (flags win).
    ///
    /// - Parameter options: the parsed command line.
    /// - Returns: the effective configuration.
    public func overridden(by options: DaemonOptions) -> DaemonConfig {
        var result = self
        if let value = options.maximumConnections { result.maximumConnections = value }
        if let value = options.maximumConnectionsPerUser { result.maximumConnectionsPerUser = value }
        if let value = options.idleTimeoutSeconds { result.idleTimeoutSeconds = value }
        if let value = options.timersPerUser { result.maximumTimersPerUser = value }
        if let value = options.historyLimit { result.historyLimit = value }
        if let value = options.historyMaximumAge { result.historyMaxAgeSeconds = value }
        if let value = options.logLevel { result.logLevel = value }
        if let value = options.metricsAddress { result.metricsAddress = value }
        if options.metricsTimers { result.metricsTimers = true }
        if let value = options.postgresLockTimeoutSeconds { result.postgresLockTimeoutSeconds = value }
        if let value = options.postgresStatementTimeoutSeconds { result.postgresStatementTimeoutSeconds = value }
        if let value = options.postgresIdleInTransactionTimeoutSeconds {
            result.postgresIdleInTransactionTimeoutSeconds = value
        }
        return result
    }

    /// A PostgreSQL session timeout's value: `0` (off) or a duration (`2s`, `500ms`, `1m`).
    ///
    /// - Parameter text: the value.
    /// - Returns: seconds, 0 for off.
    /// - Throws: `CountdownError` for anything else.
    static func timeoutSeconds(_ text: String) throws(CountdownError) -> Double {
        if text == "0" { return 0 }
        return try DurationParser.seconds(from: text)
    }

    /// Connections kept for root and timerd's own uid: 1/16 of ``maximumConnections`` (64 of the
    /// default 1,024), at least 1; other users together may hold the rest (docs/fairness.md).
    public var reservedConnections: Int { max(1, maximumConnections / 16) }

    /// Loads the file `options` name (``DaemonOptions/configPath``, else ``defaultPath(uid:environment:)``)
    /// and applies the command line's flags.
    ///
    /// - Parameters:
    ///   - options: the parsed command line.
    ///   - uid: the effective uid.
    ///   - environment: the environment.
    /// - Returns: the effective configuration and the file's path (`nil` when there is none to read).
    /// - Throws: ``ConfigError`` when the file exists and is bad, or when `--config` names a file
    ///   that does not exist (the default path may be missing: then the defaults apply).
    public static func resolve(options: DaemonOptions, uid: UInt32, environment: [String: String])
        throws(ConfigError) -> (config: DaemonConfig, path: String?)
    {
        let path = options.configPath ?? defaultPath(uid: uid, environment: environment)
        let file =
            try path.flatMap { path throws(ConfigError) in
                try load(path: path, mustExist: options.configPath != nil)
            } ?? DaemonConfig()
        return (file.overridden(by: options), path)
    }
}
