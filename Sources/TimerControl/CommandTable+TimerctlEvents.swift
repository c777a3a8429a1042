import CommandLineTable

extension CommandTable {
    /// `events [ID|NAME]`: follow timers' events (``ControlCommand/followEvents(_:target:json:output:)``).
    static let events = CommandSpec(
        "events", arguments: [ArgumentSpec(ValueSpec("ID|NAME", .timer), .optional)],
        usages: [Usage([.argument("ID|NAME")], summary: "print timers' events as they happen, one line each")],
        discussion: """
            Print events as timerd pushes them, one line each, until interrupted (like
            journalctl -f): of every timer you may see, or of one timer. A line shows the local
            time, the kind (started, paused, resumed, step, finished, stopped, missed ...), the
            id, the name (- for none) and a detail (durations, time left, step N of M).
            --json prints each timer.event notification object as it came, one per line,
            flushed per line (for jq and status bars; docs/protocol.md). When timerd dropped
            events (the reader was too slow), a line says which were lost. Exit status: 1 no
            such timer, 64 usage error, 69 timerd unavailable or it went away, 76 bad
            reply; 130 on Ctrl-C.
            """)
}
