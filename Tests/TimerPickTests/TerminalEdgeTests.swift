import Foundation
import Glibc
import Testing

/// The real built `timerpick` on a pseudo-terminal in the situations around the wheels: Ctrl-Z and `fg`, a
/// daylight-saving gap on the hour wheel, terminals too narrow or too short, and a reversed range. Instants are
/// fixed with `TIMERPICK_NOW`, zones with `TZ`.
@Suite("Terminal picker: stop and continue, gaps, small terminals", .timeLimit(.minutes(1)))
struct TerminalEdgeTests {
    static let up = "\u{1B}[A"
    static let down = "\u{1B}[B"
    static let right = "\u{1B}[C"
    static let enter = "\r"
    static let escape = "\u{1B}"

    static var timerpick: String { PseudoTerminal.productsDirectory + "/timerpick" }

    static func environment(zone: String, now: String) -> [String: String] {
        ["TZ": zone, "TIMERPICK_NOW": now, "TERM": "xterm", "LANG": "C.UTF-8", "NO_COLOR": "1"]
    }

    /// Reads the terminal until `condition` holds or `seconds` pass; returns the last value of `condition`.
    static func wait(_ terminal: PseudoTerminal, seconds: Double = 5, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(), Date() < deadline { terminal.drain(seconds: 0.05) }
        return condition()
    }

    @Test("Ctrl-Z gives the terminal back; after fg (SIGCONT) raw mode is on again and keys act without Enter")
    func stopAndContinue() throws {
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "time", "--locale", "en_GB"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"))
        terminal.waitForFrame(containing: "[16]")
        #expect(!terminal.isCooked)
        // Ctrl-Z sends SIGTSTP to the foreground process group; the picker leads its own group here. That
        // group is orphaned (its parent, the test runner, is in another session), so the kernel discards the
        // stop itself (POSIX job control); what the picker does before stopping is what is checked.
        kill(-terminal.pid, SIGTSTP)
        // The mode and the screen's last bytes are read separately: wait until both are there, then check both.
        let restoreScreen = Array("\u{1B}[?25h\u{1B}[?1049l".utf8)
        _ = Self.wait(terminal) { terminal.isCooked && terminal.rawScreen.suffix(14) == restoreScreen }
        #expect(terminal.isCooked)
        #expect(terminal.rawScreen.suffix(14) == restoreScreen)
        // The shell puts its own mode back while the job is stopped, then `fg` sends SIGCONT.
        terminal.makeCooked()
        let frames = terminal.frameCount
        kill(-terminal.pid, SIGCONT)
        let redrawn = terminal.waitForFrame(after: frames, seconds: 5)
        #expect(redrawn.contains("[16]"))
        #expect(!terminal.isCooked)
        // One arrow key, no Enter: in canonical mode it would wait in the line buffer.
        terminal.type(Self.down)
        let moved = terminal.waitForFrame(containing: "[17]", seconds: 5)
        #expect(moved.contains("= 2026-07-04T17:00:00Z"))
        terminal.type(Self.enter)
        let result = terminal.finish()
        #expect(result.status == 0)
        #expect(result.output == "2026-07-04T17:00:00Z\n")
        #expect(terminal.isCooked)
    }

