import CommandLineTable
import Countdown
import TimerModel
import TimerProtocol
import TimerStorage
import TimerSystem

/// timerd's command line.
public struct DaemonOptions: Sendable, Equatable {
    /// The control socket's path; default `RuntimePaths.defaultSocketPath()`.
    public var socketPath: String?
    /// The state directory; default `RuntimePaths.defaultStateDirectory()`.
    public var stateDirectory: String?
    /// Exit after this many seconds with no live timers and no clients (set when autostarted).
    public var exitWhenIdleSeconds: Double?
    /// Seconds a client may take to complete a started request line (default 10).
    public var requestTimeoutSeconds: Double = 10
    /// `--action-timeout`: seconds an on-finish action may run before its process group gets
    /// `SIGTERM` (and `SIGKILL` 2 s later); default 60 (docs/actions.md).
    public var actionTimeoutSeconds: Double = 60
    /// `--max-connections`: the most concurrent client connections; `nil` takes ``DaemonConfig``'s
    /// `max_connections` (default 1,024).
    public var maximumConnections: Int?
    /// `--max-timers-per-user`: the most live timers per uid; `nil` takes ``DaemonConfig``'s
    /// `max_timers_per_user` (default 10,000).
    public var timersPerUser: Int?
    /// `--max-connections-per-user`: the most connections of one uid other than root and timerd's
    /// own; `nil` takes ``DaemonConfig``'s `max_connections_per_user` (default 256).
    public var maximumConnectionsPerUser: Int?
    /// `--idle-timeout`: seconds before an idle connection (no pending wait) is closed; `nil` takes
    /// ``DaemonConfig``'s `idle_timeout` (default 300).
    public var idleTimeoutSeconds: Double?
    /// `--config PATH`: the configuration file; `nil` for ``DaemonConfig/defaultPath(uid:environment:)``.
    public var configPath: String?
    /// The permission bits of a socket timerd binds itself (default 0600: only its owner may connect;
    /// 0666 or 0660 lets other users in, who then see only their own timers).
    public var socketMode: UInt32 = 0o600
    /// `--history-limit`: how many ended timers stay visible to `timerctl status --all`; `nil` takes
    /// ``DaemonConfig``'s `history_limit` (default 1,000).
    public var historyLimit: Int?
    /// `--history-max-age`: seconds an ended timer stays visible; `nil` takes ``DaemonConfig``'s
    /// `history_max_age` (default 7 days).
    public var historyMaximumAge: Double?
    /// `--log-level`: the least severe lines written to stderr; `nil` takes ``DaemonConfig``'s
    /// `log_level` (default ``LogLevel/info``).
    public var logLevel: LogLevel?
    /// Compact the journal into a snapshot after this many records (default 10,000); hidden, for tests.
    public var journalMaximumRecords: Int = 10_000
    /// When the state is saved (default ``SavePolicy/everyChange``; `--save exit` is for benchmarks).
    public var savePolicy: SavePolicy = .everyChange
    /// Whether to start when saved changes are missing (`StateLossPolicy/accept`,
    /// `--accept-state-loss`) or to refuse with exit 65 (`StateLossPolicy/refuse`, the default).
    public var stateLossPolicy: StateLossPolicy = .refuse
    /// `--store CONNINFO`: keep the timers in the PostgreSQL database this libpq
    /// connection string or `postgresql://` URI names instead of the state directory; `nil` takes
    /// ``DaemonConfig``'s `store`, and without either the file store stays.
    public var storeConnection: String?
    /// `--pg-lock-timeout`: the PostgreSQL session's `lock_timeout` in seconds (0: off); `nil`
    /// takes ``DaemonConfig``'s `pg_lock_timeout` (default 2).
    public var postgresLockTimeoutSeconds: Double?
    /// `--pg-statement-timeout`: the PostgreSQL session's `statement_timeout` in seconds (0: off);
    /// `nil` takes ``DaemonConfig``'s `pg_statement_timeout` (default 30).
    public var postgresStatementTimeoutSeconds: Double?
    /// `--pg-idle-in-transaction-timeout`: the PostgreSQL session's
    /// `idle_in_transaction_session_timeout` in seconds (0: off); `nil` takes ``DaemonConfig``'s
    /// `pg_idle_in_transaction_timeout` (default 3).
    public var postgresIdleInTransactionTimeoutSeconds: Double?
    /// `--host-id NAME`: this host's name in a shared store's claims and logs; `nil` for the
    /// default (the host name and the first 8 characters of the boot id).
    public var hostID: String?
    /// `--migrate-only`: create or migrate the PostgreSQL schema, then exit.
    public var migrateOnly = false
    /// `--shared`: with `--store`, serve the schema's timers together with other timerd
    /// hosts (docs/multihost.md, form 2) instead of as its only writer; also `shared=yes` in the
    /// configuration file.
    public var shared = false
    /// `--metrics ADDRESS`: serve the Prometheus metrics at this Unix socket path or loopback
    /// `HOST:PORT` (docs/metrics.md); `nil` takes ``DaemonConfig``'s `metrics` (default: none).
    public var metricsAddress: MetricsAddress?
    /// `--metrics-timers`: add a series per named running timer to the metrics (also
    /// `metrics_timers=yes` in the file).
    public var metricsTimers = false
    /// `--help` was given.
    public var showHelp = false
    /// `--version` was given.
    public var showVersion = false

