import Testing

@testable import TimerDaemon

/// `--log-level` and `log_level=`: which of timerd's lines reach stderr. The priorities are
/// syslog(3)'s (3 `LOG_ERR`, 4 `LOG_WARNING`, 6 `LOG_INFO`), the ones ``LogLine`` marks lines with.
@Suite("timerd's log level")
struct LogLevelTests {
    @Test(
        "Each level admits its own priority and the more severe ones",
        arguments: [
            (LogLevel.error, [3]), (.warning, [3, 4]), (.info, [3, 4, 6]),
        ])
    func admits(level: LogLevel, admitted: [Int]) {
        #expect([3, 4, 6].filter { level.admits(priority: $0) } == admitted)
    }

    @Test("--log-level takes error, warning or info; anything else is a usage error")
    func flag() throws {
        #expect(try DaemonOptions.parse(["--log-level", "warning"]).logLevel == .warning)
        #expect(try DaemonOptions.parse(["--log-level=error"]).logLevel == .error)
        #expect(try DaemonOptions.parse([]).logLevel == nil)
        #expect(throws: DaemonOptions.UsageError(message: "--log-level must be error, warning or info, got \"debug\""))
        {
            try DaemonOptions.parse(["--log-level", "debug"])
        }
    }

    @Test("log_level= in the file, overridden by the flag; the default is info")
    func file() throws {
        #expect(DaemonConfig().logLevel == .info)
        let config = try DaemonConfig.parse("log_level = error\n", path: "/x.conf")
        #expect(config.logLevel == .error)
        #expect(config.overridden(by: try DaemonOptions.parse(["--log-level", "info"])).logLevel == .info)
        #expect(config.overridden(by: DaemonOptions()).logLevel == .error)
        #expect(
            throws: DaemonConfig.ConfigError(
                path: "/x.conf", line: 2, message: "log_level must be error, warning or info, got \"LOUD\"")
        ) {
            try DaemonConfig.parse("\nlog_level=LOUD\n", path: "/x.conf")
        }
    }
}
