// Over 450 lines on purpose: one declarative table (every command, option, usage and help line of
// timerctl as data, no logic); splitting it would scatter what ManPageTests compares with the man page.
import CommandLineTable

extension CommandTable {
    /// `timerctl`'s whole command line: the table that ``ControlOptions/parse(_:)`` scans with and
    /// ``HelpText`` renders from; completions and man-page checks read it too.
    ///
    /// Every ``Verb`` has exactly one command here, of the same name (checked by a test).
    package static let timerctl = CommandTable(
        programName: "timerctl",
        synopsis: [
            .option("--socket", isOptional: true), .option("--json", isOptional: true),
            .option("--no-autostart", isOptional: true), .text("COMMAND [ARGS]"),
        ],
        globalOptions: [
            OptionSpec(
                ["--socket"], .value(ValueSpec("PATH", .socket)), repetition: .rejected,
                help: "talk to the daemon on PATH (never starts one)"),
            OptionSpec(["--json"], help: "print JSON for scripts (see docs/protocol.md for the fields)"),
            OptionSpec(["--no-autostart"], help: "do not start timerd when none is running"),
            OptionSpec(["-h", "--help"], help: "show help"),
            OptionSpec(["--version"], help: "show the version"),
        ],
        commands: [
            start, command("stop", "stop (cancel) a timer", Discussion.stop),
            command("pause", "pause a running timer", Discussion.pause),
            command("resume", "resume a paused timer", Discussion.resume), status,
            wait,
            logs,
            events,
            bar,
            notifier,
            extend, command("restart", "start a timer again with the same durations", Discussion.restart),
            command("beat", "re-arm a heartbeat timer to its whole duration from now", Discussion.beat),
            command("ack", "acknowledge a ringing timer: it stops ringing and finishes", Discussion.ack),
            snooze,
            rename,
            command("skip", "end the current step of a group and start the next", Discussion.skip, aliases: ["next"]),
            remove, watch,
            CommandSpec(
                "ping", usages: [Usage([], summary: "check that timerd answers")],
                discussion: "Check that timerd answers; print its version, protocol version and pid."),
            CommandSpec(
                "reload", usages: [Usage([], summary: "make timerd re-read its configuration file")],
                discussion: Discussion.reload),
            stats,
            pick,
            CommandSpec(
                "completion",
                arguments: [
                    ArgumentSpec(ValueSpec("SHELL", .choice(CompletionShell.allCases.map(\.rawValue))), .exactlyOne)
                ],
                usages: [Usage([.argument("SHELL")], summary: "print a completion script for bash, zsh or fish")],
                discussion: Discussion.completion),
            CommandSpec(
                "help", arguments: [ArgumentSpec(ValueSpec("COMMAND", .command), .optional)],
                usages: [Usage([.argument("COMMAND")], summary: "show help for timerctl or for one command")],
                discussion: "Show help for timerctl or for one command."),
            calendar,
            CommandSpec(
                completionTimerLister, usages: [Usage([], summary: "print live timers for a completion script")],
                discussion: "Print the ids and names of live timers, one per line, for a completion script.",
                isHidden: true),
        ])

    /// The hidden command that completion scripts run to get live timers' ids and names.
    package static let completionTimerLister = "__complete-timers"

    /// The text of `timerctl --help` between the usage line and the command list.
    static let timerctlDiscussion = """
        Control timers kept by timerd. When no daemon answers on the default socket
        ($XDG_RUNTIME_DIR/timerd/timerd.sock, else /tmp/timerd-UID/timerd.sock), timerctl
        starts one.
        """

    /// The text of `timerctl --help` after the global options.
    static let timerctlExitStatus = """
        Exit status: 0 success, 1 operation failed (no such timer, invalid state, wait on a
        stopped timer, a bad configuration file on reload, a name in use), 64 usage error,
        69 daemon unavailable (or no terminal for watch), 76 bad reply from the daemon.
        See 'timerctl COMMAND --help' for a command's details.
        """

