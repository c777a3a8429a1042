import Foundation
import Testing

@testable import DatePicking

/// Rules B14–B16 of docs/datepicker-rules.md: which wheels, in which order, how many rows, 12/24-hour source.
@Suite("Spec rules B14–B16: wheel order by locale, rows and wrapping, hour cycle")
struct WheelLayoutRuleTests {
    @Test(
        "B14: logical order follows each locale's pattern",
        arguments: [
            ("ko_KR", DatePickerMode.time, [WheelKind.ampm, .hour, .minute]),
            ("zh_TW", .time, [.ampm, .hour, .minute]),
            ("hi_IN", .time, [.ampm, .hour, .minute]),
            ("ru_RU", .time, [.hour, .minute]),
            ("pt_BR", .time, [.hour, .minute]),
            ("es_ES", .time, [.hour, .minute]),
            ("ar_EG", .time, [.hour, .minute, .ampm]),
            ("ja_JP", .date, [.year, .month, .day]),
            ("zh_CN", .date, [.year, .month, .day]),
            ("ko_KR", .date, [.year, .month, .day]),
            ("de_DE", .date, [.day, .month, .year]),
            ("ru_RU", .date, [.day, .month, .year]),
            ("es_ES", .date, [.day, .month, .year]),
            ("he_IL", .date, [.day, .month, .year]),
            ("hi_IN", .dateAndTime, [.date, .ampm, .hour, .minute]),
            ("zh_TW", .dateAndTime, [.date, .ampm, .hour, .minute]),
            ("th_TH", .dateAndTime, [.date, .hour, .minute]),
            ("fr_FR", .dateAndTime, [.date, .hour, .minute]),
            ("fa_IR", .dateAndTime, [.date, .hour, .minute]),
            ("ar_EG", .countDownTimer, [.countdownHour, .countdownMinute]),
            ("ko_KR", .countDownTimer, [.countdownHour, .countdownMinute]),
        ])
    func b14LogicalOrder(locale: String, mode: DatePickerMode, expected: [WheelKind]) {
        let picker = Fixtures.picker(mode, locale: locale)
        #expect(picker.wheels.map(\.kind) == expected)
    }

