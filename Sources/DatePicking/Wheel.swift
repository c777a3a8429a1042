import Foundation

/// One wheel ("drum") of a ``DatePicker``: its rows, whether it wraps, and the selected row.
///
/// Rows are numbered from 0. A wrapping wheel repeats its ``rowCount`` rows endlessly (UIKit uses 10 000
/// virtual rows and recentres); ``value(atRow:)`` accepts any row number and reduces it. A non-wrapping wheel
/// has exactly ``rowCount`` rows. Source: rule B15 of docs/datepicker-rules.md.
public struct Wheel: Sendable, Hashable {
    /// Which wheel this is.
    public let kind: WheelKind
    /// Rows in one cycle of a wrapping wheel, or all rows of a non-wrapping one
    /// (24 or 12 hours, 60/``DatePicker/minuteInterval`` minutes, 2 meridiems, 10 000 years, 10 001 days; 12 or
    /// 13 months in a Chinese year, depending on whether it has a leap month).
    public let rowCount: Int
    /// Whether scrolling past the last row continues at the first.
    public let wraps: Bool
    /// The selected row, in `0..<rowCount`.
    public let selectedRow: Int
    let rows: Rows

    enum Rows: Sendable, Hashable {
        /// Row r shows `first + r * step`.
        case numbers(first: Int, step: Int)
        case meridiems
        /// Row r shows the r-th value of the list (the months of a lunisolar year, with its leap month).
        case list([WheelValue])
        /// Row r is the day `r - centre` days after `base` (noon of "today").
        case days(base: Date, centre: Int, calendar: Calendar)
    }

    /// The value the selected row shows.
    public var selectedValue: WheelValue { value(atRow: selectedRow) }

    /// The value of the first row: the smallest value of a numeric wheel.
    public var firstValue: WheelValue { value(atRow: 0) }

    /// The value of the last row of one cycle: the largest value of a numeric wheel.
    public var lastValue: WheelValue { value(atRow: rowCount - 1) }

    /// The value a row shows.
    ///
    /// - Parameter row: Any row number; on a wrapping wheel it is reduced modulo ``rowCount``, on a
    ///   non-wrapping wheel it is clamped to `0..<rowCount`.
    /// - Returns: The row's value.
    public func value(atRow row: Int) -> WheelValue {
        let index =
            wraps ? Self.modulo(row, rowCount) : Swift.min(Swift.max(row, 0), Swift.max(rowCount - 1, 0))
        switch rows {
        case .numbers(let first, let step):
            return .number(first + index * step)
        case .meridiems:
            return .meridiem(index == 0 ? .am : .pm)
        case .list(let values):
            return values.isEmpty ? .number(index + 1) : values[Swift.min(index, values.count - 1)]
        case .days(let base, let centre, let calendar):
            let day = calendar.date(byAdding: .day, value: index - centre, to: base) ?? base
            return .day(day)
        }
    }

    /// The values of every row of one cycle, in row order.
    ///
    /// - Returns: `rowCount` values; `nil` for the year and date wheels, whose 10 000 rows are better read one at
    ///   a time with ``value(atRow:)``.
    /// - Complexity: O(``rowCount``).
    public var values: [WheelValue]? {
        guard rowCount <= 60 else { return nil }
        return (0..<rowCount).map { value(atRow: $0) }
    }

    static func modulo(_ value: Int, _ divisor: Int) -> Int {
        guard divisor > 0 else { return 0 }
        let remainder = value % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
