import Foundation
import Testing

@testable import DatePicking

/// Row titles for seven locales. Each expected string is checked twice: against a `DateFormatter` (or format
/// style) built here from scratch for the same instant, locale, calendar and zone, which shows that ICU and not
/// our code decides the words and digits; and against a literal, which documents what ICU (Swift 6.3.1's
/// Foundation on this machine) decides today. Rule B14 of docs/datepicker-rules.md says which field each wheel
/// shows.
@Suite("Wheel titles: localized rows for en_US, de_DE, fr_FR, ja_JP, he_IL, ar_EG, zh_CN")
struct WheelTitleTests {
    /// 2025-08-01T12:07:00Z: a Friday; 08:07 in New York, 14:07 in Berlin and Paris, 15:07 in Cairo, 21:07 in
    /// Tokyo; day 8 of the Chinese leap month 6 (闰六月) of year 乙巳.
    static let instant = Date(timeIntervalSince1970: 1_754_050_020)
    /// 2024-03-09T12:00:00Z: 29 Adar I 5784, a Hebrew leap year.
    static let hebrewLeap = Date(timeIntervalSince1970: 1_709_985_600)
    /// 2025-03-09T12:00:00Z: 9 Adar 5785, a Hebrew common year.
    static let hebrewCommon = Date(timeIntervalSince1970: 1_741_521_600)

    static func picker(
        _ mode: DatePickerMode, locale: String, calendar: String = "gregorian", zone: String,
        date: Date = instant
    ) -> DatePicker {
        var picker = DatePicker(environment: DatePickerEnvironment(now: instant))
        picker.locale = Locale(identifier: locale)
        picker.calendar = try? DatePicker.calendar(identifier: calendar)
        picker.timeZone = TimeZone(identifier: zone)
        picker.datePickerMode = mode
        picker.date = date
        return picker
    }

    /// Titles of the selected row and its two neighbours on each side, per wheel kind.
    static func window(_ picker: DatePicker) -> [WheelKind: [String]] {
        let titles = picker.titles
        var result: [WheelKind: [String]] = [:]
        for wheel in picker.wheels {
            let row = wheel.selectedRow
            result[wheel.kind] = titles.titles(of: wheel, rows: (row - 2)...(row + 2)).map { $0 ?? "" }
        }
        return result
    }

    /// Foundation's own output: a fresh formatter for the locale (with the calendar keyword), calendar and zone.
    static func foundation(
        _ date: Date, locale: String, calendar: Calendar.Identifier = .gregorian, zone: String,
        template: String? = nil, pattern: String? = nil
    ) -> String {
        let formatter = DateFormatter()
        var calendarValue = Calendar(identifier: calendar)
        calendarValue.timeZone = TimeZone(identifier: zone) ?? .gmt
        var components = Locale.Components(locale: Locale(identifier: locale))
        if calendar != .gregorian { components.calendar = calendar }
        formatter.locale = Locale(components: components)
        formatter.calendar = calendarValue
        formatter.timeZone = calendarValue.timeZone
        if let template { formatter.setLocalizedDateFormatFromTemplate(template) }
        if let pattern { formatter.dateFormat = pattern }
        return formatter.string(from: date)
    }

    static func day(_ offset: Int, from date: Date = instant) -> Date {
        date.addingTimeInterval(TimeInterval(offset) * 86_400)
    }

    static func relativeToday(locale: String) -> String {
        var style = Date.AnchoredRelativeFormatStyle(
            anchor: instant, presentation: .named, unitsStyle: .wide, locale: Locale(identifier: locale),
            calendar: Calendar(identifier: .gregorian), capitalizationContext: .beginningOfSentence)
        style.allowedFields = [.day]
        return style.format(instant)
    }

