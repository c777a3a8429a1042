/// One item of a field's comma-separated list: a value, a range `A..B`, a repetition `A/R` or `A..B/R`.
///
/// Values are in the field's unit (microseconds for seconds). A plain value has no ``stop`` and a
/// ``repetition`` of 0; a range without `/R` repeats every unit. A repetition without a stop runs to the
/// field's maximum (systemd.time(7): "`*:0/15`" is every quarter hour). For a day counted from the month's end
/// (`~`), values count back from the last day (1 is the last day) and a repetition without a stop runs toward
/// the end of the month (`~07/1` is the last seven days), as `systemd-analyze calendar` evaluates it.
struct CalendarComponent: Hashable, Sendable, Comparable {
    /// The first value.
    var start: Int
    /// The last value of a range, already lowered to the last value the repetition reaches; nil when none.
    var stop: Int?
    /// The step between values; 0 for a single value.
    var repetition: Int

    static func < (lhs: CalendarComponent, rhs: CalendarComponent) -> Bool {
        (lhs.start, lhs.stop ?? -1, lhs.repetition) < (rhs.start, rhs.stop ?? -1, rhs.repetition)
    }

    /// The smallest value of this item that is at least `value` and at most `limit`, if any.
    ///
    /// - Parameters:
    ///   - value: The lowest acceptable value.
    ///   - limit: The field's largest value (for days: the month's length).
    /// - Returns: The value, or nil.
    func firstValue(atLeast value: Int, limit: Int) -> Int? {
        let last = min(stop ?? (repetition > 0 ? limit : start), limit)
        if value <= start { return start <= last ? start : nil }
        guard repetition > 0 else { return nil }
        let steps = (value - start + repetition - 1) / repetition
        let candidate = start + steps * repetition
        return candidate <= last ? candidate : nil
    }

    /// Whether `value` is one of this item's values (for days counted back from the month's end).
    func contains(_ value: Int, limit: Int) -> Bool {
        firstValue(atLeast: value, limit: limit) == value
    }

    /// The item as `systemd-analyze calendar` prints it (`05..07`, `00/15`, `01.500000`).
    func normalized(in field: CalendarField) -> String {
        var text = Self.format(start, in: field)
        if let stop {
            text += ".." + Self.format(stop, in: field)
            if repetition != field.unit { text += "/" + Self.formatRepetition(repetition, in: field) }
        } else if repetition > 0 {
            text += "/" + Self.formatRepetition(repetition, in: field)
        }
        return text
    }

    private static func format(_ value: Int, in field: CalendarField) -> String {
        switch field {
        case .year: return padded(value, width: 4)
        case .second:
            let whole = padded(value / 1_000_000, width: 2)
            let fraction = value % 1_000_000
            return fraction == 0 ? whole : whole + "." + padded(fraction, width: 6)
        default: return padded(value, width: 2)
        }
    }

    private static func formatRepetition(_ value: Int, in field: CalendarField) -> String {
        guard field == .second else { return String(value) }
        let fraction = value % 1_000_000
        return String(value / 1_000_000) + (fraction == 0 ? "" : "." + padded(fraction, width: 6))
    }

    private static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
