import Foundation

/// A local wall time in a picker's calendar: era, year, month (and whether it is a leap month), day, hour (0–23),
/// minute and whole second.
///
/// This is the "selection" of UIKit's `lastSelectedComponents`: what the wheels show, independent of the
/// instant it resolves to. Comparisons at a granularity use the components lexicographically, which is how
/// UIKit's `areValidDateComponents:comparingUnits:` validates rows (rule B12 of docs/datepicker-rules.md).
struct WallTime: Sendable, Hashable {
    var era: Int
    var year: Int
    var month: Int
    /// Whether ``month`` is the leap month that follows the ordinary month of the same number: the Chinese
    /// calendar's 闰六月 is month 6 with this flag (rule B5 of docs/datepicker-rules.md). Always `false` in
    /// calendars without leap months; the Hebrew calendar numbers its leap month (Adar I, 6) instead.
    var isLeapMonth = false
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    enum Granularity: Int, Comparable {
        case year = 2
        case month = 3
        case day = 4
        case hour = 5
        case minute = 6

        static func < (lhs: Granularity, rhs: Granularity) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    static let units: Set<Calendar.Component> = [
        .era, .year, .month, .isLeapMonth, .day, .hour, .minute, .second,
    ]

    init(era: Int, year: Int, month: Int, isLeapMonth: Bool = false, day: Int, hour: Int, minute: Int, second: Int) {
        self.era = era
        self.year = year
        self.month = month
        self.isLeapMonth = isLeapMonth
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    init(_ date: Date, in calendar: Calendar) {
        let parts = calendar.dateComponents(Self.units, from: date)
        self.init(
            era: parts.era ?? 1, year: parts.year ?? 1, month: parts.month ?? 1,
            isLeapMonth: parts.isLeapMonth ?? false, day: parts.day ?? 1,
            hour: parts.hour ?? 0, minute: parts.minute ?? 0, second: parts.second ?? 0)
    }

    /// The components `Calendar.date(from:)` needs. The leap-month flag is set only when true: a `nil` flag
    /// means "the ordinary month" in the Chinese calendar and leaves other calendars alone.
    var components: DateComponents {
        var result = DateComponents(
            era: era, year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        if isLeapMonth { result.isLeapMonth = true }
        return result
    }

    /// The instant `Calendar.date(from:)` makes of this wall time. For a wall time in a daylight-saving gap
    /// this is moved forward by the gap; for one that occurs twice it is the first occurrence.
    func resolved(in calendar: Calendar) -> Date? { calendar.date(from: components) }

    /// The instant of this wall time if it exists, compared on the units down to `granularity`.
    func existingDate(in calendar: Calendar, to granularity: Granularity) -> Date? {
        guard let date = resolved(in: calendar) else { return nil }
        return WallTime(date, in: calendar).matches(self, to: granularity) ? date : nil
    }

    /// The components down to `granularity` as integers that sort in time order; a leap month sorts right
    /// after the ordinary month of the same number.
    func key(to granularity: Granularity) -> [Int] {
        let all = [era, year, month * 2 + (isLeapMonth ? 1 : 0), day, hour, minute]
        return Array(all.prefix(granularity.rawValue))
    }

    func matches(_ other: WallTime, to granularity: Granularity) -> Bool {
        key(to: granularity) == other.key(to: granularity)
    }

    func isBefore(_ other: WallTime, to granularity: Granularity) -> Bool {
        key(to: granularity).lexicographicallyPrecedes(other.key(to: granularity))
    }

    /// This wall time with the units down to `granularity` taken from `other`.
    func replacing(to granularity: Granularity, from other: WallTime) -> WallTime {
        var result = self
        result.era = other.era
        result.year = other.year
        if granularity >= .month {
            result.month = other.month
            result.isLeapMonth = other.isLeapMonth
        }
        if granularity >= .day { result.day = other.day }
        if granularity >= .hour { result.hour = other.hour }
        if granularity >= .minute { result.minute = other.minute }
        return result
    }
}
