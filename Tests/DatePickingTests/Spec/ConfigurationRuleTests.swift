import Foundation
import Testing

@testable import DatePicking

/// Rules B1–B5 and A1 of docs/datepicker-rules.md, with cases beyond the vectors. Expected values come from the rules.
@Suite("Spec rules B1–B5: modes, defaults, minute interval, time zone, calendar")
struct ConfigurationRuleTests {
    @Test("B1: a fresh picker is in dateAndTime mode; UIKit raw values 0…3")
    func b1DefaultMode() {
        let picker = DatePicker(environment: DatePickerEnvironment(now: Spec.at("1999-12-31T23:59:59Z")))
        #expect(picker.datePickerMode == .dateAndTime)
        #expect(DatePickerMode.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(DatePickerMode(name: "countDownTimer") == .countDownTimer)
        #expect(DatePickerMode(name: "CountDownTimer") == nil)
    }

    @Test("B2: defaults under a non-UTC environment; date is the environment's now, fraction included")
    func b2Defaults() {
        let now = Spec.at("2024-02-29T23:59:59.250Z")
        let environment = DatePickerEnvironment(
            now: now, locale: Locale(identifier: "fr_FR"), timeZone: Fixtures.zone("Australia/Sydney"))
        let picker = DatePicker(environment: environment)
        #expect(picker.date == now)  // interval 1: nothing to round
        #expect(picker.minimumDate == nil && picker.maximumDate == nil)
        #expect(picker.minuteInterval == 1 && picker.roundsToMinuteInterval)
        #expect(picker.countDownDuration == 60)
        #expect(picker.locale == nil && picker.calendar == nil && picker.timeZone == nil)
        #expect(picker.effectiveCalendar.timeZone.identifier == "Australia/Sydney")
        // 2024-03-01 10:59 AEDT: the date wheel shows the Sydney day, fr_FR has no AM/PM.
        #expect(picker.wheels.map(\.kind) == [.date, .hour, .minute])
        #expect(picker.selectedValue(of: .hour) == .number(10))
    }

    @Test("B2: locale and calendar are null-resettable; nil follows the environment again")
    func b2NullResettable() {
        var picker = DatePicker(
            environment: DatePickerEnvironment(now: Fixtures.now, locale: Locale(identifier: "ko_KR")))
        picker.datePickerMode = .time
        #expect(picker.wheels.map(\.kind) == [.ampm, .hour, .minute])
        picker.locale = Locale(identifier: "ru_RU")
        #expect(picker.wheels.map(\.kind) == [.hour, .minute])
        picker.locale = nil
        #expect(picker.wheels.map(\.kind) == [.ampm, .hour, .minute])
        picker.datePickerMode = .date
        picker.calendar = Spec.calendar(.buddhist, "UTC")
        #expect(picker.selectedValue(of: .year) == .number(2569))  // 2026 + 543
        picker.calendar = nil
        #expect(picker.selectedValue(of: .year) == .number(2026))
    }

    @Test("B2 (deviation): with timeZone nil the environment's zone applies, not the calendar's own")
    func b2CalendarZone() {
        // UIKit would show 05:00 (the calendar's Asia/Tokyo); the model uses the environment's UTC so that
        // a Calendar carrying the machine's zone never leaks into results (see DatePicker.calendar).
        var picker = DatePicker(environment: DatePickerEnvironment(now: Spec.at("2026-01-01T20:00:00Z")))
        picker.datePickerMode = .time
        picker.locale = Locale(identifier: "de_DE")
        picker.calendar = Spec.calendar(.gregorian, "Asia/Tokyo")
        #expect(picker.selectedValue(of: .hour) == .number(20))
        picker.timeZone = Fixtures.zone("Asia/Tokyo")
        #expect(picker.selectedValue(of: .hour) == .number(5))  // 05:00 JST on Jan 2: an explicit timeZone wins
        picker.timeZone = nil
        picker.calendar = nil
        #expect(picker.selectedValue(of: .hour) == .number(20))  // the environment's UTC
    }

