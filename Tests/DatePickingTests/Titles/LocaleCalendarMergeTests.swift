import Foundation
import Testing

@testable import DatePicking

/// With ``DatePicker/calendar`` left `nil`, the titles follow the system (environment) calendar, with its name
/// merged into the locale (rule B2 of docs/datepicker-rules.md), as Foundation's own formatters do when given
/// a locale and a calendar that disagree. Expected strings come from the toolchain's Foundation, built here for
/// the same locale, calendar and zone without the picker's code: `Date.FormatStyle(locale:calendar:timeZone:)`
/// field by field (year, wide month, day, and weekday-month-day for the date wheel), and `DateFormatter` with a
/// locale, a calendar and a date style, which merges the calendar into the locale itself. The literals are what
/// Swift 6.3's Foundation and ICU print on this machine.
@Suite("Locale and system calendar merged when the picker's calendar is nil (B2)")
struct LocaleCalendarMergeTests {
    /// 2025-08-01T12:07:00Z, a Friday.
    static let instant = Date(timeIntervalSince1970: 1_754_050_020)

    static var gregorianUTC: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }

    /// A picker on a Gregorian system in UTC whose own calendar is nil; the locale is the picker's or, with
    /// `asSystemLocale`, the environment's.
    static func picker(_ mode: DatePickerMode, locale: String, asSystemLocale: Bool = false) -> DatePicker {
        var environment = DatePickerEnvironment(now: instant, calendar: gregorianUTC)
        if asSystemLocale { environment.locale = Locale(identifier: locale) }
        var picker = DatePicker(environment: environment)
        if !asSystemLocale { picker.locale = Locale(identifier: locale) }
        picker.datePickerMode = mode
        picker.date = instant
        return picker
    }

    static func selectedTitle(_ picker: DatePicker, _ kind: WheelKind) -> String? {
        guard let wheel = picker.wheels.first(where: { $0.kind == kind }) else { return nil }
        return picker.titles.title(for: wheel.selectedValue, in: kind)
    }

    /// Foundation's format style for the locale as given and the Gregorian calendar.
    static func style(_ locale: String) -> Date.FormatStyle {
        Date.FormatStyle(locale: Locale(identifier: locale), calendar: gregorianUTC, timeZone: .gmt)
    }

    static let locales = [
        "ja_JP@calendar=japanese", "th_TH", "th_TH@calendar=buddhist", "ar_SA", "fa_IR", "he_IL@calendar=hebrew",
        "en_US",
    ]

    @Test(
        "Year, month and day titles are Foundation's for the locale with the system calendar",
        arguments: locales, [false, true])
    func dateWheelsMatchFoundation(locale: String, asSystemLocale: Bool) {
        let picker = Self.picker(.date, locale: locale, asSystemLocale: asSystemLocale)
        let style = Self.style(locale)
        #expect(picker.effectiveCalendar.identifier == .gregorian)
        #expect(Self.selectedTitle(picker, .year) == Self.instant.formatted(style.year()))
        #expect(Self.selectedTitle(picker, .month) == Self.instant.formatted(style.month(.wide)))
        #expect(Self.selectedTitle(picker, .day) == Self.instant.formatted(style.day()))
    }

    @Test("The date wheel's rows are Foundation's weekday, month and day", arguments: locales)
    func dateAndTimeWheelMatchesFoundation(locale: String) {
        let picker = Self.picker(.dateAndTime, locale: locale)
        guard let wheel = picker.wheels.first(where: { $0.kind == .date }) else {
            Issue.record("no date wheel")
            return
        }
        // The row after today: today's own row is titled "Today" (B14).
        let title = picker.titles.title(for: wheel.value(atRow: wheel.selectedRow + 1), in: .date)
        let tomorrow = Self.instant.addingTimeInterval(86_400)
        #expect(
            title == tomorrow.formatted(Self.style(locale).weekday(.abbreviated).month(.abbreviated).day()))
    }

    @Test("ja_JP@calendar=japanese on a Gregorian system: 2025年, as DateFormatter's long date has it")
    func japaneseLocaleGregorianSystem() {
        let picker = Self.picker(.date, locale: "ja_JP@calendar=japanese")
        let year = Self.selectedTitle(picker, .year)
        #expect(year == "2025年")  // not 西暦2025年, the Japanese calendar's pattern with a Gregorian era
        #expect(picker.effectiveLocale.identifier == "ja_JP@calendar=gregorian")
        #expect(picker.visualWheelOrder == [.year, .month, .day])
        // DateFormatter given the same locale and calendar merges them itself: 2025年8月1日.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "ja_JP@calendar=japanese")
        formatter.calendar = Self.gregorianUTC
        formatter.timeZone = .gmt
        formatter.dateStyle = .long
        let long = formatter.string(from: Self.instant)
        #expect(long == "2025年8月1日")
        let parts = [WheelKind.year, .month, .day].compactMap { Self.selectedTitle(picker, $0) }
        #expect(parts.joined() == long)
    }

    @Test("th_TH (Buddhist by default) on a Gregorian system: 2025, no ค.ศ. era")
    func thaiLocaleGregorianSystem() {
        for locale in ["th_TH", "th_TH@calendar=buddhist"] {
            let picker = Self.picker(.date, locale: locale)
            #expect(Self.selectedTitle(picker, .year) == "2025")  // not ค.ศ. 2025
            #expect(Self.selectedTitle(picker, .month) == "สิงหาคม")
            #expect(picker.visualWheelOrder == [.day, .month, .year])
        }
    }

    @Test("A locale whose own calendar is the one used is left as it is")
    func matchingCalendarLeavesLocale() {
        #expect(Self.picker(.date, locale: "en_US").effectiveLocale.identifier == "en_US")
        var buddhist = Self.picker(.date, locale: "th_TH")
        buddhist.calendar = Calendar(identifier: .buddhist)
        #expect(buddhist.effectiveLocale.identifier == "th_TH")
        // Thai's Buddhist year pattern carries its era: G y.
        var buddhistCalendar = Calendar(identifier: .buddhist)
        buddhistCalendar.timeZone = .gmt
        let style = Date.FormatStyle(locale: Locale(identifier: "th_TH"), calendar: buddhistCalendar, timeZone: .gmt)
        #expect(Self.selectedTitle(buddhist, .year) == Self.instant.formatted(style.year()))
        #expect(Self.selectedTitle(buddhist, .year) == "พ.ศ. 2568")
    }
}
