import Foundation

/// The value one row of a ``Wheel`` stands for.
public enum WheelValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A number as the wheel shows it: an hour (1–12 or 0–23), a minute, a day, a month, a year or a count
    /// of countdown hours or minutes.
    case number(Int)
    /// A row of a lunisolar month wheel for the leap month that follows month n: the Chinese calendar's 闰六月
    /// is `.leapMonth(6)` (rule B5). Only years that have a leap month show such a row.
    case leapMonth(Int)
    /// A row of the AM/PM wheel.
    case meridiem(Meridiem)
    /// A row of the `.dateAndTime` date wheel: noon of that day in the picker's calendar and time zone.
    case day(Date)

    /// The two rows of an AM/PM wheel.
    public enum Meridiem: String, Sendable, Hashable, Codable, CaseIterable {
        /// Hours 0–11 (shown 12, 1, …, 11).
        case am = "AM"
        /// Hours 12–23 (shown 12, 1, …, 11).
        case pm = "PM"
    }

    /// The number, or `nil` for a meridiem or day row.
    public var number: Int? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// A debugging description such as `7`, `leap(6)`, `PM` or the seconds since 1970 of a day row.
    ///
    /// Not for display: ``DatePicker/titles`` gives the localized title of a row.
    public var description: String {
        switch self {
        case .number(let value): return String(value)
        case .leapMonth(let month): return "leap(\(month))"
        case .meridiem(let meridiem): return meridiem.rawValue
        case .day(let date): return "day(\(date.timeIntervalSince1970))"
        }
    }
}
