/// The text of a local wall time in `timer.start`'s `at` and `timerctl start --at`: the one copy of
/// the grammar that `timerctl` (which checks before sending) and `timerd` (which resolves) share.
///
/// Grammar: `HH:MM[:SS]` (the next occurrence of that time of day) or `YYYY-MM-DDTHH:MM[:SS]` (that
/// local date-time; a space may replace the `T`). Every field is ASCII digits of exactly that width;
/// hours 0–23, minutes and seconds 0–59, months 1–12, days 1–31. ``isCalendarDate`` adds the check
/// that the day exists in its month (leap years by the Gregorian rule) and that the year is ≥ 1.
///
/// Which instant a wall time means (daylight-saving gaps and repeats, the minute interval) is the
/// date picker's rule (`DatePicking.LocalTimeResolver`), applied by `timerd`.
public struct LocalTimeText: Sendable, Hashable {
    /// The year (four digits), or `nil` for a time of day alone.
    public var year: Int?
    /// The month 1–12, or `nil`.
    public var month: Int?
    /// The day 1–31, or `nil`.
    public var day: Int?
    /// The hour 0–23.
    public var hour: Int
    /// The minute 0–59.
    public var minute: Int
    /// The second 0–59 (0 when not given).
    public var second: Int

    /// Reads a local wall time.
    ///
    /// - Parameter text: the text as typed, without surrounding whitespace.
    /// - Returns: its fields, or `nil` when `text` is not in the grammar.
    public init?(parsing text: String) {
        let bytes = Array(text.utf8)
        func number(_ slice: ArraySlice<UInt8>) -> Int? {
            guard !slice.isEmpty, slice.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                return nil
            }
            return slice.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        var time = bytes[...]
        if let separator = bytes.firstIndex(where: { $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: " ") }) {
            let fields = bytes[..<separator].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
                let year = number(fields[0]), let month = number(fields[1]), let day = number(fields[2]),
                (1...12).contains(month), (1...31).contains(day)
            else { return nil }
            (self.year, self.month, self.day) = (year, month, day)
            time = bytes[(separator + 1)...]
        }
        let fields = time.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3, fields.allSatisfy({ $0.count == 2 }),
            let hour = number(fields[0]), let minute = number(fields[1]), hour < 24, minute < 60
        else { return nil }
        let second = fields.count == 3 ? number(fields[2]) : 0
        guard let second, second < 60 else { return nil }
        (self.hour, self.minute, self.second) = (hour, minute, second)
    }

    /// Whether the date, if any, exists: year ≥ 1 and the day within its month (proleptic Gregorian).
    public var isCalendarDate: Bool {
        guard let year, let month, let day else { return true }
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return year >= 1 && day <= days
    }

    /// The grammar in words, for error messages.
    public static let accepted = "use HH:MM[:SS] or YYYY-MM-DDTHH:MM[:SS]"
}

/// The minute-interval rule of `timer.start`'s `minuteInterval` and `timerctl --minute-interval`,
/// shared by both so that they say the same: it divides 60 and is 1 to 30, as UIKit's
/// `UIDatePicker.minuteInterval` requires (DatePicking's `DatePicker.isValidMinuteInterval` is the
/// picker library's own statement of it, and `timerd` checks this one first).
public enum MinuteInterval {
    /// The rule in words, for error messages.
    public static let rule = "must divide 60 and be 1 to 30 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30)"

    /// Whether `minutes` follows the rule.
    ///
    /// - Parameter minutes: the interval in minutes.
    /// - Returns: `true` for 1, 2, 3, 4, 5, 6, 10, 12, 15, 20 and 30.
    public static func isValid(_ minutes: Int) -> Bool {
        (1...30).contains(minutes) && 60 % minutes == 0
    }
}
