import Countdown
import TimerModel
import TimerProtocol
import TimerSystem

/// timerd's command line.
public struct DaemonOptions: Sendable, Equatable {
    /// The control socket's path; default ``RuntimePaths/defaultSocketPath()``.
    public var socketPath: String?
    /// The state directory; default ``RuntimePaths/defaultStateDirectory()``.
    public var stateDirectory: String?
    /// Exit after this many seconds with no live timers and no clients (set when autostarted).
    public var exitWhenIdleSeconds: Double?
    /// Seconds a client may take to complete a started request line (default 10).
    public var requestTimeoutSeconds: Double = 10
    /// `--max-connections`: the most concurrent client connections; `nil` takes ``DaemonConfig``'s
    /// `max_connections` (default 1,024).
    public var maximumConnections: Int?
    /// `--max-timers-per-user`: the most live timers per uid; `nil` takes ``DaemonConfig``'s
    /// `max_timers_per_user` (default 10,000).
    public var timersPerUser: Int?
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
    /// Compact the journal into a snapshot after this many records (default 10,000); hidden, for tests.
    public var journalMaximumRecords: Int = 10_000
    /// When the state is saved (default ``SavePolicy/everyChange``; `--save exit` is for benchmarks).
    public var savePolicy: SavePolicy = .everyChange
    /// `--help` was given.
    public var showHelp = false
    /// `--version` was given.
    public var showVersion = false

    /// Creates the defaults.
    public init() {}

    /// The usage text printed by `timerd --help`.
    public static let help = """
        Usage: timerd [--socket PATH] [--state-dir DIR] [--config PATH] [OPTIONS]

        The timer daemon: counts timers down on the boot-time clock, keeps them in its state
        directory across restarts, and serves timerctl on a Unix socket. Runs in the foreground
        and logs one line per event to stderr; SIGTERM or SIGINT stop it, SIGHUP (or
        'timerctl reload') re-reads the configuration file. Under systemd it adopts a passed
        socket (LISTEN_FDS, name "control") and speaks sd_notify (Type=notify, WatchdogSec=).

        Options:
          --socket PATH             control socket (default $XDG_RUNTIME_DIR/timerd/timerd.sock,
                                    else /tmp/timerd-UID/timerd.sock)
          --state-dir DIR           state directory (default $STATE_DIRECTORY, else
                                    $XDG_STATE_HOME/timerd, else ~/.local/state/timerd;
                                    /var/lib/timerd for root)
          --config PATH             configuration file (default /etc/timerd.conf for root,
                                    else $XDG_CONFIG_HOME/timerd/timerd.conf); keys
                                    history_limit, history_max_age, max_timers_per_user,
                                    max_connections; a bad file at start-up exits 78
          --exit-when-idle SECONDS  exit after SECONDS with no live timers and no clients
                                    (timerctl starts the daemon with 300)
          --request-timeout SECONDS drop a client whose request line stays incomplete this long
                                    (default 10)
          --max-connections N       most concurrent clients (default 1024; overrides the file)
          --max-timers-per-user N   most live timers per user (default 10000; overrides the file)
          --socket-mode MODE        octal permissions of the socket (default 0600; 0666 lets
                                    every user connect, each seeing only their own timers)
          --history-limit N         keep the last N ended timers for status --all (default 1000;
                                    overrides the file)
          --history-max-age DURATION
                                    keep ended timers this long (default 7d; overrides the file);
                                    the smaller of the two limits wins
          --save WHEN               change: save every change before acknowledging it (default);
                                    exit: only at a clean stop (benchmarks; a crash loses timers)
          -h, --help                show this help
          --version                 show the version

        """

    /// Errors in timerd's arguments.
    public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What was wrong.
        public var message: String
        /// The message.
        public var description: String { message }
    }

    /// Parses timerd's arguments (without the program name).
    ///
    /// - Throws: ``UsageError`` naming the bad argument and what is allowed.
    public static func parse(_ arguments: [String]) throws(UsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var index = 0
        func value(_ flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            return arguments[index]
        }
        func positive(_ flag: String) throws(UsageError) -> Double {
            let text = try value(flag)
            // Bounded so that nanosecond arithmetic (Int64) cannot overflow: 366 days at most.
            guard let number = Double(text), number.isFinite, number > 0, number <= DurationParser.maximumSeconds
            else {
                throw UsageError(
                    message:
                        "\(flag) must be a positive number of seconds, at most 31622400 (366 days), got \"\(text)\"")
            }
            return number
        }
        func count(_ flag: String) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else {
                throw UsageError(message: "\(flag) must be a whole number > 0, got \"\(text)\"")
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--socket": options.socketPath = try value(argument)
            case "--state-dir": options.stateDirectory = try value(argument)
            case "--config": options.configPath = try value(argument)
            case "--exit-when-idle": options.exitWhenIdleSeconds = try positive(argument)
            case "--request-timeout": options.requestTimeoutSeconds = try positive(argument)
            case "--max-connections": options.maximumConnections = try count(argument)
            case "--max-timers-per-user": options.timersPerUser = try count(argument)
            case "--socket-mode":
                let text = try value(argument)
                guard let mode = UInt32(text, radix: 8), mode <= 0o777 else {
                    throw UsageError(
                        message: "--socket-mode must be octal permissions such as 0600 or 0660, got \"\(text)\"")
                }
                options.socketMode = mode
            case "--history-limit":
                let text = try value(argument)
                guard let number = Int(text), number >= 0 else {
                    throw UsageError(message: "\(argument) must be a whole number ≥ 0, got \"\(text)\"")
                }
                options.historyLimit = number
            case "--history-max-age":
                let text = try value(argument)
                do {
                    options.historyMaximumAge = try DurationParser.seconds(from: text)
                } catch {
                    throw UsageError(message: "\(argument): \(error)")
                }
            case "--journal-max-records": options.journalMaximumRecords = try count(argument)
            case "--save":
                let text = try value(argument)
                guard let policy = SavePolicy(rawValue: text) else {
                    throw UsageError(message: "--save must be change or exit, got \"\(text)\"")
                }
                options.savePolicy = policy
            case "-h", "--help": options.showHelp = true
            case "--version": options.showVersion = true
            default: throw UsageError(message: "unknown argument \"\(argument)\"")
            }
            index += 1
        }
        return options
    }
}
