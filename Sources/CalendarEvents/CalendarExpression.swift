import Foundation

/// A calendar event in the language of systemd.time(7) ("CALENDAR EVENTS"), the language of systemd's
/// `OnCalendar=` and of `systemd-analyze calendar`: `Mon..Fri *-*-* 07:00:00`, `*:0/15`, `*-*~01`, `daily`,
/// `*-*-* 09:00 Europe/Paris`.
///
/// An expression is `[WEEKDAYS] [DATE] [TIME] [TIMEZONE]`: weekday names and ranges (`Mon..Fri`, `Sat,Sun`),
/// a date `YEAR-MONTH-DAY` or `MONTH-DAY` (with `~` before the day to count back from the month's last day),
/// a time `HOUR:MINUTE[:SECOND]` (seconds with up to six fractional digits), and `UTC` or a time-zone
/// identifier. Every date and time field is `*` or a comma-separated list of values, ranges `A..B` and
/// repetitions `A/R`, `A..B/R`. A missing date is `*-*-*`; a missing time is `00:00:00`; missing seconds are
/// `00`. The shorthands are `minutely`, `hourly`, `daily`, `weekly`, `monthly`, `yearly` (`annually`),
/// `quarterly` and `semiannually`.
///
/// ``normalized`` is the form `systemd-analyze calendar` prints; ``nextElapse(after:defaultZone:)`` gives the
/// same instants as systemd except at daylight-saving transitions, where timerd's policy is documented on that
/// method (docs/calendar.md has the table).
///
/// ```swift
/// let expression = try CalendarExpression.parse("Mon..Fri 07:00")
/// print(expression.normalized)  // Mon..Fri *-*-* 07:00:00
/// let paris = TimeZone(identifier: "Europe/Paris")!
/// // 2026-12-04T12:00:00Z is a Friday; the next weekday 07:00 in Paris is Monday 2026-12-07T06:00:00Z.
/// let next = expression.nextElapse(after: Date(timeIntervalSince1970: 1_796_385_600), defaultZone: paris)
/// ```
public struct CalendarExpression: Sendable, Hashable, CustomStringConvertible {
    /// The weekdays that match, bit 0 = Monday … bit 6 = Sunday; all seven bits when no weekday was given.
    var weekdays: UInt8 = 0x7F
    /// The year items; empty for `*`.
    var years: [CalendarComponent] = []
    /// The month items; empty for `*`.
    var months: [CalendarComponent] = []
    /// The day items; empty for `*`. Counted back from the month's end when ``isDayFromEnd``.
    var days: [CalendarComponent] = []
    /// Whether the date used `~`: day 1 is the last day of the month, 2 the one before, and so on.
    var isDayFromEnd = false
    /// The hour items; empty for `*`.
    var hours: [CalendarComponent] = [CalendarComponent(start: 0, stop: nil, repetition: 0)]
    /// The minute items; empty for `*`.
    var minutes: [CalendarComponent] = [CalendarComponent(start: 0, stop: nil, repetition: 0)]
    /// The second items in microseconds; empty for `*` (every whole second).
    var seconds: [CalendarComponent] = [CalendarComponent(start: 0, stop: nil, repetition: 0)]

    /// The zone named at the end of the expression (`UTC`, `Europe/Paris`), or nil when the expression follows
    /// the zone its user passes as `defaultZone`.
    public internal(set) var timeZone: TimeZone?
    /// The zone's name as the expression wrote it (`UTC` for any spelling of it), or nil.
    public internal(set) var timeZoneName: String?

    /// Month numbers that match, bit `m` for month `m` (1–12).
    var monthMask: UInt16 = 0
    /// Days that match, bit `d` for day `d` (1–31), or for the `d`-th last day when ``isDayFromEnd``.
    var dayMask: UInt32 = 0
    /// Hours that match, bit `h` (0–23).
    var hourMask: UInt32 = 0
    /// Minutes that match, bit `m` (0–59).
    var minuteMask: UInt64 = 0

    /// The expression as `systemd-analyze calendar` prints its "Normalized form:" (systemd 252):
    /// `Mon..Fri *-*-* 07:00:00`, `*-*-* *:00/15:00`, `*-02~03 00:00:00 Europe/Paris`.
    ///
    /// Weekdays are listed from Monday, three or more consecutive days as a range, and left out when all seven
    /// match; items of a field are sorted and duplicates dropped; ranges end at the last value their repetition
    /// reaches (`5..9/3` is `05..08/3`); numbers have two digits (four for years) and seconds six fractional
    /// digits when they have any.
    public var normalized: String {
        var parts: [String] = []
        if weekdays != 0x7F { parts.append(Self.normalizedWeekdays(weekdays)) }
        let date =
            chain(years, .year) + "-" + chain(months, .month) + (isDayFromEnd ? "~" : "-") + chain(days, .day)
        parts.append(date)
        parts.append(chain(hours, .hour) + ":" + chain(minutes, .minute) + ":" + chain(seconds, .second))
        if let timeZoneName { parts.append(timeZoneName) }
        return parts.joined(separator: " ")
    }

    /// The ``normalized`` form.
    public var description: String { normalized }

    private func chain(_ items: [CalendarComponent], _ field: CalendarField) -> String {
        items.isEmpty ? "*" : items.map { $0.normalized(in: field) }.joined(separator: ",")
    }

    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Weekday bits as systemd prints them: runs of three or more as `A..B`, shorter runs listed.
    static func normalizedWeekdays(_ mask: UInt8) -> String {
        var pieces: [String] = []
        var day = 0
        while day < 7 {
            guard mask & (1 << day) != 0 else {
                day += 1
                continue
            }
            var end = day
            while end + 1 < 7, mask & (1 << (end + 1)) != 0 { end += 1 }
            if end - day >= 2 {
                pieces.append(weekdayNames[day] + ".." + weekdayNames[end])
            } else {
                pieces.append(contentsOf: (day...end).map { weekdayNames[$0] })
            }
            day = end + 1
        }
        return pieces.joined(separator: ",")
    }

    /// Fills the bit masks the elapse search reads from the item lists.
    mutating func computeMasks() {
        monthMask = UInt16(truncatingIfNeeded: Self.mask(months, .month))
        hourMask = UInt32(truncatingIfNeeded: Self.mask(hours, .hour))
        minuteMask = Self.mask(minutes, .minute)
        if isDayFromEnd {
            var mask: UInt64 = 0
            for item in days {
                if item.stop == nil, item.repetition > 0 {
                    // `~A/R`: A, A-R, A-2R … days back from the end, i.e. toward the month's last day.
                    var value = item.start
                    while value >= 1 {
                        mask |= 1 << value
                        value -= item.repetition
                    }
                } else {
                    for value in 1...28 where item.contains(value, limit: 28) { mask |= 1 << value }
                }
            }
            dayMask = UInt32(truncatingIfNeeded: mask)
        } else {
            dayMask = UInt32(truncatingIfNeeded: Self.mask(days, .day))
        }
    }

    private static func mask(_ items: [CalendarComponent], _ field: CalendarField) -> UInt64 {
        var mask: UInt64 = 0
        for value in field.bounds
        where items.isEmpty || items.contains(where: { $0.contains(value, limit: field.bounds.upperBound) }) {
            mask |= 1 << value
        }
        return mask
    }
}
