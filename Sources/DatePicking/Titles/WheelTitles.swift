import Foundation

/// The localized titles of a picker's wheel rows, as the picker would print them for its locale, calendar and
/// time zone.
///
/// Every title comes from Foundation (`DateFormatter` patterns and templates, `Calendar`, `Locale`,
/// `Duration.UnitsFormatStyle`, `Date.AnchoredRelativeFormatStyle`), so ICU decides the words, digits and
/// padding; this type only decides which field each wheel shows (rule B14 of docs/datepicker-rules.md):
///
/// | Wheel | Field | en_US | ja_JP (Japanese calendar) |
/// |---|---|---|---|
/// | hour | the time pattern's own hour field (`h`, `HH`, …) | `12` | `12` |
/// | minute | `mm` | `07` | `07` |
/// | AM/PM | `amSymbol`/`pmSymbol` | `PM` | `午後` |
/// | day | template `d` | `1` | `1日` |
/// | month | template `MMMM` (stand-alone name of that month in that year) | `August` | `8月` |
/// | year | template `y`, `Gy` for the Japanese calendar and for years before the common era | `2025` | `令和7年` |
/// | date (`.dateAndTime`) | template `EEEMMMd`; the localized "Today" for today's row | `Fri, Aug 1` | `8月1日(金)` |
/// | countdown | `Duration` units, hours wide, minutes abbreviated | `5 hours`, `5 min` | `5時間`, `5分` |
///
/// Month names depend on the year: Hebrew month 7 is "Adar II" (אדר ב׳) in a leap year and "Adar" (אדר) in a
/// common one, and the Chinese leap month is marked (闰六月). A Hebrew Adar I row in a common year, which names no
/// real date, takes the formatter's month symbol.
///
/// Titles are made lazily, one row at a time: a 10 000-row date wheel costs only the rows asked for. Formatters
/// are cached process-wide, and titles that depend only on the locale (hours, minutes, AM/PM, countdown) are
/// cached too.
public struct WheelTitles: Sendable {
    /// The locale the titles are in: the picker's ``DatePicker/effectiveLocale``.
    public let locale: Locale
    /// The calendar and time zone that month, year and date titles are counted in.
    public let calendar: Calendar
    /// The direction the locale's language is written in; in a right-to-left language the wheels are laid out
    /// in ``DatePicker/visualWheelOrder`` (rule B14).
    public let layoutDirection: Locale.LanguageDirection
    let hourField: String
    let selection: WallTime
    let today: Date

    /// The title of one row.
    ///
    /// - Parameters:
    ///   - value: The row's value, from ``Wheel/value(atRow:)``.
    ///   - kind: The wheel the row belongs to.
    /// - Returns: The title, such as `August`, `令和7年`, `Today` or `٠٧`. A value the wheel cannot show (a meridiem
    ///   on a minute wheel, minute 75, year 0) is titled by its debugging ``WheelValue/description``.
    /// - Complexity: One cached formatter call; a month or year title also makes one calendar calculation.
    public func title(for value: WheelValue, in kind: WheelKind) -> String {
        guard Self.isTitleable(value, in: kind) else { return value.description }
        switch (kind, value) {
        case (.hour, .number(let hour)):
            return clockTitle(hour: hour, minute: 0, field: hourField)
        case (.minute, .number(let minute)):
            return clockTitle(hour: 0, minute: minute, field: "mm")
        case (.ampm, .meridiem(let meridiem)):
            return meridiemTitle(meridiem)
        case (.day, .number(let day)):
            // Day titles depend on the day alone, so a fixed Gregorian January holds every day 1–31.
            let gregorian = Self.gregorianGMT
            let date = gregorian.date(from: DateComponents(year: 2001, month: 1, day: day, hour: 12)) ?? today
            return FormatterCache.shared.string(from: date, format: .template("d"), locale: locale, calendar: gregorian)
        case (.month, .number(let month)):
            return monthTitle(month: month, isLeapMonth: false)
        case (.month, .leapMonth(let month)):
            return monthTitle(month: month, isLeapMonth: true)
        case (.year, .number(let year)):
            return yearTitle(year)
        case (.date, .day(let day)):
            if calendar.isDate(day, inSameDayAs: today) { return todayTitle }
            return FormatterCache.shared.string(
                from: day, format: .template("EEEMMMd"), locale: locale, calendar: calendar)
        case (.countdownHour, .number(let hours)):
            return durationTitle(hours * 3600, unit: .hours, width: .wide)
        case (.countdownMinute, .number(let minutes)):
            return durationTitle(minutes * 60, unit: .minutes, width: .abbreviated)
        default:
            return value.description
        }
    }

    /// The titles of a range of rows of one wheel, made one row at a time.
    ///
    /// - Parameters:
    ///   - wheel: A wheel of the picker these titles were made for.
    ///   - rows: Row numbers; a wrapping wheel reduces them, a non-wrapping one gives `nil` outside its rows.
    /// - Returns: One title per row, `nil` where a non-wrapping wheel has no row.
    /// - Complexity: O(`rows.count`) formatter calls; independent of ``Wheel/rowCount``.
    public func titles(of wheel: Wheel, rows: ClosedRange<Int>) -> [String?] {
        rows.map { row in
            guard wheel.wraps || (0..<wheel.rowCount).contains(row) else { return nil }
            return title(for: wheel.value(atRow: row), in: wheel.kind)
        }
    }

