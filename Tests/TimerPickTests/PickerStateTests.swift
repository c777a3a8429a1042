import CommandLineTable
import Foundation
import Testing
import TimerControl
import TimerModel

@testable import DatePicking
@testable import timerpick

/// The picker's pure parts: key decoding, key handling on the model, display widths and option parsing.
@Suite("Terminal picker: keys, state, widths, options")
struct PickerStateTests {
    @Test("Keys decode from xterm sequences; a lone ESC in its read is Escape")
    func keys() {
        // Sequences from xterm's ctlseqs: CSI A–D arrows, SS3 A–D in application mode, CSI 5~ / 6~ page keys.
        let bytes = Array("\u{1B}[A\u{1B}[B\u{1B}OC\u{1B}[D\u{1B}[5~\u{1B}[6~7\r\n\u{1B}[3~x".utf8)
        #expect(
            Key.decode(bytes) == [
                .up, .down, .right, .left, .pageUp, .pageDown, .digit(7), .enter, .enter, .other, .other,
            ])
        #expect(Key.decode([0x1B]) == [.escape])
        #expect(Key.decode([0x1B, 0x1B]) == [.escape, .escape])
    }

    static func state(_ mode: DatePickerMode, locale: String, zone: String, now: Date) -> PickerState {
        var picker = DatePicker(environment: DatePickerEnvironment(now: now))
        picker.locale = Locale(identifier: locale)
        picker.timeZone = TimeZone(identifier: zone)
        picker.datePickerMode = mode
        return PickerState(picker: picker)
    }

    @Test("Typing digits: 4 then 5 selects minute 45; a 12-hour wheel keeps AM/PM; year 2030 in four digits")
    func typing() {
        // 2026-07-04T16:00:00Z is 12:00 PM EDT.
        var state = Self.state(
            .time, locale: "en_US", zone: "America/New_York", now: Date(timeIntervalSince1970: 1_783_180_800))
        #expect(state.visualKinds == [.hour, .minute, .ampm])
        _ = state.handle(.digit(1))  // hour 1, PM kept: 13:00
        #expect(state.result == "2026-07-04T13:00:00-04:00")
        _ = state.handle(.digit(1))  // "11": 11 PM
        #expect(state.result == "2026-07-04T23:00:00-04:00")
        _ = state.handle(.right)
        _ = state.handle(.digit(4))
        _ = state.handle(.digit(5))
        #expect(state.result == "2026-07-04T23:45:00-04:00")
        var quarter = Self.state(.time, locale: "en_GB", zone: "UTC", now: Date(timeIntervalSince1970: 1_783_180_800))
        quarter.picker.minuteInterval = 15
        _ = quarter.handle(.right)
        _ = quarter.handle(.digit(3))  // not a quarter hour: nothing yet
        #expect(quarter.result == "2026-07-04T16:00:00Z")
        _ = quarter.handle(.digit(0))
        #expect(quarter.result == "2026-07-04T16:30:00Z")
        var date = Self.state(.date, locale: "en_US", zone: "UTC", now: Date(timeIntervalSince1970: 1_783_180_800))
        _ = date.handle(.right)
        _ = date.handle(.right)
        for digit in [2, 0, 3, 0] { _ = date.handle(.digit(digit)) }
        #expect(date.result == "2030-07-04T16:00:00Z")
    }

    @Test("Up and down spin one row, page keys ten; left and right stop at the ends; Enter and Esc end")
    func movement() {
        // 2026-01-31T12:00:00Z, a Saturday.
        var state = Self.state(.date, locale: "en_US", zone: "UTC", now: Date(timeIntervalSince1970: 1_769_860_800))
        #expect(state.handle(.left) == .redraw)
        #expect(state.focusedKind == .month)
        _ = state.handle(.down)  // February: day 31 snaps back to 28 (rule B19)
        #expect(state.result == "2026-02-28T12:00:00Z")
        _ = state.handle(.pageUp)  // ten months back, no carry into the year: April 2026
        #expect(state.result == "2026-04-28T12:00:00Z")
        for _ in 0..<5 { _ = state.handle(.right) }
        #expect(state.focusedKind == .year)
        #expect(state.handle(.enter) == .accept)
        #expect(state.handle(.escape) == .cancel)
    }

    @Test("Countdown prints a duration timerctl reads")
    func countdownResult() {
        var state = Self.state(.countDownTimer, locale: "en_US", zone: "UTC", now: Date(timeIntervalSince1970: 0))
        #expect(state.result == "1m")  // a fresh countdown is one interval (rule B20)
        _ = state.handle(.digit(2))
        #expect(state.result == "2h1m")
        _ = state.handle(.right)
        _ = state.handle(.digit(0))
        #expect(state.result == "2h")
    }

    @Test("Display widths: CJK and Hangul take two columns, combining marks none")
    func widths() {
        #expect(DisplayWidth.of("令和7年") == 7)
        #expect(DisplayWidth.of("오후") == 4)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("אדר א׳") == 6)
        #expect(DisplayWidth.truncated("令和7年", to: 4) == "令和")
    }

    @Test("Options: every usage error names what is allowed")
    func options() throws {
        #expect(
            try PickOptions.parse(["--mode=countdown", "--minute-interval", "15", "--locale", "de_DE"])
                == PickOptions(mode: .countDownTimer, minuteInterval: 15, locale: "de_DE"))
        #expect(
            throws: PickOptions.UsageError(
                description: "unknown mode 'week': use time, date, date-and-time or countdown")
        ) {
            try PickOptions.parse(["--mode", "week"])
        }
        #expect(
            throws: PickOptions.UsageError(
                description:
                    "--minute-interval must divide 60 and be 1 to 30 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30), got \"7\"")
        ) { try PickOptions.parse(["--minute-interval", "7"]) }
        #expect(throws: PickOptions.UsageError(description: "option '--min' needs a value")) {
            try PickOptions.parse(["--min"])
        }
        #expect(throws: PickOptions.UsageError(description: "unknown argument 'now'")) {
            try PickOptions.parse(["now"])
        }
        let bad = try PickOptions.parse(["--calendar", "lunar"])
        #expect(throws: PickOptions.UsageError.self) {
            try bad.makePicker(
                now: Date(timeIntervalSince1970: 0), timeZone: .gmt, systemLocale: Locale(identifier: "en_US"))
        }
    }

    @Test("--min/--max: an error lists the forms start --at takes, which are all accepted (+1h, tomorrow 09:00)")
    func minimumForms() throws {
        let now = Date(timeIntervalSince1970: 1_795_788_000)  // 2026-11-27T14:00:00Z
        let english = Locale(identifier: "en_US")
        let refused = try PickOptions.parse(["--min", "fri"])
        // The reason and the list of OneShotTimeText, the grammar --min is read with.
        #expect(
            throws: PickOptions.UsageError(
                description: "invalid --min time \"fri\": a day needs a time (fri 17:00); "
                    + "use HH:MM[:SS], 2:30pm, noon or midnight, with a day before or after it if you like "
                    + "(tomorrow 09:00, 09:00 tomorrow, fri 17:00, next monday 9:00); YYYY-MM-DD[THH:MM[:SS]]; "
                    + "+25m or now + 25 minutes; or an ISO 8601 date-time with Z or an offset (2026-12-24T18:00+01:00)")
        ) { try refused.makePicker(now: now, timeZone: .gmt, systemLocale: english) }
        // `now` alone is the present instant here (timerctl start --pick passes --min now).
        let present = try PickOptions.parse(["--min", "now"]).makePicker(
            now: now, timeZone: .gmt, systemLocale: english)
        #expect(present.minimumDate == now)
        // What the list names is accepted: a span, a day and time, an instant without seconds.
        let accepted = try PickOptions.parse(["--min", "+1h", "--max", "2026-12-24T18:00+01:00"])
        let picker = try accepted.makePicker(now: now, timeZone: .gmt, systemLocale: english)
        #expect(picker.minimumDate == Date(timeIntervalSince1970: 1_795_791_600))  // now + 3,600 s
        #expect(picker.maximumDate == Date(timeIntervalSince1970: 1_798_131_600))  // 2026-12-24T17:00:00Z
        let tomorrow = try PickOptions.parse(["--min", "tomorrow 09:00"])
        // 2026-11-28T09:00:00Z in UTC (timeZone .gmt): 1,795,852,800 - 3,600 (Paris was UTC+1 above).
        #expect(
            try tomorrow.makePicker(now: now, timeZone: .gmt, systemLocale: english).minimumDate
                == Date(timeIntervalSince1970: 1_795_856_400))
    }
}

/// `timerctl pick --calendar` completes the picker's own calendar names.
@Suite("pick --calendar completion names")
struct CalendarCompletionNamesTests {
    @Test("CommandTable.calendarNames are DatePicking's CalendarIdentifiers names, in order")
    func same() {
        #expect(CommandTable.calendarNames == CalendarIdentifiers.names)
    }
}