    private static let timer = ArgumentSpec(ValueSpec("ID|NAME", .timer), .exactlyOne)

    /// `--minute-interval N`, for `start` and `pick`.
    private static func minuteInterval(help: String) -> OptionSpec {
        OptionSpec(
            ["--minute-interval"],
            .value(ValueSpec("N", .choice(["1", "2", "3", "4", "5", "6", "10", "12", "15", "20", "30"]))), help: help)
    }

    /// The calendars `pick --calendar` takes, by their CLDR names, for completion: the names of the
    /// picker's own table (DatePicking's `CalendarIdentifiers`; a test keeps the two equal). The
    /// picker also takes Swift's case names (`islamicUmmAlQura`), which are not offered.
    package static let calendarNames = [
        "gregorian", "buddhist", "chinese", "coptic", "ethiopic", "ethiopic-amete-alem", "hebrew", "iso8601",
        "indian", "islamic", "islamic-civil", "islamic-tbla", "islamic-umalqura", "japanese", "persian", "roc",
    ]

    /// `--min`/`--max TIME` of `pick`.
    private static let pickTime = ValueSpec(
        "TIME",
        help: """
            an instant with Z or an offset (2026-12-01T09:00:00+01:00), or a local HH:MM[:SS]
            or YYYY-MM-DDTHH:MM[:SS] as for start --at.
            """)

    /// `pick`: the terminal date picker. `timerctl` scans the line with this table and passes the
    /// options on to the `timerpick` executable, which scans them with the same table.
    private static let pick = CommandSpec(
        "pick",
        options: [
            OptionSpec(
                ["--mode"],
                .value(
                    ValueSpec(
                        "MODE", .choice(["time", "date", "date-and-time", "countdown"]),
                        help: "time, date, date-and-time (the default) or countdown.")),
                repetition: .rejected, help: "time, date, date-and-time (default) or countdown"),
            minuteInterval(help: "minute wheel step: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30 (default 1)"),
            OptionSpec(["--min"], .value(pickTime), repetition: .rejected, help: "the earliest time the picker offers"),
            OptionSpec(["--max"], .value(pickTime), repetition: .rejected, help: "the latest time the picker offers"),
            OptionSpec(
                ["--locale"],
                .value(ValueSpec("LOCALE", help: "en_US, de_DE, ja_JP, ... (default: the system's).")),
                repetition: .rejected, help: "the locale of the wheels' order and titles"),
            OptionSpec(
                ["--calendar"],
                .value(
                    ValueSpec(
                        "CALENDAR", .choice(calendarNames),
                        help:
                            "gregorian, japanese, hebrew, chinese, buddhist, islamic, persian, ... (default: the locale's)."
                    )),
                repetition: .rejected, help: "the calendar of the date wheels"),
        ],
        usages: [
            Usage(
                [
                    .option("--mode", isOptional: true), .option("--minute-interval", isOptional: true),
                    .option("--min", isOptional: true), .option("--max", isOptional: true),
                    .option("--locale", isOptional: true), .option("--calendar", isOptional: true),
                ], summary: "pick a time in a terminal date picker and print it")
        ],
        discussion: """
            Show a date picker in the terminal and print what you pick on standard output: an
            ISO 8601 instant with its offset (2026-03-29T03:30:00+02:00), or in countdown mode a
            duration (1h5m). timerctl start --at "$(timerctl pick)" starts a timer that ends at
            the picked time; timerctl start --pick does the same in one step.
            Keys: Left/Right choose a wheel, Up/Down spin it, PageUp/PageDown spin 10 rows,
            digits type a value, Enter accepts, Esc cancels. The picker follows the date-picker
            rules (docs/datepicker-rules.md). The time zone is the system's (TZ); NO_COLOR turns
            attributes off. Exit status: 0 picked, 1 cancelled (Esc), 64 usage error, 69 no
            terminal, 128+N killed by signal N.
            """)

