import Foundation
import Testing

@testable import DatePicking

@Suite("Wheels by mode and locale (B5, B14–B16)")
struct WheelTests {
    struct LayoutCase: Sendable, CustomStringConvertible {
        var locale: String
        var mode: DatePickerMode
        var logical: [WheelKind]
        var visual: [WheelKind]
        var description: String { "\(locale) \(mode)" }
    }

    static let layouts: [LayoutCase] = [
        LayoutCase(locale: "en_US", mode: .time, logical: [.hour, .minute, .ampm], visual: [.hour, .minute, .ampm]),
        LayoutCase(locale: "en_GB", mode: .time, logical: [.hour, .minute], visual: [.hour, .minute]),
        LayoutCase(locale: "ko_KR", mode: .time, logical: [.ampm, .hour, .minute], visual: [.ampm, .hour, .minute]),
        LayoutCase(locale: "ar_EG", mode: .time, logical: [.hour, .minute, .ampm], visual: [.ampm, .hour, .minute]),
        LayoutCase(locale: "he_IL", mode: .time, logical: [.hour, .minute], visual: [.hour, .minute]),
        LayoutCase(locale: "fa_IR", mode: .time, logical: [.hour, .minute], visual: [.hour, .minute]),
        LayoutCase(locale: "en_US", mode: .date, logical: [.month, .day, .year], visual: [.month, .day, .year]),
        LayoutCase(locale: "de_DE", mode: .date, logical: [.day, .month, .year], visual: [.day, .month, .year]),
        LayoutCase(locale: "ja_JP", mode: .date, logical: [.year, .month, .day], visual: [.year, .month, .day]),
        LayoutCase(locale: "he_IL", mode: .date, logical: [.day, .month, .year], visual: [.year, .month, .day]),
        LayoutCase(
            locale: "en_US", mode: .dateAndTime, logical: [.date, .hour, .minute, .ampm],
            visual: [.date, .hour, .minute, .ampm]),
        LayoutCase(
            locale: "zh_TW", mode: .dateAndTime, logical: [.date, .ampm, .hour, .minute],
            visual: [.date, .ampm, .hour, .minute]),
        LayoutCase(
            locale: "ar_EG", mode: .dateAndTime, logical: [.date, .hour, .minute, .ampm],
            visual: [.ampm, .hour, .minute, .date]),
        LayoutCase(
            locale: "ar_EG", mode: .countDownTimer, logical: [.countdownHour, .countdownMinute],
            visual: [.countdownHour, .countdownMinute]),
    ]

    @Test("B14: wheel order follows the locale's pattern; RTL swaps hour/minute then reverses", arguments: layouts)
    func b14Order(_ layout: LayoutCase) {
        let picker = Fixtures.picker(layout.mode, locale: layout.locale)
        #expect(picker.wheels.map(\.kind) == layout.logical)
        #expect(picker.visualWheelOrder == layout.visual)
    }

    @Test("B15: row counts and wrapping")
    func b15Rows() {
        let date = Fixtures.picker(.date).wheels
        #expect(date.map(\.rowCount) == [12, 31, 10_000])
        #expect(date.map(\.wraps) == [true, true, false])
        let dateAndTime = Fixtures.picker(.dateAndTime, interval: 5).wheels
        #expect(dateAndTime.map(\.rowCount) == [10_001, 12, 12, 2])
        #expect(dateAndTime.map(\.wraps) == [false, true, true, false])
        #expect(dateAndTime[0].selectedRow == 5000)  // "today"
        #expect(dateAndTime[2].values == [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55].map(WheelValue.number))
        let countdown = Fixtures.picker(.countDownTimer, interval: 20).wheels
        #expect(countdown.map(\.rowCount) == [24, 3])
        #expect(countdown.map(\.wraps) == [false, true])
    }

    @Test("B5: month and day wheels follow the calendar (Hebrew 13 months of up to 30 days, Buddhist year 2569)")
    func b5Calendars() {
        var hebrew = Fixtures.picker(.date, calendar: "hebrew")
        hebrew.date = Date(timeIntervalSince1970: 1_739_016_000)  // 2025-02-08T12:00:00Z = 10 Shevat 5785
        let wheels = hebrew.wheels
        #expect(wheels.first { $0.kind == .month }?.rowCount == 13)
        #expect(wheels.first { $0.kind == .day }?.rowCount == 30)
        #expect(hebrew.selectedValue(of: .year) == .number(5785))
        var buddhist = Fixtures.picker(.date, calendar: "buddhist")
        buddhist.date = Date(timeIntervalSince1970: 1_772_280_000)  // 2026-02-28T12:00:00Z
        #expect(buddhist.selectedValue(of: .year) == .number(2569))
        var japanese = Fixtures.picker(.date, locale: "ja_JP", calendar: "japanese")
        japanese.date = Date(timeIntervalSince1970: 1_556_625_600)  // 2019-04-30T12:00:00Z = Heisei 31
        #expect(japanese.selectedValue(of: .year) == .number(31))
        japanese.spin(.day, by: 1)  // Heisei 31 Apr 31 does not exist: normalised to Reiwa 1 May 1 (B27)
        #expect(Fixtures.wall(japanese.date, "UTC") == "2019-05-01 12:00:00")
        #expect(japanese.selectedValue(of: .year) == .number(1))
    }

    @Test("B16: the system hour cycle applies only when locale is nil")
    func b16HourCycle() {
        var picker = Fixtures.picker(.time, locale: nil)
        picker.environment.hourCycle = .h23
        #expect(picker.wheels.map(\.kind) == [.hour, .minute])
        picker.environment.hourCycle = .h12
        picker.environment.locale = Locale(identifier: "en_GB")
        #expect(picker.wheels.map(\.kind) == [.hour, .minute, .ampm])
        picker.locale = Locale(identifier: "en_GB")
        #expect(picker.wheels.map(\.kind) == [.hour, .minute])
    }

    @Test("B4: the time zone changes the wheels, not the instant")
    func b4TimeZone() {
        var picker = Fixtures.picker(.time, zone: "Asia/Tokyo")
        picker.date = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z = 09:00 JST
        #expect(picker.selectedValue(of: .hour) == .number(9))
        picker.timeZone = Fixtures.zone("America/New_York")
        #expect(picker.selectedValue(of: .hour) == .number(7))  // 19:00 EST the day before
        #expect(picker.selectedValue(of: .ampm) == .meridiem(.pm))
        #expect(picker.date == Date(timeIntervalSince1970: 1_767_225_600))
    }
}
