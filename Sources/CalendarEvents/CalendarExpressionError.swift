/// Why a calendar expression could not be read.
///
/// Every case carries the `offset` of the offending token: the number of UTF-8 bytes before it in the text
/// given to ``CalendarExpression/parse(_:)`` (0-based; the same as the character offset for the ASCII text the
/// language is written in). ``description`` names the token and says what is allowed there, following the
/// grammar of systemd.time(7), "CALENDAR EVENTS".
public enum CalendarExpressionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is empty or only spaces.
    case empty
    /// A token that is no part of the grammar where it stands (a fifth word, a weekday after the date, `Mon,,Tue`).
    case unexpectedToken(offset: Int, token: String)
    /// A word in the weekday position that is not a weekday name, or a range that runs backwards (`Fri..Mon`).
    case invalidWeekday(offset: Int, token: String)
    /// A value outside its field's range (`25:00`, `*-13-01`, `*-*~29`, `2200-01-01`).
    case valueOutOfRange(offset: Int, token: String, field: CalendarField)
    /// A malformed number, range or repetition in a field (`1.5:00`, `10..5:00`, `*:*/5`, `*:0/0`, `*:50/20`).
    case invalidValue(offset: Int, token: String, field: CalendarField)
    /// A date with the wrong number of parts (`2026-1`, `*-*-*-*`).
    case invalidDate(offset: Int, token: String)
    /// A time with the wrong number of parts (`5:`, `1:2:3:4`).
    case invalidTime(offset: Int, token: String)
    /// A trailing word that is neither `UTC` nor a time-zone identifier this system knows (`Europe/Pariss`).
    case unknownTimeZone(offset: Int, token: String)

    /// The byte offset of the offending token in the expression (0 for ``empty``).
    public var offset: Int {
        switch self {
        case .empty: 0
        case .unexpectedToken(let offset, _), .invalidWeekday(let offset, _), .valueOutOfRange(let offset, _, _),
            .invalidValue(let offset, _, _), .invalidDate(let offset, _), .invalidTime(let offset, _),
            .unknownTimeZone(let offset, _):
            offset
        }
    }

    /// What was wrong, where, and what is allowed there.
    public var description: String {
        switch self {
        case .empty:
            return "empty calendar expression; expected e.g. 'Mon..Fri *-*-* 07:00:00', '*:0/15' or 'daily'"
        case .unexpectedToken(let offset, let token):
            return "unexpected '\(token)' at offset \(offset); an expression is [WEEKDAYS] [DATE] [TIME] [TIMEZONE]"
                + " separated by single spaces, or one of minutely, hourly, daily, weekly, monthly, yearly,"
                + " annually, quarterly, semiannually (optionally followed by a time zone)"
        case .invalidWeekday(let offset, let token):
            return "invalid weekday '\(token)' at offset \(offset); allowed: \(CalendarField.weekday.allowed),"
                + " ranges from Mon towards Sun"
        case .valueOutOfRange(let offset, let token, let field):
            return "\(field) '\(token)' at offset \(offset) is out of range; allowed: \(field.allowed)"
        case .invalidValue(let offset, let token, let field):
            return "invalid \(field) '\(token)' at offset \(offset); allowed: '*' (not for the day after '~'),"
                + " a value (\(field.allowed)), a list 'A,B', a range 'A..B' (A <= B), a repetition 'A/R' or 'A..B/R'"
                + " (R > 0; A/R needs at least two values)"
        case .invalidDate(let offset, let token):
            return "invalid date '\(token)' at offset \(offset); a date is YEAR-MONTH-DAY or MONTH-DAY,"
                + " with '~' instead of the last '-' to count days back from the month's end"
        case .invalidTime(let offset, let token):
            return "invalid time '\(token)' at offset \(offset); a time is HOUR:MINUTE or HOUR:MINUTE:SECOND"
        case .unknownTimeZone(let offset, let token):
            return "unknown time zone '\(token)' at offset \(offset); allowed: UTC or a time-zone identifier"
                + " such as Europe/Paris (see /usr/share/zoneinfo)"
        }
    }
}

extension CalendarExpressionError {
    /// The same error with its offset moved by `delta` bytes (an error found in a rewritten text, reported
    /// where its token stands in the original).
    func shifted(by delta: Int) -> CalendarExpressionError {
        switch self {
        case .empty: return .empty
        case .unexpectedToken(let offset, let token): return .unexpectedToken(offset: offset + delta, token: token)
        case .invalidWeekday(let offset, let token): return .invalidWeekday(offset: offset + delta, token: token)
        case .valueOutOfRange(let offset, let token, let field):
            return .valueOutOfRange(offset: offset + delta, token: token, field: field)
        case .invalidValue(let offset, let token, let field):
            return .invalidValue(offset: offset + delta, token: token, field: field)
        case .invalidDate(let offset, let token): return .invalidDate(offset: offset + delta, token: token)
        case .invalidTime(let offset, let token): return .invalidTime(offset: offset + delta, token: token)
        case .unknownTimeZone(let offset, let token): return .unknownTimeZone(offset: offset + delta, token: token)
        }
    }
}