    /// `calendar`: a systemd.time(7) calendar expression's normalized form and next elapses, computed locally
    /// by the `timerpick` executable (it links the time-zone data timerctl leaves out), no daemon needed.
    private static let calendar = CommandSpec(
        "calendar",
        arguments: [
            ArgumentSpec(ValueSpec("EXPR", help: "a calendar expression, e.g. 'Mon..Fri 07:00'."), .exactlyOne)
        ],
        options: [
            OptionSpec(
                ["--iterations"], .value(ValueSpec("N", .number, help: "1 to 1000 (default 1).")),
                repetition: .rejected, help: "how many elapses to show (default 1)"),
            OptionSpec(
                ["--base-time"],
                .value(
                    ValueSpec(
                        "TIME",
                        help: "an ISO 8601 instant with Z or an offset (2026-12-01T09:00:00+01:00), or @SECONDS"
                            + " since the epoch.")),
                repetition: .rejected, help: "compute elapses after TIME instead of now"),
        ],
        usages: [
            Usage(
                [
                    .argument("EXPR"), .option("--iterations", isOptional: true),
                    .option("--base-time", isOptional: true), .option("--json", isOptional: true),
                ], summary: "show a calendar expression's normalized form and next elapses")
        ],
        discussion: """
            Read a calendar expression in the syntax of systemd.time(7) (OnCalendar=), such as
            'Mon..Fri 07:00', '*:0/15', '*-*~01' or 'weekly Europe/Paris', and print it the way
            systemd-analyze calendar does: the normalized form, the next elapse in local time
            and in UTC, and how far it is from now. The zone is the expression's own, else TZ,
            else the system's. The elapses are systemd's except at daylight-saving changes: a
            time skipped by a gap elapses once, moved forward by the gap (02:30 becomes 03:30);
            a repeated time elapses once, at its first occurrence (docs/calendar.md). --json
            prints {"normalized": ..., "elapses": [ISO 8601 instants in UTC]}. Runs locally, no
            daemon needed. Exit status: 0 success, 64 usage error or invalid expression, 69 the
            helper cannot run.
            """)

    /// A command that takes one timer and no options (`stop`, `pause`, `resume`, `wait`).
    private static func command(_ name: String, _ summary: String, _ discussion: String, aliases: [String] = [])
        -> CommandSpec
    {
        CommandSpec(
            name, aliases: aliases, arguments: [timer], usages: [Usage([.argument("ID|NAME")], summary: summary)],
            discussion: discussion)
    }

    private static let extend = CommandSpec(
        "extend",
        arguments: [
            timer,
            ArgumentSpec(
                ValueSpec(
                    "DURATION", .duration,
                    help: """
                        5m, 90s, 1h30m, 00:05:00 or PT5M (as for start); a leading '-' subtracts
                        (-5m). At most 366 days in all.
                        """), .exactlyOne),
        ],
        usages: [
            Usage(
                [.argument("ID|NAME"), .argument("DURATION")], summary: "add time to a timer (-DURATION takes it away)")
        ],
        discussion: Discussion.extend)

    private static let snooze = CommandSpec(
        "snooze",
        arguments: [
            timer,
            ArgumentSpec(
                ValueSpec(
                    "DURATION", .duration,
                    help: """
                        how long it runs before it rings again: 5m, 90s, 00:05:00 or PT5M (as
                        for start); without it, timerd's snooze (9m unless timerd.conf sets one).
                        """), .optional),
        ],
        usages: [
            Usage(
                [.argument("ID|NAME"), .argument("DURATION")],
                summary: "snooze a ringing timer: it rings again after DURATION")
        ],
        discussion: Discussion.snooze)

    private static let rename = CommandSpec(
        "rename",
        arguments: [
            timer,
            ArgumentSpec(
                ValueSpec(
                    "NEWNAME",
                    help: """
                        the same rule as start --name: 1-64 printable characters, not starting
                        with '-', not all digits; unique among live timers.
                        """), .exactlyOne),
        ],
        usages: [Usage([.argument("ID|NAME"), .argument("NEWNAME")], summary: "give a timer a new name")],
        discussion: Discussion.rename)

