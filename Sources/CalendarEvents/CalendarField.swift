/// One field of a calendar expression, in the order `systemd-analyze calendar` prints them.
///
/// The ranges are systemd.time(7)'s, as systemd 252 accepts them: years 1970–2199, months 1–12, days 1–31
/// (1–28 counted from the end of the month after `~`), hours 0–23, minutes 0–59 and seconds 0–59 with up to six
/// fractional digits.
public enum CalendarField: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The weekday list before the date (`Mon..Fri`).
    case weekday
    /// The year, 1970–2199 (a one- or two-digit year is 2000–2069 below 70, else 1970–1999).
    case year
    /// The month, 1–12.
    case month
    /// The day of the month, 1–31, or 1–28 counted back from the month's last day after `~`.
    case day
    /// The hour, 0–23 (`24:00` is not allowed, as in systemd).
    case hour
    /// The minute, 0–59.
    case minute
    /// The second, 0–59.999999 (microsecond resolution).
    case second

    /// The field's name as the error messages use it ("hour").
    public var description: String { rawValue }

    /// The smallest and largest value the field holds, in the field's unit (microseconds for ``second``).
    var bounds: ClosedRange<Int> {
        switch self {
        case .weekday: 0...6
        case .year: 1970...2199
        case .month: 1...12
        case .day: 1...31
        case .hour: 0...23
        case .minute: 0...59
        case .second: 0...59_999_999
        }
    }

    /// One unit of the field in its stored scale: 1, or 1,000,000 microseconds for ``second``.
    var unit: Int { self == .second ? 1_000_000 : 1 }

    /// What the field accepts, for error messages.
    var allowed: String {
        switch self {
        case .weekday: "Mon, Tue, Wed, Thu, Fri, Sat, Sun (or full names), lists with ',' and ranges with '..'"
        case .year: "1970..2199 (or two digits: 00-69 is 2000-2069, 70-99 is 1970-1999)"
        case .month: "1..12"
        case .day: "1..31, or 1..28 after '~' (counted back from the month's last day)"
        case .hour: "0..23"
        case .minute: "0..59"
        case .second: "0..59, with up to 6 fractional digits"
        }
    }
}
