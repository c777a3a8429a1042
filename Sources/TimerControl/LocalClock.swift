import FoundationEssentials
import Glibc

/// Local wall-clock text for end times (`status`'s END column, `watch`), in the zone the C library
/// reads (`TZ`, else /etc/localtime; man tzset(3)), without loading ICU into timerctl.
///
/// Only the zone's UTC offset at an instant comes from the C library (`localtime_r`'s `tm_gmtoff`);
/// the calendar arithmetic is the proleptic Gregorian calendar's, done here, so that tests can fix
/// the offset and the instant.
struct LocalClock: Sendable {
    /// The zone's offset from UTC at an instant, in seconds east of Greenwich.
    var offset: @Sendable (Date) -> Int

    /// The system's zone, read through `localtime_r(3)`.
    static let system = LocalClock { date in
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        guard localtime_r(&seconds, &fields) != nil else { return 0 }
        return Int(fields.tm_gmtoff)
    }

    /// A zone with a fixed offset, for tests.
    ///
    /// - Parameter seconds: seconds east of UTC (3600 for UTC+1).
    static func fixed(offsetSeconds seconds: Int) -> LocalClock { LocalClock { _ in seconds } }

    /// An end time as a column shows it: `14:30:05` when it is on the same local day as `now`, else
    /// `2026-12-02 14:30`.
    ///
    /// - Parameters:
    ///   - date: the instant.
    ///   - now: the instant it is now.
    /// - Returns: the local text.
    func endText(_ date: Date, now: Date) -> String {
        let local = fields(date)
        let today = fields(now)
        let time = Self.two(local.hour) + ":" + Self.two(local.minute)
        if (local.year, local.month, local.day) == (today.year, today.month, today.day) {
            return time + ":" + Self.two(local.second)
        }
        return "\(local.year)-\(Self.two(local.month))-\(Self.two(local.day)) \(time)"
    }

    /// `date` as ISO 8601 local time with its offset, to the second (rounded down):
    /// `2026-12-24T18:00:00+01:00`, `…Z` where the offset is 0 (as `Date.ISO8601FormatStyle` writes
    /// timerd's resolved local times, so both confirmations of `start --at` read alike).
    ///
    /// - Parameter date: the instant.
    /// - Returns: the text.
    func offsetText(_ date: Date) -> String {
        let local = fields(date)
        let seconds = offset(date)
        var zone = "Z"
        if seconds != 0 {
            let minutes = abs(seconds) / 60
            zone = (seconds < 0 ? "-" : "+") + Self.two(minutes / 60) + ":" + Self.two(minutes % 60)
        }
        return "\(local.year)-\(Self.two(local.month))-\(Self.two(local.day))T\(Self.two(local.hour)):"
            + "\(Self.two(local.minute)):\(Self.two(local.second))" + zone
    }

    /// The local calendar fields of `date`.
    func fields(_ date: Date) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down)) + offset(date)
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let inDay = seconds - days * 86_400
        let (year, month, day) = Self.civil(fromDays: days)
        return (year, month, day, inDay / 3_600, inDay % 3_600 / 60, inDay % 60)
    }

    /// Year, month and day of the day `days` after 1970-01-01 in the proleptic Gregorian calendar
    /// (the era-based algorithm of Howard Hinnant's "chrono-Compatible Low-Level Date Algorithms").
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
