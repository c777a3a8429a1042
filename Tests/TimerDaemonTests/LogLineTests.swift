import Testing

@testable import TimerDaemon

@Suite("timerd's log lines: journal priorities or ISO 8601 times")
struct LogLineTests {
    @Test(
        "JOURNAL_STREAM counts only when it names stderr's device and inode (sd-daemon(3))",
        arguments: [
            ("2049:131074", LogLine.journal),  // matches device 2049, inode 131074
            ("2049:131075", .timestamped),  // another inode: stderr was redirected
            ("2048:131074", .timestamped),  // another device
            ("2049", .timestamped),  // malformed: no inode
            ("2049:131074:1", .timestamped),  // malformed: three fields
            ("", .timestamped),
            ("x:y", .timestamped),
        ])
    func detect(value: String, expected: LogLine) {
        #expect(LogLine.detect(journalStream: value, device: 2049, inode: 131_074) == expected)
    }

    @Test("An unset JOURNAL_STREAM means timestamps")
    func unset() {
        #expect(LogLine.detect(journalStream: nil, device: 2049, inode: 131_074) == .timestamped)
    }

    @Test(
        "Priorities come from the wording of timerd's own lines (syslog(3): 3 err, 4 warning, 6 info)",
        arguments: [
            ("timerd: error: could not write /x/journal: No space left on device", 3),  // Daemon.swift
            ("Error: unknown argument \"--bogus\"", 3),  // DaemonCommand's usage error
            ("timerd: cannot start: another timerd is already listening on /x.sock", 3),
            ("WARNING: /x/journal: not a timerd journal (wrong magic bytes); moved it aside", 4),  // Journal.swift
            ("timerd: warning: sd_notify: connect: No such file or directory", 4),  // SystemdLink.swift
            ("timerd: listening on /x.sock (pid 7, version 0.1.0)", 6),
            ("Usage: timerd [--socket PATH] [--state-dir DIR] [--config PATH] [OPTIONS]", 6),
            ("timerd: timer 3 \"tea\" finished", 6),
        ])
    func priority(line: String, expected: Int) {
        #expect(LogLine.priority(of: line[...]) == expected)
    }

    @Test("Timestamps are ISO 8601 UTC with milliseconds")
    func timestamps() {
        // 1796103600 = 2026-12-01T05:40:00Z (date -u -d @1796103600)
        #expect(LogLine.timestamp(seconds: 1_796_103_600, milliseconds: 7) == "2026-12-01T05:40:00.007Z")
        // 951782400 = 2000-02-29T00:00:00Z, a leap day (date -u -d @951782400)
        #expect(LogLine.timestamp(seconds: 951_782_400, milliseconds: 999) == "2000-02-29T00:00:00.999Z")
        #expect(LogLine.timestamp(seconds: 0, milliseconds: 0) == "1970-01-01T00:00:00.000Z")
    }

    @Test("The byte path of event lines writes the same time as timestamp(seconds:milliseconds:)")
    func bytePathTimestamps() {
        var pending = LogLine.PendingLines()
        // The same second twice (the cached date), then the next second and a leap day: each
        // must read as the string function says, milliseconds zero-padded to three digits.
        let cases = [(1_796_103_600, 7), (1_796_103_600, 45), (1_796_103_601, 999), (951_782_400, 0)]
        for (seconds, milliseconds) in cases {
            pending.bytes.removeAll()
            pending.appendTimestamp(seconds: seconds, milliseconds: milliseconds)
            #expect(
                String(decoding: pending.bytes, as: UTF8.self)
                    == LogLine.timestamp(seconds: seconds, milliseconds: milliseconds))
        }
    }

    @Test("Every line of a multi-line message is marked, with the first line's priority")
    func multiLine() {
        let text = "Error: unknown argument \"-x\"\nUsage: timerd [OPTIONS]\nSee 'timerd --help'."
        #expect(
            LogLine.journal.render(text, seconds: 0, milliseconds: 0)
                == "<3>Error: unknown argument \"-x\"\n<3>Usage: timerd [OPTIONS]\n<3>See 'timerd --help'.\n")
        // 1796103600 = 2026-12-01T05:40:00Z
        #expect(
            LogLine.timestamped.render("timerd: stopped\nsecond", seconds: 1_796_103_600, milliseconds: 250)
                == "2026-12-01T05:40:00.250Z timerd: stopped\n2026-12-01T05:40:00.250Z second\n")
    }
}
