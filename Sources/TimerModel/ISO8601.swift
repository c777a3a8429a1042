#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ISO 8601 timestamps in UTC with milliseconds, as every output of the service writes them.
public enum ISO8601 {
    /// `2026-11-29T15:17:33.120Z`: the instant floored to the millisecond (``flooredMilliseconds(of:)``),
    /// so that a time is never written later than it is: 23:59:59.999999 on December 31 stays in its
    /// year (rounding wrote the next year's 00:00:00.000).
    ///
    /// - Parameter date: the instant.
    /// - Returns: its ISO 8601 form (RFC 3339 profile) in UTC.
    ///
    /// Years 1970 to 9999 are formatted by hand (the civil-from-days algorithm of Howard Hinnant's
    /// "chrono-Compatible Low-Level Date Algorithms"), about 20 times faster than
    /// `Date.ISO8601FormatStyle` and with the same output, which a test checks; other instants go
    /// through the format style. Every timer in every reply carries two or three of these.
    public static func string(from date: Date) -> String {
        let milliseconds = flooredMilliseconds(of: date)
        guard milliseconds >= 0, milliseconds < 253_402_300_800_000 else {
            // The style truncates the fraction it is given; half a millisecond more makes that exact.
            let floored = Date(timeIntervalSince1970: (milliseconds + 0.5) / 1_000)
            return floored.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        return fastString(milliseconds: Int64(milliseconds))
    }

    /// The whole milliseconds since 1970 at or before `date`: the instant is first rounded to the
    /// nearest microsecond, so that a `Double` a hair under a whole millisecond (`…33.119999999`
    /// for a time given as `…33.120`) still counts as that millisecond, then floored.
    ///
    /// - Parameter date: the instant.
    /// - Returns: milliseconds since 1970-01-01T00:00:00Z, a whole number (negative before 1970).
    public static func flooredMilliseconds(of date: Date) -> Double {
        ((date.timeIntervalSince1970 * 1_000_000).rounded() / 1_000).rounded(.down)
    }

    /// `yyyy-MM-ddTHH:mm:ss.SSSZ` for milliseconds since 1970 in 0 ..< year 10000.
    package static func fastString(milliseconds: Int64) -> String {
        let days = milliseconds / 86_400_000
        var rest = milliseconds % 86_400_000
        let millisecond = rest % 1_000
        rest /= 1_000
        let second = rest % 60
        rest /= 60
        let minute = rest % 60
        let hour = rest / 60
        // Civil from days (Hinnant), for days ≥ 0 since 1970-01-01.
        let z = days + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            func put(_ value: Int64, _ digits: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(hour, 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(minute, 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(second, 2, at: 17)
            buffer[19] = UInt8(ascii: ".")
            put(millisecond, 3, at: 20)
            buffer[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// Parses an ISO 8601 date-time with `Z` or an offset (`2026-12-01T09:00:00+01:00`), with or
    /// without fractional seconds.
    ///
    /// - Parameter text: the timestamp.
    /// - Returns: the instant, or `nil` when `text` is not such a timestamp.
    public static func date(from text: String) -> Date? {
        guard hasValidFields(text) else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// The instant of a timestamp that ``hasValidFields(_:)`` accepts, computed from its fields
    /// (days from the civil date by Howard Hinnant's "chrono-Compatible Low-Level Date
    /// Algorithms", then the time of day, the fraction and the offset) instead of through
    /// `Date.ISO8601FormatStyle`, whose first parse in a process builds a Gregorian calendar:
    /// a large share of a whole `timerctl status` (docs/performance.md). For display in
    /// `timerctl` (rounded to seconds or minutes there): the result may differ from ``date(from:)``
    /// in the last bits of the `Double` (a test bounds it by a microsecond), so the service, whose
    /// parsed times are kept, still uses ``date(from:)``.
    ///
    /// - Parameter text: the timestamp, `YYYY-MM-DDTHH:MM:SS[.f…](Z|±HH:MM)`.
    /// - Returns: the instant, or `nil` when `text` is not such a timestamp (exactly when
    ///   ``hasValidFields(_:)`` is false).
    package static func displayDate(from text: String) -> Date? {
        guard hasValidFields(text) else { return nil }
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64 {
            var value: Int64 = 0
            for byte in bytes[start..<(start + count)] { value = value * 10 + Int64(byte - 48) }
            return value
        }
        let year = number(0, 4)
        let month = number(5, 2)
        let day = number(8, 2)
        // Days from civil (Hinnant), days since 1970-01-01 (negative before).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        var seconds = days * 86_400 + number(11, 2) * 3_600 + number(14, 2) * 60 + number(17, 2)
        var index = 19
        var fraction = 0.0
        if bytes[index] == 46 {  // "."
            index += 1
            var scale = 0.1
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
        }
        if bytes[index] == 43 || bytes[index] == 45 {  // "+" or "-": local time = UTC + offset
            let offset = number(index + 1, 2) * 3_600 + number(index + 4, 2) * 60
            seconds += bytes[index] == 43 ? -offset : offset
        }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Whether `text` is `YYYY-MM-DDTHH:MM:SS[.f…](Z|±HH:MM)` with every field in range: a day that
    /// exists in its month (leap years by the Gregorian rule), hours 0–23, minutes and seconds 0–59,
    /// an offset of at most ±23:59. Foundation's parser alone accepts `2026-02-30` (as March 2) and `24:00`.
    static func hasValidFields(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116,
            bytes[13] == 58, bytes[16] == 58,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), hour < 24, minute < 60, second < 60
        else { return false }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        var index = 19
        if bytes[index] == 46 {  // "."
            index += 1
            let digits = bytes[index...].prefix { (48...57).contains($0) }.count
            guard digits > 0 else { return false }
            index += digits
        }
        guard index < bytes.count else { return false }
        if bytes[index] == 90 || bytes[index] == 122 { return index + 1 == bytes.count }  // "Z"
        guard bytes[index] == 43 || bytes[index] == 45, index + 6 == bytes.count, bytes[index + 3] == 58,
            let offsetHours = number(index + 1, 2), let offsetMinutes = number(index + 4, 2)
        else { return false }
        return offsetHours < 24 && offsetMinutes < 60
    }
}
