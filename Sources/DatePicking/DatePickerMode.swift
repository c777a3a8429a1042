/// The kind of value a ``DatePicker`` selects, mirroring UIKit's `UIDatePicker.Mode`.
///
/// The default is ``dateAndTime`` (rule B1 of docs/datepicker-rules.md; Apple's `datePickerMode` documentation).
/// The raw values are UIKit's (`.time` = 0 … `.countDownTimer` = 3).
public enum DatePickerMode: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Hour, minute and, in 12-hour locales, AM/PM wheels.
    case time = 0
    /// Day, month and year wheels, in the order of the locale's date pattern.
    case date = 1
    /// A merged date wheel (one row per day), then hour, minute and, in 12-hour locales, AM/PM.
    case dateAndTime = 2
    /// Hours (0–23) and minutes; the value is ``DatePicker/countDownDuration``.
    case countDownTimer = 3

    /// The UIKit spelling of the mode: `"time"`, `"date"`, `"dateAndTime"` or `"countDownTimer"`.
    public var description: String {
        switch self {
        case .time: return "time"
        case .date: return "date"
        case .dateAndTime: return "dateAndTime"
        case .countDownTimer: return "countDownTimer"
        }
    }

    /// Creates a mode from its UIKit spelling (see ``description``).
    ///
    /// - Parameter name: `"time"`, `"date"`, `"dateAndTime"` or `"countDownTimer"`.
    /// - Returns: `nil` for any other string.
    public init?(name: String) {
        guard let mode = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = mode
    }
}
