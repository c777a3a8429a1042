extension CalendarExpression {
    /// The first wall-clock time at or after `from` whose fields all match, or nil when none comes before the
    /// end of 2199 (the last year systemd.time(7) allows).
    ///
    /// A field-by-field search: the first matching year, then month, day (with the weekday and `~`), hour,
    /// minute and second; a field with no match left carries into the one above it and resets those below.
    ///
    /// - Complexity: O(years searched × 12 × 31) in the worst case (an expression such as `*-02-30` that never
    ///   matches walks every year to 2199); a matching expression is found in a few steps per field.
    func firstMatch(atOrAfter from: CivilDateTime) -> CivilDateTime? {
        var time = from
        while true {
            guard let year = nextYear(atLeast: time.year) else { return nil }
            if year != time.year {
                time = CivilDateTime(year: year, month: 1, day: 1, hour: 0, minute: 0, microsecond: 0)
            }
            guard let month = Self.nextBit(UInt64(monthMask), atLeast: time.month, upTo: 12) else {
                time = CivilDateTime(year: time.year + 1, month: 1, day: 1, hour: 0, minute: 0, microsecond: 0)
                continue
            }
            if month != time.month {
                time = CivilDateTime(year: time.year, month: month, day: 1, hour: 0, minute: 0, microsecond: 0)
            }
            guard let day = nextDay(atLeast: time.day, year: time.year, month: time.month) else {
                time = Self.startOfMonth(after: time)
                continue
            }
            if day != time.day { (time.day, time.hour, time.minute, time.microsecond) = (day, 0, 0, 0) }
            guard let hour = Self.nextBit(UInt64(hourMask), atLeast: time.hour, upTo: 23) else {
                time = Self.startOfDay(after: time)
                continue
            }
            if hour != time.hour { (time.hour, time.minute, time.microsecond) = (hour, 0, 0) }
            guard let minute = Self.nextBit(minuteMask, atLeast: time.minute, upTo: 59) else {
                (time.hour, time.minute, time.microsecond) = (time.hour + 1, 0, 0)
                if time.hour > 23 { time = Self.startOfDay(after: time) }
                continue
            }
            if minute != time.minute { (time.minute, time.microsecond) = (minute, 0) }
            guard let second = nextSecond(atLeast: time.microsecond) else {
                (time.minute, time.microsecond) = (time.minute + 1, 0)
                if time.minute > 59 { (time.hour, time.minute) = (time.hour + 1, 0) }
                if time.hour > 23 { time = Self.startOfDay(after: time) }
                continue
            }
            time.microsecond = second
            return time
        }
    }

    private static func startOfDay(after time: CivilDateTime) -> CivilDateTime {
        if time.day >= CivilDateTime.daysInMonth(year: time.year, month: time.month) {
            return startOfMonth(after: time)
        }
        return CivilDateTime(year: time.year, month: time.month, day: time.day + 1, hour: 0, minute: 0, microsecond: 0)
    }

    private static func startOfMonth(after time: CivilDateTime) -> CivilDateTime {
        time.month == 12
            ? CivilDateTime(year: time.year + 1, month: 1, day: 1, hour: 0, minute: 0, microsecond: 0)
            : CivilDateTime(year: time.year, month: time.month + 1, day: 1, hour: 0, minute: 0, microsecond: 0)
    }

    private func nextYear(atLeast year: Int) -> Int? {
        let bounds = CalendarField.year.bounds
        guard year <= bounds.upperBound else { return nil }
        if years.isEmpty { return max(year, bounds.lowerBound) }
        return years.compactMap { $0.firstValue(atLeast: year, limit: bounds.upperBound) }.min()
    }

    private func nextDay(atLeast first: Int, year: Int, month: Int) -> Int? {
        let length = CivilDateTime.daysInMonth(year: year, month: month)
        guard first <= length else { return nil }
        var weekday = CivilDateTime.weekday(year: year, month: month, day: first)
        for day in first...length {
            let bit = isDayFromEnd ? length + 1 - day : day
            if dayMask & (1 << UInt32(bit)) != 0, weekdays & (1 << UInt8(weekday)) != 0 { return day }
            weekday = weekday == 6 ? 0 : weekday + 1
        }
        return nil
    }

    private func nextSecond(atLeast microsecond: Int) -> Int? {
        let limit = CalendarField.second.bounds.upperBound
        guard microsecond <= limit else { return nil }
        if seconds.isEmpty {
            let whole = (microsecond + 999_999) / 1_000_000 * 1_000_000
            return whole <= limit ? whole : nil
        }
        var best: Int?
        for item in seconds {
            if let value = item.firstValue(atLeast: microsecond, limit: limit), value < best ?? Int.max { best = value }
        }
        return best
    }

    /// The lowest set bit at or above `value` and at or below `upTo`.
    static func nextBit(_ mask: UInt64, atLeast value: Int, upTo limit: Int) -> Int? {
        guard value <= limit, value < 64 else { return nil }
        let remaining = mask >> UInt64(value)
        guard remaining != 0 else { return nil }
        let bit = value + remaining.trailingZeroBitCount
        return bit <= limit ? bit : nil
    }
}