    private static let watch = CommandSpec(
        "watch", aliases: ["top"], usages: [Usage([], summary: "a live full-screen view of your timers")],
        discussion: Discussion.watch)

    private static let remove = CommandSpec(
        "rm", aliases: ["forget"], arguments: [ArgumentSpec(ValueSpec("ID|NAME", .timer), .optional)],
        options: [OptionSpec(["--all-ended"], help: "remove every ended timer of yours")],
        usages: [
            // `.text`: the argument is optional only because --all-ended may replace it.
            Usage([.text("ID|NAME")], summary: "remove an ended timer from the history"),
            Usage([.option("--all-ended", isOptional: false)], summary: "remove every ended timer of yours"),
        ],
        discussion: Discussion.remove)

    private static let start = CommandSpec(
        "start",
        arguments: [
            ArgumentSpec(
                ValueSpec(
                    "DURATION", .duration,
                    help: """
                        90s, 25m, 1h30m, 1.5h, "1h 30min" (quoted: one argument), 01:30:00 (H:MM[:SS])
                        or ISO 8601 PT1H30M; > 0 and at most 366 days. A bare number is seconds.
                        """), .oneOrMore)
        ],
        options: [
            OptionSpec(
                ["--name"],
                .value(
                    ValueSpec(
                        "NAME",
                        help: """
                            1-64 printable characters in any script, not starting with '-', not all
                            digits; unique among live timers.
                            """)),
                repetition: .rejected, help: "name the timer, to address it by name instead of its id"),
            OptionSpec(
                ["--at"], .value(ValueSpec("TIME")), repetition: .rejected,
                help: "end at a wall-clock time (an instant with offset, or a local time or date and time)"),
            minuteInterval(help: "floor a local --at time's minute to a multiple of N (N divides 60, 1 to 30)"),
            OptionSpec(
                ["--pick"], help: "choose the end time in the terminal date picker ('timerctl pick'); same as --at -"),
            OptionSpec(
                ["--exec"],
                .value(ValueSpec("CMD", help: "a command line for /bin/sh -c; quote it as one argument.")),
                repetition: .rejected, help: "have timerd run CMD with /bin/sh -c when the timer finishes"),
            OptionSpec(["--notify"], help: "have timerd show a desktop notification (notify-send) when it finishes"),
            OptionSpec(
                ["--heartbeat"],
                help: "start a heartbeat timer: 'timerctl beat' re-arms it, so it finishes when beats stop"),
            OptionSpec(
                ["--wake"],
                help: "wake the machine from suspend when the timer ends (needs timerd with CAP_WAKE_ALARM)"),
            OptionSpec(
                ["--ring"],
                help: "keep ringing when it ends, until 'timerctl ack' or 'timerctl snooze' (or a limit)"),
            OptionSpec(
                ["--warn"], .value(ValueSpec("DURATION", .duration)), repetition: .rejected,
                help: "send a warning event (and --notify notification) DURATION before the end"),
            OptionSpec(
                ["--warn-each"],
                help: "with --warn and a group of DURATIONs: warn before the end of every step, not only the last"),
            OptionSpec(
                ["--sound"], .optionalValue(ValueSpec("FILE", .file)), repetition: .rejected,
                help: "have timerd play FILE (default: a short beep) at the end and at every ring; --sound=FILE"),
            OptionSpec(
                ["--loops"], .value(ValueSpec("N", .number)), repetition: .rejected,
                help: "run the group of DURATIONs N times, one loop after the other (1 to 100 steps in all)"),
            OptionSpec(
                ["--overlap"], .value(ValueSpec("RULE", .choice(["skip", "queue", "restart"]))), repetition: .rejected,
                help:
                    "with --on/--every DURATION...: an elapse while the last run runs: skip (default), queue or restart"
            ),
            OptionSpec(
                ["--on"],
                .value(
                    ValueSpec(
                        "EXPR",
                        help: """
                            a systemd.time(7) calendar expression, as systemd-analyze calendar reads it:
                            'Mon..Fri 07:00', '*:0/15', '*-*~01 18:00', daily, '... Europe/Paris'.
                            """)),
                repetition: .rejected, help: "start a recurring timer that elapses on a calendar expression"),
            OptionSpec(
                ["--every"], .value(ValueSpec("DURATION", .duration)), repetition: .rejected,
                help: "start a recurring timer that elapses every DURATION (0.5s to 366 days, boot-time clock)"),
            OptionSpec(
                ["--from"], .value(ValueSpec("TIME")), repetition: .rejected,
                help: "with --every: the first elapse, a time as --at reads it"),
            OptionSpec(
                ["--persistent"], help: "with --on/--every: ring one catch-up for elapses missed while down (default)"),
            OptionSpec(["--skip-missed"], help: "with --on/--every: drop elapses missed while suspended, off or down"),
            OptionSpec(
                ["--randomized-delay"], .value(ValueSpec("DURATION", .duration)), repetition: .rejected,
                help:
                    "with --on: delay each elapse by a fixed random part of DURATION; "
                    + "--on/--every: spread catch-ups over it"),
        ],
        usages: [
            Usage(
                [
                    .argument("DURATION"), .option("--loops", isOptional: true), .option("--name", isOptional: true),
                    .option("--exec", isOptional: true), .option("--notify", isOptional: true),
                    .option("--wake", isOptional: true), .option("--ring", isOptional: true),
                    .option("--warn", isOptional: true), .option("--warn-each", isOptional: true),
                    .option("--sound", isOptional: true),
                ],
                summary: "start a timer; several durations make a group, --loops repeats it"),
            Usage(
                [
                    .text("DURATION"), .option("--heartbeat", isOptional: false), .option("--name", isOptional: true),
                    .option("--exec", isOptional: true), .option("--notify", isOptional: true),
                    .option("--wake", isOptional: true),
                ], summary: "start a heartbeat timer, a dead-man switch ('beat')"),
            Usage(
                [
                    .option("--at", isOptional: false), .option("--minute-interval", isOptional: true),
                    .option("--name", isOptional: true), .option("--exec", isOptional: true),
                    .option("--notify", isOptional: true), .option("--wake", isOptional: true),
                    .option("--ring", isOptional: true), .option("--warn", isOptional: true),
                    .option("--sound", isOptional: true),
                ], summary: "start a timer that ends at a wall-clock time"),
            Usage(
                [
                    .option("--pick", isOptional: false), .option("--minute-interval", isOptional: true),
                    .option("--name", isOptional: true), .option("--exec", isOptional: true),
                    .option("--notify", isOptional: true), .option("--wake", isOptional: true),
                    .option("--ring", isOptional: true), .option("--warn", isOptional: true),
                    .option("--sound", isOptional: true),
                ], summary: "start a timer that ends at a time picked in the terminal"),
            Usage(
                [
                    .option("--on", isOptional: false), .option("--name", isOptional: true),
                    .text("[--persistent|--skip-missed]"), .option("--randomized-delay", isOptional: true),
                    .option("--exec", isOptional: true), .option("--notify", isOptional: true),
                    .option("--wake", isOptional: true),
                ], summary: "start a recurring timer on a calendar expression"),
            Usage(
                [
                    .option("--every", isOptional: false), .option("--from", isOptional: true),
                    .option("--name", isOptional: true), .text("[--persistent|--skip-missed]"),
                    .option("--randomized-delay", isOptional: true), .option("--exec", isOptional: true),
                    .option("--notify", isOptional: true), .option("--wake", isOptional: true),
                ], summary: "start a recurring timer every DURATION"),
            Usage(
                [
                    .option("--on", isOptional: false), .text("DURATION..."), .option("--loops", isOptional: true),
                    .option("--overlap", isOptional: true), .option("--name", isOptional: true),
                    .text("[--persistent|--skip-missed]"), .option("--randomized-delay", isOptional: true),
                    .option("--exec", isOptional: true), .option("--notify", isOptional: true),
                ], summary: "start a group at each elapse of a calendar expression"),
            Usage(
                [
                    .option("--every", isOptional: false), .text("DURATION..."), .option("--from", isOptional: true),
                    .option("--loops", isOptional: true), .option("--overlap", isOptional: true),
                    .option("--name", isOptional: true),
                ], summary: "start a group every DURATION"),
        ],
        discussion: """
            Start a timer. Several durations make a group that runs them one after another
            (timerctl start 25m 5m 25m 5m --name pomodoro).
            With --at, the timer ends at a wall-clock time and follows the wall clock if it is
            set: 2026-12-01T09:00:00+01:00 or ...Z is that instant; 14:30 (or 2:30pm) is the
            next 14:30 in the local time zone; 2026-12-01T09:00 is that local date and time;
            tomorrow 09:00 and fri 17:00 are that time on that day; +25m and
            "now + 25 minutes" are that long from now.
            --minute-interval N floors a local time's minute to a multiple of N (N divides 60,
            1 to 30), as a date picker with that interval does.
            A local time that a daylight-saving change skips moves forward by the length of
            the gap (02:30 -> 03:30); one that occurs twice means the first occurrence.
            timerctl prints the instant it chose.
            --exec CMD and --notify are on-finish actions, run by timerd as your user when the
            timer finishes (also when it ended while timerd was down), never when it is
            stopped, and at most once. CMD runs in this directory with PATH, HOME, USER,
            LOGNAME, LANG, LANGUAGE, LC_*, TZ, DISPLAY, WAYLAND_DISPLAY,
            DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR as timerctl had them, plus
            TIMER_ID, TIMER_NAME, TIMER_EVENT (finished or missed) and TIMER_DURATION
            (seconds); its output goes to timerd's log; it is stopped after 60 s (set by
            timerd's action timeout). A system-wide timerd refuses actions from other users:
            use your per-user timerd for them. See docs/actions.md.
            With --on EXPR the timer recurs at each elapse of a systemd.time(7) calendar
            expression (check one with timerctl calendar EXPR), read in the zone the expression
            names, else in TZ when set, else in the system zone (then followed when it
            changes); with --every DURATION it recurs every DURATION on the boot-time clock,
            which counts suspend, first at --from TIME if given. Each elapse runs the actions
            once (TIMER_EVENT elapsed; missed for a catch-up) and is an 'elapsed' event.
            Elapses missed while suspended, powered off or while timerd was down ring as one
            catch-up (--persistent, the default) or not at all (--skip-missed). status shows
            the next elapse; stop ends the series; pause and resume pause it (elapses missed
            while paused do not ring). See docs/calendar.md.
            With DURATION... after --on EXPR or --every DURATION, each elapse also starts that
            group as a timer of its own, a run (timerctl start --on 'Mon..Fri 09:00' 25m 5m
            25m 5m; --loops N repeats it). An elapse that comes while the last run still runs
            does what --overlap says: skip (the default: nothing starts, as systemd does not
            start a unit that is still active), queue (the next run starts when the current one
            ends; at most one waits) or restart (the current run is stopped and a new one starts
            from step 1). status of the series shows its run and step; skip and next on the
            series act on its run; stop of the series stops its run too; stop of the run alone
            leaves the series. Also in shared mode (timerd --shared).
            With --heartbeat the timer is a dead-man switch: a service runs timerctl beat NAME
            more often than DURATION, each beat starts DURATION again from now, and the timer
            finishes (running its --exec or --notify alert) only when no beat came for a whole
            DURATION. status shows its beats. Takes one DURATION; not with --at, --on, --every.
            With --wake timerd arms an alarm clock that wakes the machine from suspend when
            the timer ends (each elapse of --on/--every), as systemd's WakeSystem= does; status
            marks it 'wake'. It needs a timerd with CAP_WAKE_ALARM: the system one has it
            (timerctl --socket /run/timerd/timerd.sock start ... --wake); a user timerd
            refuses --wake. Without a wake-capable RTC the timer fires at resume. See
            docs/time.md.
            With --ring the timer is an alarm: at its end it is 'ringing' and repeats its
            'ringing' event (and its --notify notification) every 30 s until timerctl ack NAME
            finishes it or timerctl snooze NAME [DURATION] runs it again (9m by default);
            unanswered for 10 min it stops ringing and finishes 'unanswered' (timerd.conf's
            ring_interval, ring_limit and snooze change these). --exec runs once, at the first
            ring. --warn DURATION sends a 'warning' event (and the --notify notification)
            DURATION before the end (a group's whole end), once; with --warn-each, DURATION
            before the end of every step (start 25m 5m --warn 1m --warn-each). Not with
            --heartbeat, --on, --every. See docs/actions.md.
            With --sound timerd plays a short beep (FILE with --sound=FILE; a relative FILE is
            read from this directory) at the end and at every ring, through the first of
            pw-play, paplay and aplay in your PATH (timerd.conf's sound_player and sound_device
            choose one and its device). With no player or an unreadable file it warns on stderr
            and starts the timer all the same. Not with --heartbeat, --on, --every.
            """)

