import Foundation

/// The value one row of a ``Wheel`` stands for.
public enum WheelValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A number as the wheel shows it: an hour (1–12 or 0–23), a minute, a day, a month, a year or a count
    /// of countdown hours or minutes.
    case number(Int)
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

    /// A debugging description such as `7`, `PM` or the ISO 8601 instant of a day row.
    public var description: String {
        switch self {
        case .number(let value): return String(value)
        case .meridiem(let meridiem): return meridiem.rawValue
        case .day(let date): return "day(\(date.timeIntervalSince1970))"
        }
    }
}
