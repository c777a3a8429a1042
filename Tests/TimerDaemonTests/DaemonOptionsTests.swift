import Testing

@testable import TimerDaemon

@Suite("timerd command line")
struct DaemonOptionsTests {
    @Test("flags and their values")
    func flags() throws {
        let options = try DaemonOptions.parse([
            "--socket", "/tmp/t.sock", "--state-dir", "/tmp/state", "--exit-when-idle", "300", "--request-timeout",
            "2.5",
            "--max-connections", "8", "--max-timers-per-user", "100", "--save", "exit",
        ])
        #expect(options.socketPath == "/tmp/t.sock")
        #expect(options.stateDirectory == "/tmp/state")
        #expect(options.exitWhenIdleSeconds == 300)
        #expect(options.requestTimeoutSeconds == 2.5)
        #expect(options.maximumConnections == 8)
        #expect(options.timersPerUser == 100)
        #expect(options.savePolicy == .atExit)
        #expect(DaemonOptions().savePolicy == .everyChange)
        #expect(try DaemonOptions.parse([]) == DaemonOptions())
    }

    @Test(
        "bad arguments name what is wrong",
        arguments: [
            (["--frob"], "unknown argument \"--frob\""),
            (["--save", "never"], "--save must be change or exit, got \"never\""),
            (["--socket"], "--socket needs a value"),
            (
                ["--exit-when-idle", "soon"],
                "--exit-when-idle must be a positive number of seconds, at most 31622400 (366 days), got \"soon\""
            ),
            (
                ["--request-timeout", "-1"],
                "--request-timeout must be a positive number of seconds, at most 31622400 (366 days), got \"-1\""
            ),
            // Regression: values past Int64 nanoseconds trapped the daemon's event loop at start.
            (
                ["--exit-when-idle", "1e300"],
                "--exit-when-idle must be a positive number of seconds, at most 31622400 (366 days), got \"1e300\""
            ),
            (
                ["--request-timeout", "1e10"],
                "--request-timeout must be a positive number of seconds, at most 31622400 (366 days), got \"1e10\""
            ),
            (["--max-connections", "0"], "--max-connections must be a whole number > 0, got \"0\""),
        ])
    func badArguments(_ arguments: [String], _ message: String) {
        #expect(throws: DaemonOptions.UsageError(message: message)) { try DaemonOptions.parse(arguments) }
    }

    @Test("--help and --version exit 0 without starting")
    func helpAndVersion() {
        #expect(DaemonCommand.main(["--help"]) == 0)
        #expect(DaemonCommand.main(["--version"]) == 0)
        #expect(DaemonCommand.main(["--bogus"]) == 64)
    }
}
