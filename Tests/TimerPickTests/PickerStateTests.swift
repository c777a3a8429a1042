import DatePicking
import Foundation
import Testing
import TimerModel

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
}
