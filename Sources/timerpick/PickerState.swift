import DatePicking
import Foundation

/// The terminal picker's state: the model, which wheel has the focus and the digits typed so far.
///
/// Every change of a wheel goes through ``DatePicker/spin(_:by:)``, so the terminal picker has exactly the model's
/// spin semantics (no carry, February 30 snaps back, the daylight-saving gap policy; rules B15–B19 and B23 of
/// docs/datepicker-rules.md). Pure: no I/O, so tests drive it key by key.
struct PickerState {
    /// What a key asks the session to do next.
    enum Outcome: Equatable {
        case redraw
        case accept
        case cancel
    }

    /// How many rows PageUp and PageDown spin.
    static let pageRows = 10

    /// The model.
    var picker: DatePicker
    /// The focused wheel, an index into ``visualKinds``.
    var focus = 0
    /// Digits typed into the focused wheel since the last other key.
    var typed = ""

    /// Creates the state with the focus on the leftmost wheel.
    init(picker: DatePicker) {
        self.picker = picker
    }

    /// The wheel kinds from left to right on screen (rule B14: right-to-left languages reverse the columns).
    var visualKinds: [WheelKind] { picker.visualWheelOrder }

    /// The focused wheel's kind.
    var focusedKind: WheelKind? {
        let kinds = visualKinds
        return kinds.indices.contains(focus) ? kinds[focus] : nil
    }

    /// Applies one key.
    ///
    /// Left and right move the focus (stopping at the ends); up and down step the focused wheel by one row,
    /// toward the previous or the next value; PageUp and PageDown by ``pageRows``. A step passes over rows
    /// that cannot be selected, such as the hour a daylight-saving gap skips (``DatePicker/step(_:by:)``,
    /// decision A17 of docs/datepicker-rules.md); digits type a value (see ``type(_:)``); Enter accepts and
    /// Escape cancels.
    ///
    /// - Parameter key: The key.
    /// - Returns: What to do next.
    mutating func handle(_ key: Key) -> Outcome {
        if case .digit(let digit) = key {
            type(digit)
            return .redraw
        }
        typed = ""
        switch key {
        case .left: focus = max(focus - 1, 0)
        case .right: focus = min(focus + 1, max(visualKinds.count - 1, 0))
        case .up: spinFocused(by: -1)
        case .down: spinFocused(by: 1)
        case .pageUp: spinFocused(by: -Self.pageRows)
        case .pageDown: spinFocused(by: Self.pageRows)
        case .enter: return .accept
        case .escape: return .cancel
        case .digit, .other: break
        }
        return .redraw
    }

    /// Types a digit into the focused wheel.
    ///
    /// The digits typed so far and this one make a number; if the wheel has a row with that value, the wheel
    /// spins to it (the shortest way that does not pass between 11 and 12 on a 12-hour wheel, so the AM/PM wheel
    /// keeps its value). Otherwise typing starts again from this digit, or, when that is no value either, the
    /// digits are kept as the start of one. So on a minute wheel "4" then "5" selects 4 and then 45; on a
    /// 15-minute wheel "3" selects nothing and "30" selects 30; on a year wheel "2", "0", "3", "0" ends on 2030. On the `.dateAndTime` date wheel
    /// the number is a day of the current month. The AM/PM wheel ignores digits.
    mutating func type(_ digit: Int) {
        let extended = typed + String(digit)
        if let number = Int(extended), extended.count <= 5, spinFocused(toValue: number) {
            typed = extended
        } else if spinFocused(toValue: digit) {
            typed = String(digit)
        } else {
            // Not a value yet, but perhaps the start of one: the 3 of 30 on a 15-minute wheel.
            typed = extended.count < 4 ? extended : ""
        }
    }

    @discardableResult
    private mutating func spinFocused(by rows: Int) -> SpinOutcome? {
        guard let kind = focusedKind else { return nil }
        return picker.step(kind, by: rows)
    }

    /// Spins the focused wheel to the row showing `value`; `false` if the wheel has no such row.
    private mutating func spinFocused(toValue value: Int) -> Bool {
        guard let kind = focusedKind, let wheel = picker.wheels.first(where: { $0.kind == kind }) else { return false }
        let current = wheel.selectedValue
        let rows: Int
        switch (kind, current) {
        case (.hour, .number(let hour)) where picker.uses12HourClock:
            guard (1...12).contains(value) else { return false }
            rows = value % 12 - hour % 12
        case (.minute, .number(let minute)), (.countdownMinute, .number(let minute)):
            let interval = picker.minuteInterval
            guard (0...59).contains(value), value % interval == 0 else { return false }
            rows = (value - minute) / interval
        case (.month, _):
            guard let row = (0..<wheel.rowCount).first(where: { wheel.value(atRow: $0) == .number(value) }) else {
                return false
            }
            rows = row - wheel.selectedRow
        case (.date, .day(let day)):
            let calendar = picker.effectiveCalendar
            guard let length = calendar.range(of: .day, in: .month, for: day), length.contains(value) else {
                return false
            }
            rows = value - calendar.component(.day, from: day)
        case (_, .number(let number)):
            guard (wheel.firstValue.number ?? 0)...(wheel.lastValue.number ?? 0) ~= value else { return false }
            rows = value - number
        default:
            return false
        }
        if rows != 0 { picker.spin(kind, by: rows) }
        return true
    }

    /// What Enter prints: the instant in ISO 8601 with the zone's offset (`2026-03-29T03:30:00+02:00`), or in
    /// countdown mode the duration in `timerctl`'s duration syntax (`1h5m`, `45m`).
    var result: String {
        if picker.datePickerMode == .countDownTimer {
            let minutes = Int(picker.countDownDuration) / 60
            let hours = minutes / 60
            if hours == 0 { return "\(minutes % 60)m" }
            return minutes % 60 == 0 ? "\(hours)h" : "\(hours)h\(minutes % 60)m"
        }
        return Self.iso8601(picker.date, timeZone: picker.effectiveCalendar.timeZone)
    }

    /// `date` as `yyyy-MM-dd'T'HH:mm:ssXXXXX` in `timeZone`, Gregorian and POSIX digits whatever the picker's
    /// locale and calendar (ISO 8601 is Gregorian with ASCII digits). `XXXXX` is Unicode TR 35's ISO 8601
    /// offset field (`+01:00`, or `Z` for UTC), not a to-do marker.
    static func iso8601(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.calendar = calendar
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssXXXXX"
        return formatter.string(from: date)
    }
}
