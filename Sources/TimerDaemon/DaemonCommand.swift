import Countdown
import Glibc
import TimerModel
import TimerProtocol
import TimerStorage
import TimerSystem

/// timerd's entry point: parse, run, map the outcome to an exit status.
public enum DaemonCommand {
    /// Runs timerd with `arguments` (without the program name).
    ///
    /// - Returns: the exit status: 0 after a clean stop, 64 for a usage error (`EX_USAGE`),
    ///   78 for a bad configuration file (`EX_CONFIG`), 65 when saved changes are missing (a deleted
    ///   or mismatched snapshot or journal; `EX_DATAERR`; `--accept-state-loss` starts anyway),
    ///   1 when the daemon cannot start (socket in use, unusable directory, unreadable state, a bad
    ///   passed socket).
    public static func main(_ arguments: [String]) -> Int32 {
        let options: DaemonOptions
        do {
            options = try DaemonOptions.parse(arguments)
        } catch {
            printError(
                "Error: \(error)\nUsage: \(DaemonOptions.usageLine)\nSee 'timerd --help'."
            )
            return 64
        }
        if options.showHelp {
            StandardStream.out(DaemonOptions.help)
            return 0
        }
        if options.showVersion {
            StandardStream.out("timerd \(ServiceVersion.version) (protocol \(ServiceVersion.protocolVersion))\n")
            return 0
        }
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

    /// Writes one line to stderr, prefixed with `timerd: ` unless it already is, or is an
    /// `Error:` or `WARNING:` line (which must start the line to be found), then marked by
    /// ``LogLine``: a journal priority `<N>` when stderr is the journal, else an ISO 8601 time.
    static func printError(_ line: String) {
        let text =
            line.utf8.starts(with: "timerd: ".utf8) || line.utf8.starts(with: "Error: ".utf8)
                || line.utf8.starts(with: "WARNING: ".utf8)
            ? line : "timerd: " + line
        LogLine.write(text)
    }
}
