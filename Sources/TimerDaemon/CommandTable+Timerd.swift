import CommandLineTable

extension CommandTable {
    /// `timerd`'s command line: options only, no commands. ``DaemonOptions/parse(_:)`` scans with
    /// it and ``DaemonOptions/help`` is rendered from it.
    package static let timerd = CommandTable(
        programName: "timerd",
        synopsis: [
            .option("--socket", isOptional: true), .option("--state-dir", isOptional: true),
            .option("--config", isOptional: true), .text("[OPTIONS]"),
        ],
        globalOptions: [
            OptionSpec(
                ["--socket"], .value(ValueSpec("PATH", .file)),
                help: """
                    control socket (default $XDG_RUNTIME_DIR/timerd/timerd.sock,
                    else /tmp/timerd-UID/timerd.sock)
                    """),
            OptionSpec(
                ["--state-dir"], .value(ValueSpec("DIR", .directory)),
                help: """
                    state directory (default $STATE_DIRECTORY, else
                    $XDG_STATE_HOME/timerd, else ~/.local/state/timerd;
                    /var/lib/timerd for root)
                    """),
            OptionSpec(
                ["--config"], .value(ValueSpec("PATH", .file)),
                help: """
                    configuration file (default /etc/timerd.conf for root,
                    else $XDG_CONFIG_HOME/timerd/timerd.conf); keys
                    history_limit, history_max_age, max_timers_per_user,
                    max_connections, max_connections_per_user, idle_timeout,
                    log_level, store, metrics; a bad file at start-up exits 78
                    """),
            OptionSpec(
                ["--exit-when-idle"], .value(ValueSpec("SECONDS", .number)),
                help: """
                    exit after SECONDS with no live timers and no clients
                    (timerctl starts the daemon with 300)
                    """),
            OptionSpec(
                ["--request-timeout"], .value(ValueSpec("SECONDS", .number)),
                help: """
                    drop a client whose request line stays incomplete this long
                    (default 10)
                    """),
            OptionSpec(
                ["--action-timeout"], .value(ValueSpec("SECONDS", .number)),
                help: """
                    stop an on-finish action (start --exec, --notify) after
                    SECONDS: SIGTERM to its process group, SIGKILL 2 s later
                    (default 60)
                    """),
            OptionSpec(
                ["--max-connections"], .value(ValueSpec("N", .number)),
                help: "most concurrent clients (default 1024; overrides the file)"),
            OptionSpec(
                ["--max-connections-per-user"], .value(ValueSpec("N", .number)),
                help: """
                    most concurrent clients of one user other than root and
                    timerd's own (default 256; overrides the file)
                    """),
            OptionSpec(
                ["--idle-timeout"], .value(ValueSpec("DURATION", .duration)),
                help: """
                    close a client that sent nothing this long and has no
                    pending wait (default 5min; overrides the file)
                    """),
            OptionSpec(
                ["--max-timers-per-user"], .value(ValueSpec("N", .number)),
                help: "most live timers per user (default 10000; overrides the file)"),
            OptionSpec(
                ["--socket-mode"], .value(ValueSpec("MODE", .choice(["0600", "0660", "0666"]))),
                help: """
                    octal permissions of the socket (default 0600; 0666 lets
                    every user connect, each seeing only their own timers)
                    """),
            OptionSpec(
                ["--history-limit"], .value(ValueSpec("N", .number)),
                help: """
                    keep each user's last N ended timers for status --all
                    (default 1000; overrides the file)
                    """),
            OptionSpec(
                ["--history-max-age"], .value(ValueSpec("DURATION", .duration)),
                help: """
                    keep ended timers this long (default 7d; overrides the file);
                    the smaller of the two limits wins
                    """),
            OptionSpec(
                ["--log-level"], .value(ValueSpec("LEVEL", .choice(LogLevel.allCases.map(\.rawValue)))),
                help: """
                    write error lines only, error and warning, or info: every
                    line (default info; overrides the file)
                    """),
            OptionSpec(
                ["--journal-max-records"], .value(ValueSpec("N", .number)),
                help: "compact the journal into a snapshot after N records (default 10000; for tests)",
                isHidden: true),
            OptionSpec(
                ["--save"], .value(ValueSpec("WHEN", .choice(["change", "exit"]))),
                help: """
                    change: save every change before acknowledging it (default);
                    exit: only at a clean stop (benchmarks; a crash loses timers)
                    """),
            OptionSpec(
                ["--accept-state-loss"],
                help: """
                    start even when the snapshot or the journal is missing or
                    damaged beyond repair, going on with what is left (else exit 65)
                    """),
            OptionSpec(
                ["--store"], .value(ValueSpec("CONNINFO", .text)),
                help: """
                    keep the timers in PostgreSQL (a libpq connection string or
                    postgresql:// URI, no password: use ~/.pgpass) instead of
                    the state directory; also store= in the file
                    """),
            OptionSpec(
                ["--host-id"], .value(ValueSpec("NAME", .text)),
                help: "this host's name in the database (default hostname-bootid)"),
            OptionSpec(
                ["--shared"],
                help: """
                    with --store: serve the timers together with other timerd
                    hosts on the same schema (also shared=yes in the file)
                    """),
            OptionSpec(
                ["--pg-lock-timeout"], .value(ValueSpec("DURATION", .duration)),
                help: "with --store: PostgreSQL lock_timeout (default 2s; 0 turns it off)"),
            OptionSpec(
                ["--pg-statement-timeout"], .value(ValueSpec("DURATION", .duration)),
                help: "with --store: PostgreSQL statement_timeout (default 30s; 0 turns it off)"),
            OptionSpec(
                ["--pg-idle-in-transaction-timeout"], .value(ValueSpec("DURATION", .duration)),
                help: """
                    with --store: PostgreSQL idle_in_transaction_session_timeout
                    (default 3s; 0 turns it off)
                    """),
            OptionSpec(
                ["--metrics"], .value(ValueSpec("ADDRESS", .text)),
                help: """
                    serve Prometheus metrics over HTTP at a Unix socket path
                    (mode 0660) or a loopback 127.0.0.1:PORT, [::1]:PORT or
                    localhost:PORT (also metrics= in the file; default: off)
                    """),
            OptionSpec(
                ["--metrics-timers"],
                help: """
                    add a series per named running timer, labelled with its
                    owner and name, to the metrics (also metrics_timers=yes)
                    """),
            OptionSpec(
                ["--migrate-only"],
                help: "create or migrate the PostgreSQL schema, then exit"),
            OptionSpec(["-h", "--help"], help: "show this help"),
            OptionSpec(["--version"], help: "show the version"),
        ],
        commands: [])

    /// The text of `timerd --help` between the usage line and the options.
    static let timerdDiscussion = """
        The timer daemon: counts timers down on the boot-time clock, keeps them in its state
        directory across restarts, and serves timerctl on a Unix socket. Runs in the foreground
        and logs one line per event to stderr; SIGTERM or SIGINT stop it, SIGHUP (or
        'timerctl reload') re-reads the configuration file. Under systemd it adopts a passed
        socket (LISTEN_FDS, name "control") and speaks sd_notify (Type=notify, WatchdogSec=).
        """
}
