import CommandLineTable

extension CommandTable {
    /// `bar [ID|NAME]`: a status-bar feed, one line per change (``Bar``).
    static let bar = CommandSpec(
        "bar", arguments: [ArgumentSpec(ValueSpec("ID|NAME", .timer), .optional)],
        options: [
            OptionSpec(
                ["--format"],
                .value(
                    ValueSpec(
                        "TEMPLATE",
                        help: """
                            text with fields in braces: {name} {id} {remaining} {progress}
                            {state} {next} {icon}; {{ and }} are braces.
                            """)),
                repetition: .rejected, help: "the line's text (default '{icon} {name} {remaining}')"),
            OptionSpec(
                ["--idle"], .value(ValueSpec("TEXT")), repetition: .rejected,
                help: "the text when no timer is shown (default: an empty line)"),
            OptionSpec(["--waybar"], help: "one JSON object per line for a waybar custom module"),
            OptionSpec(["--i3blocks"], help: "plain lines for an i3blocks block with interval=persist"),
            OptionSpec(["--polybar"], help: "plain lines for a polybar custom/script with tail = true"),
            OptionSpec(["--tmux"], help: "plain lines for #() in tmux's status-right"),
        ],
        usages: [
            Usage(
                [
                    .argument("ID|NAME"), .option("--format", isOptional: true), .option("--idle", isOptional: true),
                    .text("[--waybar|--i3blocks|--polybar|--tmux]"),
                ], summary: "print a status-bar line for a timer each time it changes")
        ],
        discussion: """
            Print one line for a status bar each time its text changes, until the bar goes
            away: for the running timer of yours that ends soonest (else the paused one with
            the least time left, else the --idle text), or for the timer ID|NAME (shown
            running, paused or ended; idle while it does not exist). The remaining time ticks
            each second from a local clock between the events timerd pushes (timer.subscribe);
            timerd is never polled. When timerd restarts, bar connects again (without
            starting one) and asks for the timers once more.
            --format fields: {name} (the id for an unnamed timer), {id}, {remaining}
            (0:24:59, 1d 02:00:00), {progress} (42%), {state} (running, paused, finished,
            stopped), {next} (the local time it ends, empty unless running), {icon} (a play,
            pause, stop or check mark). --waybar prints {"text", "tooltip", "class",
            "percentage"} for return-type json (class: the state, or idle); --i3blocks,
            --polybar and --tmux print the text alone. Exit status: 0 when standard output
            is closed (the bar went away), 1 the subscription was refused, 64 usage error
            (an unknown field), 69 timerd unavailable at start.
            """)
}