    // MARK: Fields

    /// Whether a value is within what the wheel can show, so that no calculation on it can overflow: hours 0–23,
    /// minutes 0–59, days 1–31, months 1–13, years 1–10 000, countdown hours 0–23 and minutes 0–59.
    static func isTitleable(_ value: WheelValue, in kind: WheelKind) -> Bool {
        switch (kind, value) {
        case (.hour, .number(let number)), (.countdownHour, .number(let number)): return (0...23).contains(number)
        case (.minute, .number(let number)), (.countdownMinute, .number(let number)): return (0...59).contains(number)
        case (.day, .number(let number)): return (1...31).contains(number)
        case (.month, .number(let number)), (.month, .leapMonth(let number)): return (1...13).contains(number)
        case (.year, .number(let number)): return (1...10_000).contains(number)
        default: return true
        }
    }

    static let gregorianGMT: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        return calendar
    }()

    private func clockTitle(hour: Int, minute: Int, field: String) -> String {
        FormatterCache.shared.title(for: "clock|\(locale.identifier)|\(field)|\(hour)|\(minute)") {
            let date = Date(timeIntervalSinceReferenceDate: TimeInterval(hour * 3600 + minute * 60))
            return FormatterCache.shared.string(
                from: date, format: .pattern(field), locale: locale, calendar: Self.gregorianGMT)
        }
    }

    private func meridiemTitle(_ meridiem: WheelValue.Meridiem) -> String {
        FormatterCache.shared.read(format: .pattern("a"), locale: locale, calendar: Self.gregorianGMT) {
            meridiem == .am ? $0.amSymbol : $0.pmSymbol
        }
    }

    private func durationTitle(
        _ seconds: Int, unit: Duration.UnitsFormatStyle.Unit, width: Duration.UnitsFormatStyle.UnitWidth
    )
        -> String
    {
        FormatterCache.shared.title(for: "duration|\(locale.identifier)|\(unit)|\(seconds)") {
            Duration.seconds(seconds).formatted(
                Duration.UnitsFormatStyle(allowedUnits: [unit], width: width, zeroValueUnits: .show(length: 1))
                    .locale(locale))
        }
    }

    private var todayTitle: String {
        FormatterCache.shared.title(for: "today|\(locale.identifier)") {
            var style = Date.AnchoredRelativeFormatStyle(
                anchor: today, presentation: .named, unitsStyle: .wide, locale: locale, calendar: calendar,
                capitalizationContext: .beginningOfSentence)
            style.allowedFields = [.day]
            return style.format(today)
        }
    }

    private func monthTitle(month: Int, isLeapMonth: Bool) -> String {
        var wallTime = noon(of: selection)
        wallTime.month = month
        wallTime.isLeapMonth = isLeapMonth
        wallTime.day = 1
        if let date = wallTime.resolved(in: calendar) {
            let back = WallTime(date, in: calendar)
            if back.year == wallTime.year, back.month == month, back.isLeapMonth == isLeapMonth {
                return FormatterCache.shared.string(
                    from: date, format: .template("MMMM"), locale: locale, calendar: calendar)
            }
        }
        // A month this year lacks (Hebrew Adar I in a common year): the formatter's stand-alone symbol.
        return FormatterCache.shared.read(format: .template("MMMM"), locale: locale, calendar: calendar) {
            let symbols = $0.standaloneMonthSymbols.isEmpty ? $0.monthSymbols : $0.standaloneMonthSymbols
            return symbols.indices.contains(month - 1) ? symbols[month - 1] : String(month)
        }
    }

    /// Year n of the selection's era, with the era name for the Japanese calendar (令和7年) and before the common
    /// era (1 BC); see docs/datepicker-rules.md, decisions A15 and A16.
    private func yearTitle(_ year: Int) -> String {
        let showsEra =
            calendar.identifier == .japanese
            || ((calendar.identifier == .gregorian || calendar.identifier == .iso8601) && selection.era == 0)
        // The first of these days that exists in year n of the era: the selection's month, else the first or the
        // last day of the year (Reiwa 1 starts on May 1, Heisei 31 ends on April 30).
        var probe = noon(of: selection)
        probe.year = year
        probe.isLeapMonth = false
        probe.day = 1
        for month in [selection.month, 1, 12] {
            probe.month = month
            guard let date = probe.resolved(in: calendar) else { continue }
            let back = WallTime(date, in: calendar)
            guard back.era == probe.era, back.year == year else { continue }
            return FormatterCache.shared.string(
                from: date, format: .template(showsEra ? "Gy" : "y"), locale: locale, calendar: calendar)
        }
        return String(year)
    }

    private func noon(of wallTime: WallTime) -> WallTime {
        var result = wallTime
        result.hour = 12
        result.minute = 0
        result.second = 0
        return result
    }
}
