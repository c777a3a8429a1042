import CommandLineTable

extension CommandTable {
    /// `notifier`: desktop notifications with buttons for the user's timers (`TimerNotifier`).
    static let notifier = CommandSpec(
        "notifier", usages: [Usage([], summary: "show desktop notifications with buttons for your timers")],
        discussion: """
            Show one desktop notification per running, paused or finished timer of yours, on the
            session bus's notification server (org.freedesktop.Notifications: dunst, mako,
            GNOME Shell, KDE Plasma ...), replaced in place as the timer changes: its name, the
            time left (0:24:59 left; Paused, 0:24:59 left; Finished), the progress as a bar
            (the value hint) and buttons: Pause, +1 min and Stop while it runs, Resume and
            Stop while paused, Dismiss and Restart once finished (critical urgency). A button
            sends the request to timerd; the notification follows from timerd's event. The
            time left is counted down locally between timerd's events (timer.subscribe) and
            refreshed at most once a second; timerd is never polled. A notification you close
            stays closed until the timer's next event. It talks to the daemon timerctl
            reaches (your own by default; the system daemon with --socket
            /run/timerd/timerd.sock), never starts one, and connects again when timerd
            restarts. Runs until the session bus goes away;
            the package ships the systemd user unit timerctl-notifier.service. Needs a build
            with the package trait Notifications (libsystemd's sd-bus). Exit status: 1 the
            subscription was refused, 69 no D-Bus support in this build, no session bus or
            notification server, timerd unavailable at start, or the bus was lost.
            """)
}