    private static let wait = CommandSpec(
        "wait", arguments: [timer],
        options: [
            OptionSpec(["--bell"], help: "ring the terminal bell when the timer finishes"),
            OptionSpec(
                ["--message"], .value(ValueSpec("TEXT")), repetition: .rejected,
                help: "print TEXT when the timer finishes"),
        ],
        usages: [
            Usage(
                [.argument("ID|NAME"), .option("--bell", isOptional: true), .option("--message", isOptional: true)],
                summary: "wait until a timer ends (exit 0 finished, 1 stopped)")
        ],
        discussion: Discussion.wait)

    private static let logs = CommandSpec(
        "logs", arguments: [ArgumentSpec(ValueSpec("ID|NAME", .timer), .exactlyOne)],
        usages: [Usage([.argument("ID|NAME")], summary: "show a timer's on-finish action runs and their output")],
        discussion: """
            Show the on-finish action runs (--exec, --notify) that a timer of yours keeps (its
            16 latest), oldest first: when each started (local time), its trigger (finished,
            missed, elapsed), kind and exit status, then its output (stdout and stderr, at most
            64 KiB) indented. timerd keeps output in memory: a run that ended before timerd's
            last start shows its outcome only. --json prints the timer.runs result.
            """)

    private static let status = CommandSpec(
        "status", arguments: [ArgumentSpec(ValueSpec("ID|NAME", .timer), .optional)],
        options: [OptionSpec(["--all"], help: "include ended timers")],
        usages: [
            Usage(
                [.argument("ID|NAME"), .option("--all", isOptional: true)],
                summary: "show live timers, one timer, or --all with ended ones")
        ],
        discussion: """
            Show live timers (running and paused), one timer (also an ended one), or with --all
            every timer including the recently ended. Columns: id, name, state, remaining
            (H:MM:SS), progress; a group shows its aggregate and which step runs.
            --json prints an array of timer objects.
            """)
}

