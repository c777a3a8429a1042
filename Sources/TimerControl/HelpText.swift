/// The help texts of `timerctl`, printed to stdout by `--help` (pinned by tests).
enum HelpText {
    static let globalOptions = """
        Global options (before or after the command):
          --socket PATH    talk to the daemon on PATH (never starts one)
          --json           print JSON for scripts (see docs/protocol.md for the fields)
          --no-autostart   do not start timerd when none is running
          -h, --help       show help
          --version        show the version
        """

    static let main = """
        Usage: timerctl [--socket PATH] [--json] [--no-autostart] COMMAND [ARGS]

        Control timers kept by timerd. When no daemon answers on the default socket
        ($XDG_RUNTIME_DIR/timerd/timerd.sock, else /tmp/timerd-UID/timerd.sock), timerctl
        starts one.

        Commands:
          start DURATION... [--name NAME]   start a timer; several durations make a group
          start --at TIME [--minute-interval N] [--name NAME]
                                            start a timer that ends at a wall-clock time
          stop ID|NAME                      stop (cancel) a timer
          pause ID|NAME                     pause a running timer
          resume ID|NAME                    resume a paused timer
          status [ID|NAME] [--all]          show live timers, one timer, or --all with ended ones
          wait ID|NAME                      wait until a timer ends (exit 0 finished, 1 stopped)
          ping                              check that timerd answers
          reload                            make timerd re-read its configuration file

        \(globalOptions)

        Exit status: 0 success, 1 operation failed (no such timer, invalid state, wait on a
        stopped timer, a bad configuration file on reload), 64 usage error, 69 daemon
        unavailable, 76 bad reply from the daemon.
        See 'timerctl COMMAND --help' for a command's details.

        """

    static func forVerb(_ verb: Verb) -> String {
        let body: String
        switch verb {
        case .start:
            body = """
                Usage: timerctl start DURATION... [--name NAME]
                       timerctl start --at TIME [--minute-interval N] [--name NAME]

                Start a timer. Several durations make a group that runs them one after another
                (timerctl start 25m 5m 25m 5m --name pomodoro).
                With --at, the timer ends at a wall-clock time and follows the wall clock if it is
                set: 2026-12-01T09:00:00+01:00 or ...Z is that instant; 14:30 is the next 14:30
                in the local time zone; 2026-12-01T09:00 is that local date and time.
                --minute-interval N floors a local time's minute to a multiple of N (N divides 60,
                1 to 30), as a date picker with that interval does.
                A local time that a daylight-saving change skips moves forward by the length of
                the gap (02:30 -> 03:30); one that occurs twice means the first occurrence.
                timerctl prints the instant it chose.

                DURATION: 90s, 25m, 1h30m, 1.5h, "1h 30min" (quoted: one argument), 01:30:00 (H:MM[:SS])
                or ISO 8601 PT1H30M; > 0 and at most 366 days. A bare number is seconds.
                NAME: 1-64 characters of A-Z a-z 0-9 . _ - (not all digits), unique among live timers.
                """
        case .stop:
            body = """
                Usage: timerctl stop ID|NAME

                Stop (cancel) a running or paused timer; for a group, every unfinished step.
                """
        case .pause:
            body = """
                Usage: timerctl pause ID|NAME

                Pause a running timer; its remaining time stops moving until 'resume'.
                """
        case .resume:
            body = """
                Usage: timerctl resume ID|NAME

                Resume a paused timer from where it was paused.
                """
        case .status:
            body = """
                Usage: timerctl status [ID|NAME] [--all]

                Show live timers (running and paused), one timer (also an ended one), or with --all
                every timer including the recently ended. Columns: id, name, state, remaining
                (H:MM:SS), progress; a group shows its aggregate and which step runs.
                --json prints an array of timer objects.
                """
        case .wait:
            body = """
                Usage: timerctl wait ID|NAME

                Wait until the timer ends. Exit 0 when it finished, 1 when it was stopped.
                On a terminal, a progress bar is drawn on stderr.
                """
        case .ping:
            body = """
                Usage: timerctl ping

                Check that timerd answers; print its version, protocol version and pid.
                """
        case .reload:
            body = """
                Usage: timerctl reload

                Make timerd re-read its configuration file (what SIGHUP does) and wait until it
                has: systemd's ExecReload= runs this. Never starts a daemon. Exit 0 when the file
                was read (or is absent: defaults), 1 when it is bad (timerd keeps the old
                configuration and the error names the file and line) or you are neither root nor
                timerd's user, 69 when no daemon answers.
                """
        case .help:
            body = """
                Usage: timerctl help [COMMAND]

                Show help for timerctl or for one command.
                """
        }
        return body + "\n\n" + globalOptions + "\n"
    }

    static func usageLine(_ verb: Verb?) -> String {
        switch verb {
        case .start:
            return "timerctl start DURATION... [--name NAME]\n"
                + "       timerctl start --at TIME [--minute-interval N] [--name NAME]"
        case .stop, .pause, .resume, .wait: return "timerctl \(verb?.rawValue ?? "") ID|NAME"
        case .status: return "timerctl status [ID|NAME] [--all]"
        case .ping: return "timerctl ping"
        case .reload: return "timerctl reload"
        case .help: return "timerctl help [COMMAND]"
        case .none: return "timerctl [--socket PATH] [--json] [--no-autostart] COMMAND [ARGS]"
        }
    }
}
