import Foundation
import Glibc
import Testing

/// Drives the real built `timerpick` and `timerctl pick` on a pseudo-terminal: keys in, screen and printed
/// instant out. Instants are fixed with `TIMERPICK_NOW`, zones with `TZ`.
@Suite("Terminal picker on a pseudo-terminal", .timeLimit(.minutes(1)))
struct TerminalSessionTests {
    static let up = "\u{1B}[A"
    static let right = "\u{1B}[C"
    static let down = "\u{1B}[B"
    static let enter = "\r"
    static let escape = "\u{1B}"

    static var timerpick: String { PseudoTerminal.productsDirectory + "/timerpick" }
    static var timerctl: String { PseudoTerminal.productsDirectory + "/timerctl" }

    static func environment(zone: String, now: String, color: Bool = false) -> [String: String] {
        var result = ["TZ": zone, "TIMERPICK_NOW": now, "TERM": "xterm", "LANG": "C.UTF-8"]
        if !color { result["NO_COLOR"] = "1" }
        return result
    }

    @Test("Month wheel from January 31 to February snaps back to the 28th; Enter prints the instant")
    func monthEnd() throws {
        // 2026-01-31T00:30:00Z is 01:30 CET on Saturday 31 January 2026 in Europe/Paris.
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "date", "--locale", "en_GB"],
            environment: Self.environment(zone: "Europe/Paris", now: "2026-01-31T00:30:00Z"))
        let first = terminal.waitForFrame(containing: "[31]")
        #expect(
            first == """
                 Pick a date · en_GB · gregorian · Europe/Paris

                     29    November     2024 
                     30    December     2025 
                  > [31]    January     2026   <
                     1     February     2027 
                     2       March      2028 

                  = 2026-01-31T01:30:00+01:00
                  ←/→ wheel  ↑/↓ spin  PgUp/PgDn ×10  0-9 type  Enter accept  Esc cancel
                """)
        terminal.type(Self.right)
        terminal.waitForFrame(containing: "[January")
        terminal.type(Self.down)
        // February has 28 days in 2026, so day 31 becomes 28 (rule B19); 29–31 are dimmed, here "(29)".
        let february = terminal.waitForFrame(containing: "[February]")
        // Every column keeps its width: the month wheel is as wide as "September", plus a column each side.
        #expect(february.contains("  >  28   [February]    2026   <"))
        #expect(february.contains("(29)"))
        #expect(february.contains("= 2026-02-28T01:30:00+01:00"))
        terminal.type(Self.enter)
        let result = terminal.finish()
        #expect(result.status == 0)
        #expect(result.output == "2026-02-28T01:30:00+01:00\n")
        #expect(terminal.isCooked)
    }

    @Test("Europe/Paris on 2026-03-29: hour 02 is in the gap, shown unavailable; Down steps 01:30 → 03:30 CEST")
    func daylightSavingGap() throws {
        // 2026-03-29T00:30:00Z is 01:30 CET; at 02:00 CET clocks go to 03:00 CEST, so 02:xx does not exist.
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "date-and-time", "--locale", "en_GB"],
            environment: Self.environment(zone: "Europe/Paris", now: "2026-03-29T00:30:00Z"))
        terminal.waitForFrame(containing: "= 2026-03-29T01:30:00+01:00")
        terminal.type(Self.right)
        let focused = terminal.waitForFrame(containing: "[01]")
        // The missing hour's row is disabled (rule B13), in parentheses without colour.
        #expect(focused.contains("(02)"))
        #expect(!focused.contains(" 02 "))
        // Down passes over it (decision A17): 03:30 CEST, one real hour after the start (rule B23).
        terminal.type(Self.down)
        let crossed = terminal.waitForFrame(containing: "[03]")
        #expect(crossed.contains("= 2026-03-29T03:30:00+02:00"))
        #expect(crossed.contains("Today"))
        terminal.type(Self.up)
        #expect(terminal.waitForFrame(containing: "[01]").contains("= 2026-03-29T01:30:00+01:00"))
        terminal.type("3")
        terminal.waitForFrame(containing: "[03]")
        terminal.type(Self.enter)
        let result = terminal.finish()
        #expect(result.status == 0)
        #expect(result.output == "2026-03-29T03:30:00+02:00\n")
    }

    @Test(
        "The terminal mode is restored after SIGINT, SIGTERM and SIGHUP; the status is 128 + N",
        arguments: [SIGINT, SIGTERM, SIGHUP])
    func restoredAfterSignal(signal: Int32) throws {
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "time", "--locale", "en_US"],
            environment: Self.environment(zone: "America/New_York", now: "2026-07-04T16:00:00Z"))
        terminal.waitForFrame(containing: "Pick a time")
        #expect(!terminal.isCooked)  // raw while picking
        kill(terminal.pid, signal)
        let result = terminal.finish()
        #expect(result.status == 128 + signal)
        #expect(result.output.isEmpty)
        #expect(terminal.isCooked)
        // The handler also showed the cursor and left the alternate screen.
        #expect(terminal.rawScreen.suffix(14) == Array("\u{1B}[?25h\u{1B}[?1049l".utf8))
    }

    @Test("Esc cancels with status 1, prints nothing and restores the terminal")
    func escapeCancels() throws {
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "countdown", "--locale", "en_US"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"))
        terminal.waitForFrame(containing: "Pick a countdown duration")
        terminal.type(Self.escape)
        let result = terminal.finish()
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(terminal.isCooked)
    }

    @Test("timerctl pick execs the picker: its screen, its result, its status")
    func timerctlPick() throws {
        // 2026-07-04T16:00:00Z is 12:00 PM EDT.
        let terminal = try PseudoTerminal(
            Self.timerctl, ["pick", "--mode", "time", "--locale", "en_US"],
            environment: Self.environment(zone: "America/New_York", now: "2026-07-04T16:00:00Z"))
        terminal.waitForFrame(containing: "[12]")
        terminal.type(Self.down)
        terminal.waitForFrame(containing: "= 2026-07-04T13:00:00-04:00")
        terminal.type(Self.enter)
        let result = terminal.finish()
        #expect(result.status == 0)
        #expect(result.output == "2026-07-04T13:00:00-04:00\n")
    }

    @Test("timerctl start --at - opens the picker; Esc there ends start with status 1 before any daemon is asked")
    func startPickCancelled() throws {
        let terminal = try PseudoTerminal(
            Self.timerctl, ["start", "--at", "-", "--socket", "/nonexistent/timerd.sock"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"))
        terminal.waitForFrame(containing: "Pick a date and time")
        terminal.type(Self.escape)
        let result = terminal.finish()
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
    }

    @Test("timerctl start --pick --name tea: the picked instant reaches the real daemon")
    func startPickStartsTimer() throws {
        let daemon = try TestDaemon(tag: "start")
        defer { daemon.stop() }
        let socket = daemon.socket
        // The daemon takes end times from now to 366 days ahead on its real clock, so the picker's "now" is the
        // real clock plus one day, cut to the minute: the picked instant, untouched, is tomorrow.
        let tomorrow = Date(
            timeIntervalSinceReferenceDate: (Date().timeIntervalSinceReferenceDate / 60 + 1_440).rounded(.down) * 60)
        let picked = ISO8601DateFormatter().string(from: tomorrow)
        let terminal = try PseudoTerminal(
            Self.timerctl, ["--socket", socket, "start", "--pick", "--name", "tea"],
            environment: Self.environment(zone: "UTC", now: picked))
        terminal.waitForFrame(containing: "= \(picked)")
        terminal.type(Self.enter)
        let result = terminal.finish()
        #expect(result.status == 0)
        #expect(
            // The end in local time (TZ=UTC: `Z`) and zone, the form of a local --at's confirmation.
            result.output.hasPrefix("started 1 \"tea\": ends at \(picked) (UTC), in "),
            "terminal: \(PseudoTerminal.plainText(terminal.rawScreen).suffix(300))")
    }

    @Test("Below 40 columns the picker says the terminal is too narrow and never wraps")
    func tooNarrow() throws {
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--locale", "en_US"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"), columns: 39)
        let frame = terminal.waitForFrame(containing: "Too narrow")
        #expect(frame == "Too narrow: need 40 columns, have 39.")
        terminal.type(Self.escape)
        #expect(terminal.finish().status == 1)
    }

    @Test("A resized window redraws: narrower than 40 columns says so, wider again shows the wheels")
    func resizeRedraws() throws {
        let terminal = try PseudoTerminal(
            Self.timerpick, ["--mode", "time", "--locale", "en_GB"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"))
        terminal.waitForFrame(containing: "[16]")
        terminal.resize(columns: 39)
        #expect(terminal.waitForFrame(containing: "Too narrow") == "Too narrow: need 40 columns, have 39.")
        terminal.resize(columns: 80)
        #expect(terminal.waitForFrame(containing: "[16]").contains("= 2026-07-04T16:00:00Z"))
        terminal.type(Self.enter)
        #expect(terminal.finish().output == "2026-07-04T16:00:00Z\n")
    }

    @Test("Colour: the focused selected row is bold reverse video; NO_COLOR turns attributes off")
    func colour() throws {
        let coloured = try PseudoTerminal(
            Self.timerpick, ["--mode", "time", "--locale", "en_GB"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z", color: true))
        coloured.waitForFrame(containing: "[16]")
        #expect(String(decoding: coloured.rawScreen, as: UTF8.self).contains("\u{1B}[1;7m[16]\u{1B}[0m"))
        coloured.type(Self.escape)
        _ = coloured.finish()
        let plain = try PseudoTerminal(
            Self.timerpick, ["--mode", "time", "--locale", "en_GB"],
            environment: Self.environment(zone: "UTC", now: "2026-07-04T16:00:00Z"))
        plain.waitForFrame(containing: "[16]")
        #expect(!String(decoding: plain.rawScreen, as: UTF8.self).contains("\u{1B}[1"))
        plain.type(Self.escape)
        _ = plain.finish()
    }

    @Test("Not a terminal: a clear error and status 69")
    func notATerminal() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.timerpick)
        process.environment = ["TZ": "UTC"]
        let input = Pipe()
        let error = Pipe()
        process.standardInput = input
        process.standardError = error
        process.standardOutput = Pipe()
        try process.run()
        input.fileHandleForWriting.closeFile()
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 69)
        #expect(
            message == "Error: standard input is not a terminal: the picker reads keys from it; run it in a terminal\n")
    }
}