extension CommandTable {
    /// `stats`: the daemon's figures, or its Prometheus metrics.
    private static let stats = CommandSpec(
        "stats",
        options: [
            OptionSpec(
                ["--prometheus"], help: "print the metrics in the Prometheus text format (what timerd --metrics serves)"
            )
        ],
        usages: [
            Usage(
                [.option("--prometheus", isOptional: true)],
                summary: "show timer counts and firing lateness, or --prometheus metrics")
        ],
        discussion: """
            Show timerd's figures: live, running and paused timers, timers fired since it
            started, and how late it fired them. Root and timerd's user see every user's
            counts, others their own. With --prometheus, print timerd's metrics in the
            Prometheus text format (version 0.0.4), the text 'timerd --metrics' serves, for
            node_exporter's textfile collector; only root and timerd's user may read them.
            --json prints the daemon.stats result.
            """)
}

/// The help texts of the commands that take one timer, and of `reload`.
private enum Discussion {
    static let stop = "Stop (cancel) a running or paused timer; for a group, every unfinished step."
    static let pause = "Pause a running timer; its remaining time stops moving until 'resume'."
    static let resume = "Resume a paused timer from where it was paused."
    static let wait = """
        Wait until the timer ends. Exit 0 when it finished, 1 when it was stopped.
        On a terminal, a progress bar is drawn on stderr. When the timer finishes and
        standard output is a terminal, --message TEXT prints TEXT and --bell rings the
        terminal bell (nothing when it was stopped, or when output is not a terminal).
        """
    static let extend = """
        Add time to a running or paused timer; a leading '-' takes time away
        (timerctl extend tea -5m). The time goes to the step that runs now: the timer
        itself, or a group's current step (later steps keep their durations). Taking away
        more than is left ends the step now: a timer (or a group's last step) finishes,
        even when paused; a group goes on with its next step. A timer started with --at
        ends that much later (or earlier). --json prints the timer.
        """
    static let restart = """
        Start a timer again from the beginning with the same durations (as extended, if
        they were), under the same id and name: running, paused or ended. An ended timer
        comes back only if no live timer has taken its name. A timer started with --at
        restarts as a countdown of its whole duration. --json prints the timer.
        """
    static let ack = """
        Acknowledge a ringing timer (started with --ring): it stops ringing and finishes.
        Its --exec ran at the first ring and does not run again. A timer that is not ringing
        is refused (exit 1). --json prints the timer.
        """

