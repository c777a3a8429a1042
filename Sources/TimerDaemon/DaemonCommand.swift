import Countdown
import Glibc
import TimerModel
import TimerPostgres
import TimerProtocol
import TimerStorage
import TimerSystem

/// timerd's entry point: parse, run, map the outcome to an exit status.
public enum DaemonCommand {
    /// Runs timerd with `arguments` (without the program name).
    ///
    /// - Returns: the exit status: 0 after a clean stop, 64 for a usage error (`EX_USAGE`),
    ///   78 for a bad configuration file or a refused `--metrics` address (`EX_CONFIG`), 65 when saved changes are missing (a deleted
    ///   or mismatched snapshot or journal; `EX_DATAERR`; `--accept-state-loss` starts anyway),
    ///   1 when the daemon cannot start (socket in use, unusable directory, unreadable state, a bad
    ///   passed socket).
    public static func main(_ arguments: [String]) -> Int32 {
        // Before anything reads TimeZone.current (the engine does): a TZ Foundation traps on becomes UTC.
        _ = UnsafeTZ.original
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments)
        } catch {
            printError(
                "Error: \(error)\nSee 'timerd --help'."
            )
            return error.isConfiguration ? 78 : 64
        }
        if options.showHelp {
            StandardStream.out(DaemonOptions.help)
            return 0
        }
        if options.showVersion {
            StandardStream.out("timerd \(ServiceVersion.version) (protocol \(ServiceVersion.protocolVersion))\n")
            return 0
        }
        if options.migrateOnly { return migrate(options) }
        let daemon: Daemon
        do {
            daemon = try Daemon(options: options, log: printError)
        } catch let error as DaemonConfig.ConfigError {
            printError("timerd: cannot start: \(error)")
            return 78
        } catch StoreError.stateLost(let reason) {
            printError("timerd: cannot start: \(reason)")
            return 65
        } catch {
            printError("timerd: cannot start: \(error)")
            return 1
        }
        return daemon.run()
    }

    /// `timerd --migrate-only`: creates or migrates the PostgreSQL schema that
    /// `--store` (or the configuration's `store`) names, prints what it did, and exits.
    ///
    /// - Parameter options: the parsed command line.
    /// - Returns: 0 when the schema is current, 64 without a store, 78 for a bad configuration
    ///   file, 1 when the database refuses or cannot be reached.
    static func migrate(_ options: DaemonOptions) -> Int32 {
        let connectionString: String
        do {
            let (config, _) = try DaemonConfig.resolve(
                options: options, uid: getuid(), environment: ProcessEnvironment.current())
            guard let chosen = options.storeConnection ?? config.storeConnection else {
                printError("Error: --migrate-only needs --store (or store= in the configuration file)")
                return 64
            }
            connectionString = chosen
        } catch {
            printError("timerd: cannot start: \(error)")
            return 78
        }
        do {
            let connection = try PostgresConnection(connectionString: connectionString)
            let applied = try PostgresSchema.migrate(connection)
            let version = PostgresSchema.currentVersion
            StandardStream.out(
                applied.isEmpty
                    ? "timerd: schema already at version \(version)\n"
                    : "timerd: schema migrated to version \(version) (applied \(applied.map(String.init).joined(separator: ", ")))\n"
            )
            return 0
        } catch {
            printError("timerd: cannot migrate: \(error)")
            return 1
        }
    }

    /// Writes one line to stderr, prefixed with `timerd: ` unless it already is, or is an
    /// `Error:` or `WARNING:` line (which must start the line to be found), then marked by
    /// ``LogLine``: a journal priority `<N>` when stderr is the journal, else an ISO 8601 time.
    static func printError(_ line: String) {
        // The prefix is added by LogLine as bytes, not by a new String: a pipelined start logs a
        // line, and the generic prefix tests plus the concatenation were a visible share of it.
        let isMarked =
            LogLine.hasPrefix(line, "timerd: ") || LogLine.hasPrefix(line, "Error: ")
            || LogLine.hasPrefix(line, "WARNING: ")
        LogLine.write(line, prefix: isMarked ? "" : "timerd: ")
    }
}
