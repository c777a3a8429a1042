/// A POSIX `TZ` string read by its grammar (POSIX.1-2017 §8.3, man tzset(3)): `std offset [dst
/// [offset] [,start[/time],end[/time]]]`, as `timerctl` sends it in `timeZone` when `TZ` names no
/// file of the time-zone database.
///
/// POSIX's sign is the opposite of ISO 8601's: the offset is what to **add to local time** to get
/// UTC, so `UTC+3` is three hours *behind* UTC (UTC−03:00) and `CET-1` one hour ahead. Names are three
/// or more letters, or any of `A-Za-z0-9+-` in angle brackets (`<+0330>-3:30` is UTC+03:30).
/// Offsets are `[+-]hh[:mm[:ss]]` with hours 0–24. A missing DST offset is one hour ahead of
/// standard time. Rules are `Jn` (day 1–365, never February 29), `n` (day 0–365), or `Mm.w.d`
/// (month 1–12, week 1–5 with 5 meaning the last, weekday 0–6 from Sunday), each with an optional
/// `/time` (`[+-]h[h][:mm[:ss]]`, −167 to 167 hours, as RFC 8536 extends POSIX); default 02:00.
public struct PosixTimeZoneRule: Sendable, Hashable {
    /// The standard time's abbreviation (`CET`, `+0330`).
    public var standardName: String
    /// Standard time's offset from UTC in seconds, **east positive** (ISO 8601's sign: `CET-1` is 3,600).
    public var standardOffsetSeconds: Int
    /// Daylight time's abbreviation, or `nil` for a zone without daylight saving.
    public var daylightName: String?
    /// Daylight time's offset from UTC in seconds, east positive.
    public var daylightOffsetSeconds: Int?
    /// The rule part after the first comma (`M3.5.0,M10.5.0/3`), or `nil` when none was given.
    public var rules: String?

    /// Reads a POSIX `TZ` string (without a leading `:`).
    ///
    /// - Parameter text: e.g. `EST5EDT`, `UTC+3`, `<+0330>-3:30`, `CET-1CEST,M3.5.0,M10.5.0/3`.
    /// - Returns: the parts, or `nil` when `text` is not in the grammar.
    public init?(parsing text: String) {
        var rest = Substring(text)
        guard let standard = Self.name(&rest), let standardOffset = Self.offset(&rest, maximumHours: 24) else {
            return nil
        }
        standardName = standard
        standardOffsetSeconds = -standardOffset
        if rest.isEmpty { return }
        guard let daylight = Self.name(&rest) else { return nil }
        daylightName = daylight
        if rest.first != ",", !rest.isEmpty {
            guard let daylightOffset = Self.offset(&rest, maximumHours: 24) else { return nil }
            daylightOffsetSeconds = -daylightOffset
        } else {
            daylightOffsetSeconds = standardOffsetSeconds + 3_600
        }
        if rest.isEmpty { return }
        guard rest.first == "," else { return nil }
        let parts = rest.dropFirst().split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy(Self.isRule) else { return nil }
        rules = String(rest.dropFirst())
    }

    /// Whether the zone has daylight saving.
    public var hasDaylightSaving: Bool { daylightName != nil }

    /// `std`: three or more letters, or `<…>` with three or more of `A-Za-z0-9+-`.
    static func name(_ text: inout Substring) -> String? {
        if text.first == "<" {
            guard let close = text.firstIndex(of: ">") else { return nil }
            let inner = text[text.index(after: text.startIndex)..<close]
            guard inner.count >= 3,
                inner.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-") })
            else { return nil }
            text = text[text.index(after: close)...]
            return String(inner)
        }
        let letters = text.prefix { $0.isASCII && $0.isLetter }
        guard letters.count >= 3 else { return nil }
        text = text.dropFirst(letters.count)
        return String(letters)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, POSIX's sign (west positive).
    static func offset(_ text: inout Substring, maximumHours: Int) -> Int? {
        var sign = 1
        if text.first == "+" || text.first == "-" {
            sign = text.first == "-" ? -1 : 1
            text = text.dropFirst()
        }
        var fields: [Int] = []
        while fields.count < 3 {
            let digits = text.prefix { $0.isASCII && $0.isNumber }
            guard (1...(fields.isEmpty ? 3 : 2)).contains(digits.count), let value = Int(digits) else { return nil }
            fields.append(value)
            text = text.dropFirst(digits.count)
            guard text.first == ":" else { break }
            text = text.dropFirst()
        }
        guard fields[0] <= maximumHours, fields.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        let seconds = fields[0] * 3_600 + (fields.count > 1 ? fields[1] * 60 : 0) + (fields.count > 2 ? fields[2] : 0)
        return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`, with an optional `/time`.
    static func isRule(_ text: Substring) -> Bool {
        let pieces = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let date = pieces.first else { return false }
        if pieces.count == 2 {
            var time = pieces[1]
            guard offset(&time, maximumHours: 167) != nil, time.isEmpty else { return false }
        }
        if date.first == "J" {
            guard let day = Int(date.dropFirst()), date.dropFirst().allSatisfy(\.isNumber) else { return false }
            return (1...365).contains(day)
        }
        if date.first == "M" {
            let numbers = date.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard numbers.count == 3, numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) else {
                return false
            }
            let values = numbers.compactMap { Int($0) }
            return values.count == 3 && (1...12).contains(values[0]) && (1...5).contains(values[1])
                && (0...6).contains(values[2])
        }
        guard !date.isEmpty, date.allSatisfy({ $0.isASCII && $0.isNumber }), let day = Int(date) else { return false }
        return (0...365).contains(day)
    }
}
