/// A wall-clock date and time without a zone, in the proleptic Gregorian calendar, to the microsecond.
///
/// The elapse search walks these fields (year, month, day, hour, minute, microsecond of the minute) and turns
/// them into a count of "local microseconds since 1970-01-01 00:00:00" only to resolve them in a zone.
struct CivilDateTime: Hashable, Sendable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    /// Microseconds since the start of the minute, 0–59,999,999.
    var microsecond: Int

    static let microsecondsPerDay = 86_400_000_000

    /// The fields of `localMicroseconds` (microseconds since 1970-01-01 00:00:00 on the same wall clock).
    init(localMicroseconds: Int) {
        let days = Self.floorDivide(localMicroseconds, Self.microsecondsPerDay)
        let within = localMicroseconds - days * Self.microsecondsPerDay
        (year, month, day) = Self.civil(fromDays: days)
        hour = within / 3_600_000_000
        minute = within / 60_000_000 % 60
        microsecond = within % 60_000_000
    }

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, microsecond: Int) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.microsecond) = (hour, minute, microsecond)
    }

    /// Microseconds since 1970-01-01 00:00:00 on the same wall clock.
    var localMicroseconds: Int {
        let days = Self.days(year: year, month: month, day: day)
        return days * Self.microsecondsPerDay + hour * 3_600_000_000 + minute * 60_000_000 + microsecond
    }

    /// Days from 1970-01-01 to the given Gregorian date (negative before it).
    ///
    /// The usual era computation: March-based years make the leap day the last day of the year, and a 400-year
    /// era has exactly 146,097 days.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian date `days` after 1970-01-01 (the inverse of ``days(year:month:day:)``).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// The weekday of a date, 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday).
    static func weekday(year: Int, month: Int, day: Int) -> Int {
        let days = days(year: year, month: month, day: day)
        return ((days + 3) % 7 + 7) % 7
    }

    /// The number of days in a month of the Gregorian calendar (February has 29 in leap years: divisible by 4,
    /// except centuries not divisible by 400).
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