    @Test("Wheel columns stay put while spinning: the year column does not move as the month names narrow")
    func fixedColumns() throws {
        // 2026-01-15T12:00:00Z; months Nov…Mar are visible at first, Mar…Jul after four Downs: the widest visible
        // name changes from "November" to "March", and the year column must not move.
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "date", "--locale", "en_GB"],
            environment: Self.environment(zone: "UTC", now: "2026-01-15T12:00:00Z"))
        let first = terminal.waitForFrame(containing: "[15]")
        func yearColumn(_ frame: String) -> Int? {
            guard let line = frame.split(separator: "\n").first(where: { $0.hasPrefix("  >") }),
                let range = line.range(of: "2026")
            else { return nil }
            return line.distance(from: line.startIndex, to: range.lowerBound)
        }
        let before = yearColumn(first)
        #expect(before != nil)
        terminal.type(Self.right)
        terminal.waitForFrame(containing: "[January]")
        for month in ["February", "March", "April", "May"] {
            terminal.type(Self.down)
            let frame = terminal.waitForFrame(containing: "[\(month)]")
            #expect(yearColumn(frame) == before, "\(month): \(frame)")
        }
        terminal.type(Self.escape)
        #expect(terminal.finish().status == 1)
    }

    @Test("Below 40 columns the message is word-wrapped to fit and keys do nothing unseen; Esc still cancels")
    func narrowMessageFits() throws {
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "time", "--locale", "en_GB"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"), columns: 20)
        let frame = terminal.waitForFrame(containing: "have 20.")
        #expect(frame == "Too narrow: need 40\ncolumns, have 20.")
        // Down and Enter are ignored while the wheels are not shown: no spin, no accept.
        terminal.type(Self.down)
        terminal.type(Self.enter)
        terminal.drain(seconds: 0.5)
        terminal.resize(columns: 80)
        let wide = terminal.waitForFrame(containing: "[16]")
        #expect(wide.contains("= 2026-07-04T16:00:00Z"))
        terminal.type(Self.escape)
        let result = terminal.finish()
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
    }

    @Test("A terminal with fewer lines than the screen says so; keys wait until it is tall enough")
    func tooShort() throws {
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "time", "--locale", "en_GB"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"), rows: 8)
        // The screen is ten lines: heading, blank, five wheel rows, blank, result, keys.
        #expect(terminal.waitForFrame(containing: "Too short") == "Too short: need 10 lines, have 8.")
        terminal.type(Self.down)
        terminal.drain(seconds: 0.5)
        terminal.resize(columns: 80, rows: 10)
        #expect(terminal.waitForFrame(containing: "[16]").contains("= 2026-07-04T16:00:00Z"))
        terminal.type(Self.down)
        #expect(terminal.waitForFrame(containing: "[17]").contains("= 2026-07-04T17:00:00Z"))
        terminal.type(Self.enter)
        #expect(terminal.finish().output == "2026-07-04T17:00:00Z\n")
    }

    @Test("A reversed --min/--max is said on the terminal and neither bound applies (rule B10)")
    func reversedRange() throws {
        let terminal = try PseudoTerminal(
            Self.timerpick,
            ["--mode", "time", "--locale", "en_GB", "--min", "2026-07-05T00:00:00Z", "--max", "2026-07-04T00:00:00Z"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"))
        let frame = terminal.waitForFrame(containing: "[16]")
        #expect(frame.contains(" Note: --min is after --max: an inverted range is ignored, so neither applies.\n"))
        // Not clamped to either bound, no row disabled.
        #expect(frame.contains("= 2026-07-04T16:00:00Z"))
        #expect(!frame.contains("("))
        // Before the alternate screen, on standard error (the terminal here), so it stays after the picker ends.
        let text = String(decoding: terminal.rawScreen, as: UTF8.self)
        #expect(
            text.hasPrefix(
                "timerctl pick: warning: --min is after --max: an inverted range is ignored, so neither applies\r\n"))
        terminal.type(Self.escape)
        #expect(terminal.finish().status == 1)
    }

    @Test("--calendar defaults to the locale's: th_TH@calendar=buddhist and th_TH count Buddhist years")
    func calendarFromLocale() throws {
        for locale in ["th_TH@calendar=buddhist", "th_TH"] {
            let terminal = try PseudoTerminal(
                Self.timerpick, ["--mode", "date", "--locale", locale],
                environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"))
            // 2026 is Buddhist Era 2569 (2026 + 543); Thai writes the era, พ.ศ., before it.
            let frame = terminal.waitForFrame(containing: "[4]")
            #expect(frame.contains(" · buddhist · "), "\(locale): \(frame)")
            #expect(frame.contains("พ.ศ. 2569"), "\(locale): \(frame)")
            terminal.type(Self.escape)
            #expect(terminal.finish().status == 1)
        }
        let gregorian = try PseudoTerminal(
            Self.timerpick, ["--mode", "date", "--locale", "th_TH", "--calendar", "gregorian"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"))
        let frame = gregorian.waitForFrame(containing: "[4]")
        #expect(frame.contains("  2026  "))
        #expect(!frame.contains("ค.ศ."))
        gregorian.type(Self.escape)
        #expect(gregorian.finish().status == 1)
    }

    @Test("start --pick opens at the next interval step after now, with now as the minimum")
    func startPickOpensAhead() throws {
        // 16:07:20 with an interval of 5: the wheels open at 16:10; 16:05 and 16:00 are before the minimum.
        let terminal = try PseudoTerminal(
            PseudoTerminal.productsDirectory + "/timerctl",
            ["start", "--pick", "--minute-interval", "5", "--socket", "/nonexistent/timerd.sock"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:07:20Z"))
        let frame = terminal.waitForFrame(containing: "= 2026-07-04T16:10:00Z")
        #expect(frame.contains("= 2026-07-04T16:10:00Z"))
        #expect(frame.contains("(05)"))
        #expect(frame.contains("(00)"))
        // Up on the minute wheel lands before the minimum: the model takes the minimum (rules B17.4a, B11), and
        // the disabled row under the cursor, "[(05)]", borrows from the gaps so that the AM/PM column stays put.
        terminal.type(Self.right + Self.right)
        terminal.waitForFrame(containing: "[10]")
        terminal.type(Self.up)
        let clamped = terminal.waitForFrame(containing: "[(05)]")
        #expect(clamped.contains("= 2026-07-04T16:07:20Z"))
        let lines = clamped.split(separator: "\n").map(String.init)
        if let selected = lines.firstIndex(where: { $0.hasPrefix("  >") }), selected > 0,
            let pm = lines[selected].range(of: "PM"), let am = lines[selected - 1].range(of: "AM")
        {
            #expect(
                lines[selected].distance(from: lines[selected].startIndex, to: pm.lowerBound)
                    == lines[selected - 1].distance(from: lines[selected - 1].startIndex, to: am.lowerBound))
        } else {
            Issue.record("no AM above PM: \(clamped)")
        }
        terminal.type(Self.escape)
        #expect(terminal.finish().status == 1)
    }

    @Test("start --pick on the real clock: Enter at once starts the timer (the picked time is ahead)")
    func startPickEnterAtOnce() throws {
        let daemon = try TestDaemon(tag: "enter")
        defer { daemon.stop() }
        let socket = daemon.socket
        // No TIMERPICK_NOW: the picker's clock is the daemon's. The picked minute is the next one, which a
        // start in the minute's last seconds could reach before the daemon sees it: start after it then.
        let second = Int(Date().timeIntervalSince1970) % 60
        if second >= 50 { usleep(UInt32(61 - second) * 1_000_000) }
        var environment = Self.environment(zone: "UTC", now: "")
        environment["TIMERPICK_NOW"] = nil
        let terminal = try PseudoTerminal(
            PseudoTerminal.productsDirectory + "/timerctl", ["--socket", socket, "start", "--pick", "--name", "tea"],
            environment: environment)
        terminal.waitForFrame(containing: "Pick a date and time")
        terminal.type(Self.enter)
        let result = terminal.finish()
        #expect(result.status == 0, "terminal: \(PseudoTerminal.plainText(terminal.rawScreen).suffix(300))")
        #expect(result.output.hasPrefix("started 1 \"tea\": ends at "))
    }
}