    @Test("B14: right-to-left locales swap hour/minute then reverse, so hour stays left of minute")
    func b14RightToLeft() {
        #expect(Fixtures.picker(.time, locale: "ar_EG").visualWheelOrder == [.ampm, .hour, .minute])
        #expect(Fixtures.picker(.time, locale: "he_IL").visualWheelOrder == [.hour, .minute])
        #expect(Fixtures.picker(.time, locale: "fa_IR").visualWheelOrder == [.hour, .minute])
        #expect(Fixtures.picker(.dateAndTime, locale: "fa_IR").visualWheelOrder == [.hour, .minute, .date])
        #expect(Fixtures.picker(.date, locale: "he_IL").visualWheelOrder == [.year, .month, .day])
        #expect(
            Fixtures.picker(.countDownTimer, locale: "ar_EG").visualWheelOrder == [.countdownHour, .countdownMinute])
        #expect(Fixtures.picker(.date, locale: "de_DE").visualWheelOrder == [.day, .month, .year])
    }

    @Test("B14: 12-hour means an AM/PM field: ar_EG and hi_IN are 12-hour, ja_JP and he_IL are not")
    func b14TwelveHour() {
        #expect(Fixtures.picker(.time, locale: "ar_EG").uses12HourClock)
        #expect(Fixtures.picker(.time, locale: "hi_IN").uses12HourClock)
        #expect(!Fixtures.picker(.time, locale: "ja_JP").uses12HourClock)
        #expect(!Fixtures.picker(.time, locale: "he_IL").uses12HourClock)
        #expect(!Fixtures.picker(.countDownTimer, locale: "en_US").uses12HourClock)
    }

    @Test("B15: row counts and wrapping of every wheel kind")
    func b15Rows() {
        var time = Fixtures.picker(.time, locale: "ko_KR", interval: 4)
        time.date = Spec.at("2026-05-10T00:00:00Z")
        let wheels = Dictionary(uniqueKeysWithValues: time.wheels.map { ($0.kind, $0) })
        #expect(wheels[.hour]?.rowCount == 12 && wheels[.hour]?.wraps == true)
        #expect(wheels[.hour]?.firstValue == .number(1) && wheels[.hour]?.lastValue == .number(12))
        #expect(wheels[.hour]?.selectedValue == .number(12))  // midnight shows 12 AM
        #expect(wheels[.minute]?.rowCount == 15 && wheels[.minute]?.lastValue == .number(56))
        #expect(wheels[.ampm]?.rowCount == 2 && wheels[.ampm]?.wraps == false)
        let german = Fixtures.picker(.time, locale: "de_DE").wheels[0]
        #expect(german.rowCount == 24 && german.wraps && german.lastValue == .number(23))
        let date = Dictionary(uniqueKeysWithValues: Fixtures.picker(.date).wheels.map { ($0.kind, $0) })
        #expect(date[.year]?.rowCount == 10_000 && date[.year]?.wraps == false)
        #expect(date[.year]?.firstValue == .number(1) && date[.year]?.lastValue == .number(10_000))
        #expect(date[.day]?.rowCount == 31 && date[.day]?.wraps == true)
        #expect(date[.month]?.rowCount == 12 && date[.month]?.wraps == true)
        let dayWheel = Fixtures.picker(.dateAndTime).wheels[0]
        #expect(dayWheel.rowCount == 10_001 && !dayWheel.wraps && dayWheel.selectedRow == 5000)  // today
        let countdown = Fixtures.picker(.countDownTimer, interval: 20).wheels
        #expect(countdown.map(\.rowCount) == [24, 3])
        #expect(countdown.map(\.wraps) == [false, true])
    }

    @Test("B15: the year wheel does not wrap: +1000 rows from 2026 gives 3026, Int.max stops at 10000")
    func b15YearNoWrap() {
        var picker = Fixtures.picker(.date)
        picker.date = Spec.at("2026-05-10T12:00:00Z")
        picker.spin(.year, by: 1000)
        #expect(picker.date == Spec.at("3026-05-10T12:00:00Z"))
        picker.spin(.year, by: Int.max)
        #expect(picker.selectedValue(of: .year) == .number(10_000))
        picker.spin(.year, by: Int.min)
        #expect(picker.selectedValue(of: .year) == .number(1))
    }

    @Test("B15/A8: wrapping wheels wrap by ±1000 rows without carrying")
    func b15WrapNoCarry() {
        var picker = Fixtures.picker(.date, locale: "de_DE")
        picker.date = Spec.at("2026-05-10T12:00:00Z")
        picker.spin(.month, by: 1000)  // 1000 mod 12 = 4: May → September, same year
        #expect(picker.date == Spec.at("2026-09-10T12:00:00Z"))
        picker.spin(.day, by: -1000)  // 31 rows: -1000 mod 31 = 23: day 10 → 2, same month
        #expect(picker.date == Spec.at("2026-09-02T12:00:00Z"))
        var time = Fixtures.picker(.time, locale: "de_DE", interval: 15)
        time.date = Spec.at("2026-05-10T23:00:00Z")
        time.spin(.minute, by: -1)  // 00 → 45, hour stays 23
        #expect(time.date == Spec.at("2026-05-10T23:45:00Z"))
        time.spin(.hour, by: 1001)  // 1001 mod 24 = 17: 23 → 16, same day
        #expect(time.date == Spec.at("2026-05-10T16:45:00Z"))
    }

    @Test("B16: with locale nil the system hour cycle decides; an explicit locale ignores it")
    func b16HourCycle() {
        var picker = DatePicker(
            environment: DatePickerEnvironment(
                now: Fixtures.now, locale: Locale(identifier: "ja_JP"), hourCycle: .h12))
        picker.datePickerMode = .time
        #expect(picker.wheels.map(\.kind) == [.ampm, .hour, .minute])  // ja_JP@hours=h12: ah:mm
        picker.environment = DatePickerEnvironment(now: Fixtures.now, hourCycle: .h23)  // en_US, 24-hour
        #expect(picker.wheels.map(\.kind) == [.hour, .minute])
        picker.locale = Locale(identifier: "ko_KR")
        #expect(picker.wheels.map(\.kind) == [.ampm, .hour, .minute])
        picker.locale = nil
        picker.datePickerMode = .dateAndTime
        #expect(picker.wheels.map(\.kind) == [.date, .hour, .minute])
    }
}