    @Test("B2/B14: the calendar's identifier is merged into the locale: en_US + Hebrew orders day, month, year")
    func b2CalendarMergedIntoLocale() throws {
        var picker = Fixtures.picker(.date, locale: "en_US", calendar: "hebrew")
        #expect(picker.wheels.map(\.kind) == [.day, .month, .year])  // en_US@calendar=hebrew: d MMMM y
        try picker.setCalendar(identifier: "gregorian")
        #expect(picker.wheels.map(\.kind) == [.month, .day, .year])  // en_US: MMMM d, y
        try picker.setCalendar(identifier: "japanese")
        #expect(picker.wheels.map(\.kind) == [.month, .day, .year])  // MMMM d, G y: era and year are one wheel
    }

    @Test("B3/A1: invalid intervals are ignored after a valid non-default one (12 stays 12)")
    func b3IgnoredIntervals() {
        var picker = Fixtures.picker(.time)
        picker.minuteInterval = 12
        for invalid in [0, -12, 7, 8, 9, 11, 24, 25, 40, 45, 60, 90, 120, Int.min, Int.max] {
            picker.minuteInterval = invalid
            #expect(picker.minuteInterval == 12, "interval \(invalid) must be ignored")
        }
        for valid in [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30] {
            picker.minuteInterval = valid
            #expect(picker.minuteInterval == valid)
        }
        #expect(throws: DatePickingError.invalidMinuteInterval(45)) { try picker.setMinuteInterval(45) }
        #expect(picker.minuteInterval == 30)
    }

    @Test("B4: the zone changes the wheels only; Sydney (southern summer) and Tehran (+03:30)")
    func b4PresentationOnly() {
        var picker = Fixtures.picker(.time, zone: "America/Los_Angeles", locale: "de_DE")
        let instant = Spec.at("2026-01-15T00:00:00Z")
        picker.date = instant
        #expect(picker.selectedValue(of: .hour) == .number(16))  // 16:00 PST on Jan 14
        picker.timeZone = Fixtures.zone("Australia/Sydney")
        #expect(picker.selectedValue(of: .hour) == .number(11))  // 11:00 AEDT (+11)
        picker.timeZone = Fixtures.zone("Asia/Tehran")
        #expect(picker.selectedValue(of: .hour) == .number(3))  // 03:30 IRST
        #expect(picker.selectedValue(of: .minute) == .number(30))
        #expect(picker.date == instant)
    }

    @Test("B5: rows per calendar: Persian 12×31, Islamic 12, Coptic 13×30, Buddhist year = Gregorian + 543")
    func b5CalendarRows() {
        var persian = Fixtures.picker(.date, zone: "Asia/Tehran", locale: "fa_IR", calendar: "persian")
        persian.date = Spec.at("2026-06-01T08:00:00Z")
        #expect(persian.wheels.first { $0.kind == .month }?.rowCount == 12)
        #expect(persian.wheels.first { $0.kind == .day }?.rowCount == 31)
        #expect(persian.selectedValue(of: .year) == .number(1405))
        #expect(persian.selectedValue(of: .month) == .number(3))  // Khordad
        let islamic = Fixtures.picker(.date, locale: "ar_EG", calendar: "islamic")
        #expect(islamic.wheels.first { $0.kind == .month }?.rowCount == 12)
        let coptic = Fixtures.picker(.date, calendar: "coptic")
        #expect(coptic.wheels.first { $0.kind == .month }?.rowCount == 13)
        #expect(coptic.wheels.first { $0.kind == .day }?.rowCount == 30)
        var buddhist = Fixtures.picker(.date, locale: "th_TH", calendar: "buddhist")
        buddhist.date = Spec.at("1999-07-01T12:00:00Z")
        #expect(buddhist.selectedValue(of: .year) == .number(2542))
    }

    @Test("B5/B27: Japanese year wheel shows the year within the era: Showa 64 → Heisei 1 on 1989-01-08")
    func b5JapaneseEras() {
        var picker = Fixtures.picker(.date, locale: "ja_JP", calendar: "japanese")
        picker.date = Spec.at("1989-01-07T12:00:00Z")
        #expect(picker.selectedValue(of: .year) == .number(64))
        let outcome = picker.spin(.day, by: 1)  // Showa 64 Jan 8 does not exist: normalised (B17.4b)
        #expect(outcome.restriction == .normalized)
        #expect(picker.date == Spec.at("1989-01-08T12:00:00Z"))
        #expect(picker.selectedValue(of: .year) == .number(1))
    }
}
