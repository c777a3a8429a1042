import Foundation
import Testing
import TimerPostgres

@testable import TimerDaemon

@Suite("timerd.conf: KEY=VALUE lines with file:line errors")
struct DaemonConfigTests {
    @Test("An empty file, comments and blank lines give the defaults")
    func defaults() throws {
        let config = try DaemonConfig.parse("# nothing here\n\n   \n  # indented comment\n", path: "/etc/timerd.conf")
        #expect(config == DaemonConfig())
        #expect(config.historyLimit == 1_000)
        #expect(config.historyMaxAgeSeconds == 604_800)
        #expect(config.maximumTimersPerUser == 10_000)
        #expect(config.maximumConnections == 1_024)
    }

    @Test("Every key is read, with spaces around = and CRLF line ends")
    func everyKey() throws {
        let text = "history_limit = 50\r\nhistory_max_age=2d\nmax_timers_per_user=7\n  max_connections=3  \n"
        let config = try DaemonConfig.parse(text, path: "/x.conf")
        #expect(config.historyLimit == 50)
        #expect(config.historyMaxAgeSeconds == 172_800)
        #expect(config.maximumTimersPerUser == 7)
        #expect(config.maximumConnections == 3)
    }

    @Test("The PostgreSQL session timeouts: durations or 0 for off, flags win, in milliseconds for the session")
    func postgresTimeouts() throws {
        // PostgresSessionTimeouts.standard: 2 s, 30 s, 3 s.
        #expect(DaemonConfig().postgresTimeouts == .standard)
        let config = try DaemonConfig.parse(
            "pg_lock_timeout=500ms\npg_statement_timeout=0\npg_idle_in_transaction_timeout=4s\n", path: "/x")
        #expect(
            config.postgresTimeouts
                == PostgresSessionTimeouts(
                    lockMilliseconds: 500, statementMilliseconds: 0, idleInTransactionMilliseconds: 4_000))
        var options = DaemonOptions()
        options.postgresIdleInTransactionTimeoutSeconds = 1.5
        #expect(config.overridden(by: options).postgresTimeouts.idleInTransactionMilliseconds == 1_500)
        #expect(throws: DaemonConfig.ConfigError.self) { try DaemonConfig.parse("pg_lock_timeout=-1\n", path: "/x") }
    }

    @Test("The alarm keys: defaults 30 s, 600 s and 540 s (timerd.conf(5)); durations in any accepted form")
    func alarmKeys() throws {
        let defaults = DaemonConfig()
        #expect(defaults.ringIntervalSeconds == 30 && defaults.ringLimitSeconds == 600 && defaults.snoozeSeconds == 540)
        let config = try DaemonConfig.parse("ring_interval=500ms\nring_limit=PT1M\nsnooze=1h30m\n", path: "/x")
        #expect(config.ringIntervalSeconds == 0.5 && config.ringLimitSeconds == 60 && config.snoozeSeconds == 5_400)
    }

    @Test("The sound keys: auto and the player's own device by default; one player, and a device as given")
    func soundKeys() throws {
        let defaults = DaemonConfig()
        #expect(defaults.soundPlayer == nil && defaults.soundDevice == nil)
        let config = try DaemonConfig.parse("sound_player = aplay\nsound_device = file:'/tmp/x.raw',raw\n", path: "/x")
        #expect(config.soundPlayer == "aplay" && config.soundDevice == "file:'/tmp/x.raw',raw")
        #expect(try DaemonConfig.parse("sound_player=auto\n", path: "/x").soundPlayer == nil)
    }

    @Test("A key given twice takes its last value")
    func lastWins() throws {
        #expect(try DaemonConfig.parse("history_limit=1\nhistory_limit=2\n", path: "/x").historyLimit == 2)
    }

    @Test(
        "Bad lines are reported with file and line",
        arguments: [
            (
                "# c\n\nhistroy_limit=5\n",
                "/etc/timerd.conf:3: unknown key \"histroy_limit\"; keys: history_limit, history_max_age, "
                    + "max_timers_per_user, max_connections, max_connections_per_user, idle_timeout, log_level, store, shared, "
                    + "pg_lock_timeout, pg_statement_timeout, pg_idle_in_transaction_timeout, metrics, metrics_timers, "
                    + "ring_interval, ring_limit, snooze, sound_player, sound_device"
            ),
            (
                "sound_player=mpv\n",
                "/etc/timerd.conf:1: sound_player must be auto, pw-play, paplay, aplay, got \"mpv\""
            ),
            (
                "sound_device=\n",
                "/etc/timerd.conf:1: sound_device must be a device or sink name of 1 to 256 bytes, got \"\""
            ),
            ("ring_interval=2d\n", "/etc/timerd.conf:1: ring_interval must be at most 1d, got \"2d\""),
            ("snooze=0\n", "/etc/timerd.conf:1: snooze: duration must be > 0 and ≤ 366 days, got \"0\""),
            ("history_limit\n", "/etc/timerd.conf:1: expected KEY=VALUE, got \"history_limit\""),
            (
                "history_limit=-1\n",
                "/etc/timerd.conf:1: history_limit must be a whole number from 0 to 1000000, got \"-1\""
            ),
            (
                "max_connections=0\n",
                "/etc/timerd.conf:1: max_connections must be a whole number from 1 to 65536, got \"0\""
            ),
            (
                "max_timers_per_user=lots\n",
                "/etc/timerd.conf:1: max_timers_per_user must be a whole number from 1 to 1000000, got \"lots\""
            ),
        ])
    func badLines(text: String, message: String) {
        #expect(throws: DaemonConfig.ConfigError.self) { try DaemonConfig.parse(text, path: "/etc/timerd.conf") }
        do {
            _ = try DaemonConfig.parse(text, path: "/etc/timerd.conf")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("history_max_age uses the duration parser and names the key in errors")
    func badAge() {
        do {
            _ = try DaemonConfig.parse("\nhistory_max_age=soon\n", path: "/c")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 2)
            #expect(error.description.hasPrefix("/c:2: history_max_age: "))
        }
    }

    @Test("The default path: /etc for root, else XDG_CONFIG_HOME, else HOME")
    func defaultPath() {
        #expect(DaemonConfig.defaultPath(uid: 0, environment: ["XDG_CONFIG_HOME": "/x"]) == "/etc/timerd.conf")
        #expect(
            DaemonConfig.defaultPath(uid: 1000, environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/home/a"])
                == "/x/timerd/timerd.conf")
        #expect(
            DaemonConfig.defaultPath(uid: 1000, environment: ["HOME": "/home/a"])
                == "/home/a/.config/timerd/timerd.conf"
        )
        #expect(DaemonConfig.defaultPath(uid: 1000, environment: [:]) == nil)
    }

    @Test("Command-line flags override the file; --config chooses it; a missing default file means defaults")
    func resolve() throws {
        let directory = NSTemporaryDirectory() + "/timerd-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/timerd.conf"
        try "max_connections=5\nmax_timers_per_user=6\nhistory_limit=7\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        var options = try DaemonOptions.parse(["--config", path, "--max-connections", "9"])
        let resolved = try DaemonConfig.resolve(options: options, uid: 1000, environment: [:])
        #expect(resolved.path == path)
        #expect(resolved.config.maximumConnections == 9)
        #expect(resolved.config.maximumTimersPerUser == 6)
        #expect(resolved.config.historyLimit == 7)
        // The default path ($XDG_CONFIG_HOME/timerd/timerd.conf) missing: the defaults, silently.
        options.configPath = nil
        let defaults = try DaemonConfig.resolve(
            options: options, uid: 1000, environment: ["XDG_CONFIG_HOME": directory])
        #expect(defaults.path == directory + "/timerd/timerd.conf")
        #expect(defaults.config.historyLimit == 1_000)  // DaemonConfig's default
        #expect(try DaemonConfig.load(path: directory + "/missing.conf") == nil)
    }

    @Test("--config naming a missing file is an error (as nginx -c): the file and why, exit 78 in timerd")
    func explicitMissing() throws {
        let options = try DaemonOptions.parse(["--config", "/nonexistent/timerd.conf"])
        #expect(
            throws: DaemonConfig.ConfigError(
                path: "/nonexistent/timerd.conf", line: nil, message: "no such file (named by --config)")
        ) {
            try DaemonConfig.resolve(options: options, uid: 1000, environment: [:])
        }
        #expect(
            DaemonConfig.ConfigError(
                path: "/nonexistent/timerd.conf", line: nil, message: "no such file (named by --config)"
            )
            .description == "/nonexistent/timerd.conf: no such file (named by --config)")
    }
}
