/// Every error the `DatePicking` module throws.
///
/// Each ``description`` says what was wrong and what is allowed, so it can be shown to a person as is.
/// UIKit itself never throws: its property setters ignore or clamp bad input (rules B3, B10, B11, B20 of
/// docs/datepicker-rules.md). ``DatePicker`` keeps those lenient setters and adds throwing `set…` methods for callers
/// who want to be told.
public enum DatePickingError: Error, Equatable, CustomStringConvertible {
    /// A minute interval that is not a divisor of 60 between 1 and 30 (rule B3).
    case invalidMinuteInterval(Int)
    /// A countdown duration that is not a finite number of seconds ≥ 0; the payload is the value as text
    /// (`"nan"`, `"inf"`, `"-5.0"`), so that the error stays `Equatable` even for NaN.
    case invalidCountDownDuration(String)
    /// A date that is not a finite instant (its time interval is NaN or infinite); the payload is the
    /// interval as text.
    case invalidDate(String)
    /// A time-zone identifier that the time-zone database does not know.
    case unknownTimeZone(String)
    /// A locale identifier whose language is not an ISO 639 language code.
    case unknownLocale(String)
    /// A calendar identifier that is not one of Foundation's calendars.
    case unknownCalendar(String)
    /// A local time with a field out of range (hour over 23, minute or second over 59) or that the calendar cannot build.
    case invalidLocalTime(String)
    /// A local time that falls in a daylight-saving gap, under ``LocalTimeResolver/SkippedTimePolicy/reject``.
    case nonexistentLocalTime(String)
    /// A local time that occurs twice (fall-back), under ``LocalTimeResolver/RepeatedTimePolicy/reject``.
    case ambiguousLocalTime(String)

    /// A sentence saying what was wrong and what is allowed.
    public var description: String {
        switch self {
        case .invalidMinuteInterval(let value):
            return "minute interval \(value) is not allowed: use a divisor of 60 between 1 and 30 "
                + "(1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30)"
        case .invalidCountDownDuration(let value):
            return "countdown duration \(value) is not allowed: use a finite number of seconds from 0; "
                + "it is cut to whole minutes and capped at 86340 (23:59)"
        case .invalidDate(let value):
            return "date with time interval \(value) is not allowed: use a finite instant"
        case .unknownTimeZone(let identifier):
            return "unknown time zone '\(identifier)': use an IANA name such as 'Europe/London' or 'UTC'"
        case .unknownLocale(let identifier):
            return "unknown locale '\(identifier)': use an identifier with an ISO 639 language code, "
                + "such as 'en_US' or 'ar_EG'"
        case .unknownCalendar(let identifier):
            return "unknown calendar '\(identifier)': use one of "
                + CalendarIdentifiers.names.joined(separator: ", ")
        case .invalidLocalTime(let text):
            return "cannot read local time '\(text)': use HH:mm, HH:mm:ss, or YYYY-MM-DDTHH:mm[:ss]"
        case .nonexistentLocalTime(let text):
            return "local time \(text) does not exist (a daylight-saving gap skips it): "
                + "choose another time or a policy that moves it forward"
        case .ambiguousLocalTime(let text):
            return "local time \(text) occurs twice (clocks go back): "
                + "choose another time or a policy that picks the first or last occurrence"
        }
    }
}