    static let snooze = """
        Snooze a ringing timer (started with --ring): it stops ringing and runs again for
        DURATION, or for timerd's snooze (9m unless timerd.conf's snooze sets another), then
        rings again. The time is added to its last step. A timer that is not ringing is
        refused (exit 1). --json prints the timer.
        """

    static let beat = """
        Re-arm a heartbeat timer (start DURATION --heartbeat): it runs its whole DURATION
        again from now, whatever was left, and counts the beat; a paused one is resumed.
        Meant to be run by the watched service, often (a cron job's last command, a
        systemd ExecStartPost= or OnSuccess= unit). Unlike restart it keeps the start time
        and the action's runs. A finished heartbeat timer has already run its alert: the
        beat is refused (exit 1); restart it to watch again. --json prints the timer.
        """
    static let rename = """
        Give a timer a new name, live or ended; names are unique among your live timers.
        --json prints the timer.
        """
    static let skip = """
        End the current step of a running or paused group now and start the next (paused
        if the group is paused); after the last step the group finishes. The skipped time
        counts as done. A single timer has no next step: that is an error (use stop).
        Alias: next. --json prints the group.
        """
    static let remove = """
        Remove an ended (finished or stopped) timer from the history that status --all
        shows, or with --all-ended every ended timer of yours. A running or paused timer is
        refused: stop it first. Alias: forget. --json prints the removed timers.
        """
    static let watch = """
        A live full-screen view of your timers: name, state, remaining time, end time, a
        progress bar as wide as the terminal and a group's step. It is redrawn when timerd
        reports a change and each second (more often near the end); it never polls.
        Keys (on the selected timer; Up/Down select): p pause/resume, s stop, + and - add or
        take 1 minute, n next step, q quit. NO_COLOR turns colour off. Needs a terminal:
        without one it fails (exit 69, as pick does); 'timerctl events' prints events as
        lines instead. Alias: top.
        """
    static let completion = """
        Print a completion script for SHELL (bash, zsh or fish), generated from timerctl's own
        command table: commands, options, option values and live timers' ids and names, which
        the script asks of timerd quietly (never starting one; nothing when it is down).
        Packages install them; to try one: source <(timerctl completion bash).
        """
    static let reload = """
        Make timerd re-read its configuration file (what SIGHUP does) and wait until it
        has: systemd's ExecReload= runs this. Never starts a daemon. Exit 0 when the file
        was read (or is absent: defaults), 1 when it is bad (timerd keeps the old
        configuration and the error names the file and line) or you are neither root nor
        timerd's user, 69 when no daemon answers.
        """
}