    @Test("en_US .dateAndTime: Today, weekday-month-day neighbours, 12-hour digits, AM/PM")
    func englishDateAndTime() {
        let picker = Self.picker(.dateAndTime, locale: "en_US", zone: "America/New_York")
        let window = Self.window(picker)
        let dates = [-2, -1, 1, 2].map {
            Self.foundation(Self.day($0), locale: "en_US", zone: "America/New_York", template: "EEEMMMd")
        }
        #expect(window[.date] == [dates[0], dates[1], Self.relativeToday(locale: "en_US"), dates[2], dates[3]])
        #expect(window[.date] == ["Wed, Jul 30", "Thu, Jul 31", "Today", "Sat, Aug 2", "Sun, Aug 3"])
        #expect(window[.hour] == ["6", "7", "8", "9", "10"])
        #expect(
            window[.hour]?[2] == Self.foundation(Self.instant, locale: "en_US", zone: "America/New_York", pattern: "h"))
        #expect(window[.minute] == ["05", "06", "07", "08", "09"])
        #expect(window[.ampm] == ["", "", "AM", "PM", ""])
        #expect(picker.visualWheelOrder == [.date, .hour, .minute, .ampm])
        #expect(picker.layoutDirection == .leftToRight)
    }

    @Test("de_DE: day-month-year order, German month names, Heute, 24-hour")
    func german() {
        let date = Self.picker(.date, locale: "de_DE", zone: "Europe/Berlin")
        let window = Self.window(date)
        #expect(date.visualWheelOrder == [.day, .month, .year])
        #expect(window[.month] == ["Juni", "Juli", "August", "September", "Oktober"])
        #expect(
            window[.month]?[2]
                == Self.foundation(Self.instant, locale: "de_DE", zone: "Europe/Berlin", template: "MMMM"))
        #expect(window[.day] == ["30", "31", "1", "2", "3"])
        #expect(window[.year] == ["2023", "2024", "2025", "2026", "2027"])
        let dateAndTime = Self.window(Self.picker(.dateAndTime, locale: "de_DE", zone: "Europe/Berlin"))
        #expect(dateAndTime[.date]?[2] == Self.relativeToday(locale: "de_DE"))
        #expect(dateAndTime[.date] == ["Mi. 30. Juli", "Do. 31. Juli", "Heute", "Sa. 2. Aug.", "So. 3. Aug."])
        #expect(
            dateAndTime[.date]?[3]
                == Self.foundation(Self.day(1), locale: "de_DE", zone: "Europe/Berlin", template: "EEEMMMd"))
        #expect(dateAndTime[.hour] == ["12", "13", "14", "15", "16"])
    }

    @Test("fr_FR: day-month-year order, lower-case month names, Aujourd’hui")
    func french() {
        let picker = Self.picker(.date, locale: "fr_FR", zone: "Europe/Paris")
        let window = Self.window(picker)
        #expect(picker.visualWheelOrder == [.day, .month, .year])
        #expect(window[.month] == ["juin", "juillet", "août", "septembre", "octobre"])
        #expect(
            window[.month]?[2] == Self.foundation(Self.instant, locale: "fr_FR", zone: "Europe/Paris", template: "MMMM")
        )
        let dateAndTime = Self.window(Self.picker(.dateAndTime, locale: "fr_FR", zone: "Europe/Paris"))
        #expect(dateAndTime[.date]?[2] == "Aujourd’hui")
        #expect(dateAndTime[.date]?[2] == Self.relativeToday(locale: "fr_FR"))
        #expect(
            dateAndTime[.date]?[3]
                == Self.foundation(Self.day(1), locale: "fr_FR", zone: "Europe/Paris", template: "EEEMMMd"))
        #expect(dateAndTime[.date]?[3] == "sam. 2 août")
    }

    @Test("ja_JP, Japanese calendar: year-month-day order, era names, 午前/午後 before the hour in 12-hour time")
    func japanese() {
        let picker = Self.picker(.date, locale: "ja_JP", calendar: "japanese", zone: "Asia/Tokyo")
        let window = Self.window(picker)
        #expect(picker.visualWheelOrder == [.year, .month, .day])
        #expect(window[.year] == ["令和5年", "令和6年", "令和7年", "令和8年", "令和9年"])
        #expect(
            window[.year]?[2]
                == Self.foundation(
                    Self.instant, locale: "ja_JP", calendar: .japanese, zone: "Asia/Tokyo", template: "Gy"))
        #expect(window[.month] == ["6月", "7月", "8月", "9月", "10月"])
        #expect(window[.day] == ["30日", "31日", "1日", "2日", "3日"])
        #expect(
            window[.day]?[2]
                == Self.foundation(
                    Self.instant, locale: "ja_JP", calendar: .japanese, zone: "Asia/Tokyo", template: "d"))
        // The system 12-hour switch (locale nil, rule B16) puts 午前/午後 before the hour.
        var twelve = DatePicker(
            environment: DatePickerEnvironment(
                now: Self.instant, locale: Locale(identifier: "ja_JP"), timeZone: Fixtures.zone("Asia/Tokyo"),
                hourCycle: .h12))
        twelve.datePickerMode = .time
        #expect(twelve.visualWheelOrder == [.ampm, .hour, .minute])
        let time = Self.window(twelve)
        #expect(time[.ampm] == ["", "午前", "午後", "", ""])
        #expect(time[.ampm]?[2] == Self.foundation(Self.instant, locale: "ja_JP", zone: "Asia/Tokyo", pattern: "a"))
        #expect(time[.hour]?[2] == "9")
    }

    @Test("he_IL, Hebrew calendar: Adar I and Adar II in a leap year, Adar in a common year, right to left")
    func hebrew() {
        let leap = Self.picker(
            .date, locale: "he_IL", calendar: "hebrew", zone: "Asia/Jerusalem", date: Self.hebrewLeap)
        #expect(leap.layoutDirection == .rightToLeft)
        #expect(leap.wheels.map(\.kind) == [.day, .month, .year])
        #expect(leap.visualWheelOrder == [.year, .month, .day])
        let window = Self.window(leap)
        #expect(window[.month] == ["טבת", "שבט", "אדר א׳", "אדר ב׳", "ניסן"])
        #expect(
            window[.month]?[2]
                == Self.foundation(
                    Self.hebrewLeap, locale: "he_IL", calendar: .hebrew, zone: "Asia/Jerusalem", template: "MMMM"))
        #expect(window[.day] == ["27", "28", "29", "30", "1"])
        #expect(window[.year]?[2] == "5784")
        let common = Self.picker(
            .date, locale: "he_IL", calendar: "hebrew", zone: "Asia/Jerusalem", date: Self.hebrewCommon)
        let titles = common.titles
        // Month 7 of 5785 is plain Adar; Adar I (6) does not exist that year and takes the month symbol.
        #expect(titles.title(for: .number(7), in: .month) == "אדר")
        #expect(
            titles.title(for: .number(7), in: .month)
                == Self.foundation(
                    Self.hebrewCommon, locale: "he_IL", calendar: .hebrew, zone: "Asia/Jerusalem", template: "MMMM"))
        #expect(titles.title(for: .number(6), in: .month) == "אדר א׳")
    }

    @Test("ar_EG: Arabic-Indic digits, ص/م, right to left with AM/PM on the left")
    func arabic() {
        let picker = Self.picker(.time, locale: "ar_EG", zone: "Africa/Cairo")
        #expect(picker.layoutDirection == .rightToLeft)
        #expect(picker.wheels.map(\.kind) == [.hour, .minute, .ampm])
        #expect(picker.visualWheelOrder == [.ampm, .hour, .minute])
        let window = Self.window(picker)
        #expect(window[.hour] == ["١", "٢", "٣", "٤", "٥"])
        #expect(window[.hour]?[2] == Self.foundation(Self.instant, locale: "ar_EG", zone: "Africa/Cairo", pattern: "h"))
        #expect(window[.minute] == ["٠٥", "٠٦", "٠٧", "٠٨", "٠٩"])
        #expect(
            window[.minute]?[2] == Self.foundation(Self.instant, locale: "ar_EG", zone: "Africa/Cairo", pattern: "mm"))
        #expect(window[.ampm] == ["", "ص", "م", "", ""])
        #expect(window[.ampm]?[2] == Self.foundation(Self.instant, locale: "ar_EG", zone: "Africa/Cairo", pattern: "a"))
    }

    @Test("zh_CN, Chinese calendar: the leap month 闰六月 between 六月 and 七月, cyclic year name")
    func chinese() {
        let picker = Self.picker(.date, locale: "zh_CN", calendar: "chinese", zone: "Asia/Shanghai")
        #expect(picker.visualWheelOrder == [.year, .month, .day])
        let window = Self.window(picker)
        #expect(window[.month] == ["五月", "六月", "闰六月", "七月", "八月"])
        #expect(
            window[.month]?[2]
                == Self.foundation(
                    Self.instant, locale: "zh_CN", calendar: .chinese, zone: "Asia/Shanghai", template: "MMMM"))
        #expect(window[.year]?[2] == "乙巳年")
        #expect(
            window[.year]?[2]
                == Self.foundation(
                    Self.instant, locale: "zh_CN", calendar: .chinese, zone: "Asia/Shanghai", template: "y"))
        // zh_CN and ko_KR: AM/PM before the hour where the locale is 12-hour (ko_KR), none in zh_CN (HH:mm).
        #expect(Self.picker(.time, locale: "zh_CN", zone: "Asia/Shanghai").visualWheelOrder == [.hour, .minute])
        let korean = Self.picker(.time, locale: "ko_KR", zone: "Asia/Seoul")
        #expect(korean.visualWheelOrder == [.ampm, .hour, .minute])
        #expect(Self.window(korean)[.ampm] == ["", "오전", "오후", "", ""])
    }

    @Test("Countdown wheels read as hours and minutes in the locale")
    func countdown() {
        var picker = Self.picker(.countDownTimer, locale: "en_US", zone: "UTC")
        picker.countDownDuration = 3_900  // 1 h 5 min
        let window = Self.window(picker)
        // Foundation's Duration.UnitsFormatStyle, hours wide and minutes abbreviated, as iOS labels them.
        #expect(window[.countdownHour] == ["", "0 hours", "1 hour", "2 hours", "3 hours"])
        #expect(window[.countdownMinute] == ["3 min", "4 min", "5 min", "6 min", "7 min"])
        #expect(
            window[.countdownHour]?[2]
                == Duration.seconds(3600).formatted(
                    .units(allowed: [.hours], width: .wide).locale(Locale(identifier: "en_US"))))
        picker.locale = Locale(identifier: "de_DE")
        #expect(Self.window(picker)[.countdownHour]?[3] == "2 Stunden")
    }

    @Test("Decision A16: 0001-01-01T00:00Z seen in New York is 31 December 1 BC and its year row says so")
    func yearOneBeforeCommonEra() {
        let picker = Self.picker(.date, locale: "en_US", zone: "America/New_York", date: .distantPast)
        let titles = picker.titles
        #expect(picker.wheels.map { titles.title(for: $0.selectedValue, in: $0.kind) } == ["December", "31", "1 BC"])
        #expect(
            titles.title(for: .number(1), in: .year)
                == Self.foundation(.distantPast, locale: "en_US", zone: "America/New_York", template: "Gy"))
    }

    @Test("Decision A15: the Japanese year wheel spins back across Reiwa 1 into Heisei and forward again")
    func japaneseEraCrossing() {
        // 2019-05-04T12:00:00Z: Reiwa 1 (令和元年), May 4 in Tokyo.
        var picker = Self.picker(
            .date, locale: "ja_JP", calendar: "japanese", zone: "Asia/Tokyo",
            date: Date(timeIntervalSince1970: 1_556_971_200))
        func shown() -> [String] { picker.wheels.map { picker.titles.title(for: $0.selectedValue, in: $0.kind) } }
        #expect(shown() == ["令和元年", "5月", "4日"])
        picker.spin(.year, by: -1)
        #expect(shown() == ["平成30年", "5月", "4日"])
        #expect(Spec.iso(picker.date) == "2018-05-04T12:00:00.000Z")
        picker.spin(.year, by: 1)
        #expect(shown() == ["令和元年", "5月", "4日"])
    }

    @Test("Hostile values never trap: out-of-range rows are titled by their description")
    func hostileValues() {
        let integers = [Int.min, -1, 0, 24, 60, 10_001, Int.max]
        let picker = Self.picker(.dateAndTime, locale: "ja_JP", calendar: "japanese", zone: "Asia/Tokyo")
        let titles = picker.titles
        for kind in WheelKind.allCases {
            for number in integers {
                _ = titles.title(for: .number(number), in: kind)
                _ = titles.title(for: .leapMonth(number), in: kind)
            }
            _ = titles.title(for: .day(.distantFuture), in: kind)
        }
        // Expected: the debugging description, since no wheel shows these (WheelValue.description).
        #expect(titles.title(for: .number(Int.max), in: .hour) == String(Int.max))
        #expect(titles.title(for: .number(60), in: .minute) == "60")
        #expect(titles.title(for: .leapMonth(0), in: .month) == "leap(0)")
        #expect(titles.title(for: .number(5), in: .ampm) == "5")
    }

    @Test("A 10,000-row date wheel titles only the rows asked for")
    func lazyDateWheel() throws {
        let picker = Self.picker(.dateAndTime, locale: "en_US", zone: "UTC")
        let wheel = try #require(picker.wheels.first { $0.kind == .date })
        #expect(wheel.rowCount == 10_001)
        let titles = picker.titles.titles(of: wheel, rows: 0...2)
        // Row 0 is 5000 days before today (2025-08-01): 2011-11-23, a Wednesday; row 10 000 is 2039-04-10, a
        // Sunday (Python: date(2025, 8, 1) -/+ timedelta(5000)).
        #expect(titles == ["Wed, Nov 23", "Thu, Nov 24", "Fri, Nov 25"])
        #expect(picker.titles.titles(of: wheel, rows: 10_000...10_001) == ["Sun, Apr 10", nil])
    }
}