    /// Creates the defaults.
    public init() {}

    /// The usage text printed by `timerd --help`, rendered from `CommandTable.timerd` (CommandLineTable).
    public static let help = """
        Usage: \(CommandTable.timerd.usageLine(for: nil))

        \(CommandTable.timerdDiscussion)

        Options:
        \(CommandTable.optionRows(CommandTable.timerd.globalOptions, column: 28))

        """

    /// The usage line after `Usage: ` in a usage error.
    public static var usageLine: String { CommandTable.timerd.usageLine(for: nil) }

    /// Errors in timerd's arguments.
    public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What was wrong.
        public var message: String
        /// Whether the value is well-formed but refused as configuration (a `--metrics` address
        /// that is not loopback): exit 78 (`EX_CONFIG`), as for a bad configuration file, rather
        /// than 64.
        public var isConfiguration = false
        /// The message.
        public var description: String { message }
    }

    /// Parses timerd's arguments (without the program name) with the one scanner and the table
    /// `CommandTable.timerd` (CommandLineTable): `--option VALUE` or `--option=VALUE`; the last of a
    /// repeated option wins.
    ///
    /// - Throws: ``UsageError`` naming the bad argument and what is allowed.
    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var scanner = CommandLineScanner(table: .timerd, arguments: arguments)
        while true {
            let token: CommandLineScanner.Token?
            do {
                token = try scanner.next()
            } catch {
                throw UsageError(message: message(for: error))
            }
            switch token {
            case nil:
                return options
            case .command(let word), .argument(let word):
                throw UsageError(message: "unknown argument \"\(word)\"")
            case .option(let option, let value, let spelling):
                try options.apply(option.longName, value: value ?? "", spelling: spelling)
            }
        }
    }

    /// timerd's wording of a scanner error (it predates the scanner and is pinned by tests).
    private static func message(for error: CommandLineError) -> String {
        switch error {
        case .unknownCommand(let word, _): return "unknown argument \"\(word)\""
        case .unknownOption(_, let argument, _): return "unknown argument \"\(argument)\""
        case .unexpectedValue(_, let argument): return "unknown argument \"\(argument)\""
        case .missingValue(let option): return "\(option) needs a value"
        case .repeatedOption(let option): return "\(option) given twice"
        }
    }

    /// Records one option the scanner accepted, checking its value.
    private mutating func apply(_ longName: String, value text: String, spelling flag: String) throws(UsageError) {
        func positive() throws(UsageError) -> Double {
            // Bounded so that nanosecond arithmetic (Int64) cannot overflow: 366 days at most.
            guard let number = Double(text), number.isFinite, number > 0, number <= DurationParser.maximumSeconds
            else {
                throw UsageError(
                    message:
                        "\(flag) must be a positive number of seconds, at most 31622400 (366 days), got \"\(text)\"")
            }
            return number
        }
        func count() throws(UsageError) -> Int {
            guard let number = Int(text), number > 0 else {
                throw UsageError(message: "\(flag) must be a whole number > 0, got \"\(text)\"")
            }
            return number
        }
        switch longName {
        case "--socket":
            // An empty or over-long path can name no socket (sun_path holds 107 bytes).
            do throws(UnixSocket.AddressError) {
                try UnixSocket.checkPath(text)
            } catch {
                throw UsageError(message: "\(flag): \(error)")
            }
            socketPath = text
        case "--state-dir": stateDirectory = text
        case "--config": configPath = text
        case "--exit-when-idle": exitWhenIdleSeconds = try positive()
        case "--request-timeout": requestTimeoutSeconds = try positive()
        case "--action-timeout": actionTimeoutSeconds = try positive()
        case "--max-connections": maximumConnections = try count()
        case "--max-timers-per-user": timersPerUser = try count()
        case "--max-connections-per-user": maximumConnectionsPerUser = try count()
        case "--idle-timeout":
            do {
                idleTimeoutSeconds = try DurationParser.seconds(from: text)
            } catch {
                throw UsageError(message: "\(flag): \(error)")
            }
        case "--journal-max-records": journalMaximumRecords = try count()
        case "--socket-mode":
            guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                throw UsageError(
                    message: "--socket-mode must be octal permissions such as 0600 or 0660, got \"\(text)\"")
            }
            socketMode = mode
        case "--history-limit":
            guard let number = Int(text), number >= 0 else {
                throw UsageError(message: "\(flag) must be a whole number ≥ 0, got \"\(text)\"")
            }
            historyLimit = number
        case "--history-max-age":
            do {
                historyMaximumAge = try DurationParser.seconds(from: text)
            } catch {
                throw UsageError(message: "\(flag): \(error)")
            }
        case "--log-level":
            guard let level = LogLevel(rawValue: text) else {
                throw UsageError(message: "\(flag) must be \(LogLevel.choices), got \"\(text)\"")
            }
            logLevel = level
        case "--save":
            guard let policy = SavePolicy(rawValue: text) else {
                throw UsageError(message: "--save must be change or exit, got \"\(text)\"")
            }
            savePolicy = policy
        case "--accept-state-loss": stateLossPolicy = .accept
        case "--store":
            guard !text.isEmpty else { throw UsageError(message: "--store needs a PostgreSQL connection string") }
            storeConnection = text
        case "--host-id":
            guard !text.isEmpty, text.utf8.count <= 255, !text.contains(where: { $0.isWhitespace || $0.isNewline })
            else {
                throw UsageError(message: "--host-id must be 1 to 255 bytes without spaces, got \"\(text)\"")
            }
            hostID = text
        case "--pg-lock-timeout", "--pg-statement-timeout", "--pg-idle-in-transaction-timeout":
            let seconds: Double
            do {
                seconds = try DaemonConfig.timeoutSeconds(text)
            } catch {
                throw UsageError(message: "\(flag): \(error) (0 turns it off)")
            }
            switch longName {
            case "--pg-lock-timeout": postgresLockTimeoutSeconds = seconds
            case "--pg-statement-timeout": postgresStatementTimeoutSeconds = seconds
            default: postgresIdleInTransactionTimeoutSeconds = seconds
            }
        case "--metrics":
            do throws(MetricsAddress.ParseError) {
                metricsAddress = try MetricsAddress(parsing: text)
            } catch {
                throw UsageError(message: "\(flag): \(error)", isConfiguration: true)
            }
        case "--metrics-timers": metricsTimers = true
        case "--migrate-only": migrateOnly = true
        case "--shared": shared = true
        case "--help": showHelp = true
        case "--version": showVersion = true
        default:
            // Only reachable if the table gains an option that this switch does not know.
            throw UsageError(message: "unknown argument \"\(flag)\"")
        }
    }
}
