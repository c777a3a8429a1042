import Foundation

extension DatePicker {
    /// The wheels of the current mode in the locale's logical order (the order of its date pattern).
    ///
    /// The order comes from `DateFormatter.dateFormat(fromTemplate:options:locale:)` with the templates `j:m`
    /// (`.time`), `dMMMMy` (`.date`) and `EEE, d MMM y j:m` (`.dateAndTime`, year dropped, weekday/month/day
    /// merged into one ``WheelKind/date`` wheel); countdown is always hours then minutes (rule B14). en_US
    /// `.time` gives hour, minute, AM/PM; ko_KR gives AM/PM, hour, minute; en_GB has no AM/PM. With a `nil`
    /// ``locale`` the environment's ``DatePickerEnvironment/hourCycle`` replaces `j` (rule B16).
    ///
    /// Each wheel carries its rows and the selected row: the wheels show ``date`` (clamped) in
    /// ``effectiveCalendar``, with the minute floored to ``minuteInterval`` (rules B6, B11, B15).
    ///
    /// - Complexity: A few calendar calculations; the localized pattern is cached per locale and mode.
    public var wheels: [Wheel] {
        let calendar = effectiveCalendar
        let layout = self.layout
        if datePickerMode == .countDownTimer {
            return layout.logical.map { countDownWheel($0) }
        }
        let wallTime = selection(in: calendar)
        return layout.logical.map { wheel($0, wallTime: wallTime, layout: layout, calendar: calendar) }
    }

    /// The wheel kinds from left to right as laid out on screen.
    ///
    /// Equal to the kinds of ``wheels`` except in right-to-left languages (ar, he, fa, ur, …): there the hour and
    /// minute entries are swapped and the columns reversed, so the time still reads hour-before-minute
    /// (rule B14; UIKit's `fixUpElementsForRTL`). ar_EG `.time`: logical hour, minute, AM/PM; visual AM/PM, hour,
    /// minute.
    public var visualWheelOrder: [WheelKind] { layout.visual }

    /// Whether the time wheels are 12-hour, meaning the pattern has an AM/PM field (rule B14).
    public var uses12HourClock: Bool { layout.hasMeridiem }

    /// The value the given wheel shows, or `nil` when the current mode has no such wheel.
    ///
    /// - Parameter kind: The wheel.
    /// - Returns: The selected row's value.
    public func selectedValue(of kind: WheelKind) -> WheelValue? {
        wheels.first(where: { $0.kind == kind })?.selectedValue
    }

    /// Whether a row is enabled, with the other wheels at their current selection (rule B13).
    ///
    /// Rows outside the valid range are disabled but still scrollable; so are day rows that do not exist in the
    /// selected month (29–31 in February 2025), and hour, minute, AM/PM and date rows whose wall time, with the
    /// other wheels as selected, falls in a daylight-saving gap (hour 02 in Europe/Paris on 2026-03-29, where a
    /// spin onto it reverts; rules B13 and B23). Each row is compared with ``minimumDate``/``maximumDate`` at its
    /// own granularity, the date part always included (rule B12): a day row by day, a month row as (month, day 1)
    /// by month, a year row by era and year, hour and AM/PM rows by hour, minute rows by minute. Countdown rows
    /// are always enabled (rule B21).
    ///
    /// - Parameters:
    ///   - value: The row's value, as in ``Wheel/value(atRow:)``.
    ///   - kind: The wheel.
    /// - Returns: `false` for a disabled row or a value the wheel does not have.
    public func isEnabled(_ value: WheelValue, in kind: WheelKind) -> Bool {
        let interval = minuteInterval
        if datePickerMode == .countDownTimer {
            switch (kind, value) {
            case (.countdownHour, .number(let hour)): return (0...23).contains(hour)
            case (.countdownMinute, .number(let minute)): return (0...59).contains(minute) && minute % interval == 0
            default: return false
            }
        }
        guard layout.logical.contains(kind) else { return false }
        let calendar = effectiveCalendar
        let current = selection(in: calendar)
        var candidate = current
        let granularity: WallTime.Granularity
        switch (kind, value) {
        case (.hour, .number(let hour)):
            guard let hour24 = hour24(fromShown: hour, current: current.hour) else { return false }
            candidate.hour = hour24
            guard existsAsSelected(candidate, calendar: calendar) else { return false }
            candidate.minute = 0
            granularity = .hour
        case (.minute, .number(let minute)):
            guard (0...59).contains(minute), minute % interval == 0 else { return false }
            candidate.minute = minute
            guard existsAsSelected(candidate, calendar: calendar) else { return false }
            granularity = .minute
        case (.ampm, .meridiem(let meridiem)):
            candidate.hour = current.hour % 12 + (meridiem == .pm ? 12 : 0)
            guard existsAsSelected(candidate, calendar: calendar) else { return false }
            granularity = .hour
        case (.day, .number(let day)):
            guard (1...(calendar.maximumRange(of: .day)?.count ?? 31)).contains(day) else { return false }
            candidate.day = day
            granularity = .day
            guard candidate.existingDate(in: calendar, to: .day) != nil else { return false }
        case (.month, .number(let month)), (.month, .leapMonth(let month)):
            guard (1...(calendar.maximumRange(of: .month)?.count ?? 12)).contains(month) else { return false }
            candidate.month = month
            candidate.isLeapMonth = value != .number(month)
            candidate.day = 1
            granularity = .month
            if candidate.isLeapMonth || Self.hasLeapMonths(calendar) {
                guard Self.months(ofYearOf: candidate, in: calendar).contains(value) else { return false }
            }
        case (.year, .number(let year)):
            guard (1...10_000).contains(year) else { return false }
            candidate.year = year
            granularity = .year
        case (.date, .day(let day)):
            candidate = candidate.replacing(to: .day, from: WallTime(day, in: calendar))
            guard existsAsSelected(candidate, calendar: calendar) else { return false }
            granularity = .day
        default:
            return false
        }
        return isInRange(candidate, to: granularity, calendar: calendar)
    }

    /// Whether a time row's wall time exists to the minute, the unit a spin onto it checks (rule B17.3):
    /// `false` in a daylight-saving gap. In `.date` mode no time is shown, so every time exists.
    private func existsAsSelected(_ candidate: WallTime, calendar: Calendar) -> Bool {
        datePickerMode == .date || candidate.existingDate(in: calendar, to: .minute) != nil
    }

    // MARK: Internals

    /// Whether the calendar inserts a leap month that repeats an ordinary month's number (Chinese; rule B5).
    /// The Hebrew calendar numbers its leap month instead and keeps a fixed 13-row wheel.
    static func hasLeapMonths(_ calendar: Calendar) -> Bool { calendar.identifier == .chinese }

    /// The month wheel's value for a wall time's month.
    static func monthValue(of wallTime: WallTime) -> WheelValue {
        wallTime.isLeapMonth ? .leapMonth(wallTime.month) : .number(wallTime.month)
    }

    /// The months of the wall time's year in order, a leap month right after its ordinary month: 13 values
    /// in a Chinese leap year (乙巳, 2025: 1…6, leap 6, 7…12), 12 otherwise.
    ///
    /// - Complexity: One `date(byAdding:)` per month, about 13 calendar calculations.
    static func months(ofYearOf wallTime: WallTime, in calendar: Calendar) -> [WheelValue] {
        let ordinary = (1...12).map(WheelValue.number)
        var first = wallTime
        first.month = 1
        first.isLeapMonth = false
        first.day = 1
        first.hour = 12
        first.minute = 0
        first.second = 0
        guard var date = first.resolved(in: calendar) else { return ordinary }
        var result: [WheelValue] = []
        for _ in 0..<14 {
            let current = WallTime(date, in: calendar)
            guard current.era == first.era, current.year == first.year else { break }
            result.append(monthValue(of: current))
            guard let next = calendar.date(byAdding: .month, value: 1, to: date) else { break }
            date = next
        }
        return result.isEmpty ? ordinary : result
    }

    var layout: WheelLayout {
        let hourCycle = locale == nil ? environment.hourCycle : nil
        return WheelLayout.make(mode: datePickerMode, locale: effectiveLocale, hourCycle: hourCycle)
    }

    /// What the wheels show: the effective date's wall time with the minute floored (rule B6).
    func selection(in calendar: Calendar) -> WallTime {
        var wallTime = WallTime(effectiveDate(in: calendar), in: calendar)
        wallTime.minute = wallTime.minute / minuteInterval * minuteInterval
        return wallTime
    }

    /// Converts a shown hour to 0–23, keeping the current AM/PM on a 12-hour wheel.
    func hour24(fromShown hour: Int, current: Int) -> Int? {
        if uses12HourClock {
            guard (1...12).contains(hour) else { return nil }
            return hour % 12 + (current >= 12 ? 12 : 0)
        }
        return (0...23).contains(hour) ? hour : nil
    }

    /// Whether a wall time is within the valid bounds, compared on the units down to `granularity` (rule B12).
    func isInRange(_ wallTime: WallTime, to granularity: WallTime.Granularity, calendar: Calendar) -> Bool {
        let bounds = validBounds
        if let minimum = bounds.minimum, wallTime.isBefore(WallTime(minimum, in: calendar), to: granularity) {
            return false
        }
        if let maximum = bounds.maximum, WallTime(maximum, in: calendar).isBefore(wallTime, to: granularity) {
            return false
        }
        return true
    }

    /// The centre row of the date wheel: noon of "today" (the environment's now) in the picker's calendar, or
    /// noon of the selected day when that lies more than 5000 days from today.
    func dateWheelCentre(for selection: WallTime, in calendar: Calendar) -> Date {
        let now = Self.sanitized(environment.now) ?? storedDate
        let today = Self.noon(of: now, in: calendar)
        let offset = dayOffset(of: selection, from: today, calendar: calendar)
        guard offset.magnitude > Self.dateWheelRadius, let selected = selection.resolved(in: calendar) else {
            return today
        }
        return Self.noon(of: selected, in: calendar)
    }

    static func noon(of date: Date, in calendar: Calendar) -> Date {
        var wallTime = WallTime(date, in: calendar)
        wallTime.hour = 12
        wallTime.minute = 0
        wallTime.second = 0
        return wallTime.resolved(in: calendar) ?? date
    }

    static let dateWheelRadius = 5000

    private func wheel(_ kind: WheelKind, wallTime: WallTime, layout: WheelLayout, calendar: Calendar) -> Wheel {
        let interval = minuteInterval
        switch kind {
        case .hour:
            if layout.hasMeridiem {
                let shown = wallTime.hour % 12 == 0 ? 12 : wallTime.hour % 12
                return Wheel(
                    kind: kind, rowCount: 12, wraps: true, selectedRow: shown - 1, rows: .numbers(first: 1, step: 1))
            }
            return Wheel(
                kind: kind, rowCount: 24, wraps: true, selectedRow: wallTime.hour, rows: .numbers(first: 0, step: 1))
        case .minute, .countdownMinute:
            return Wheel(
                kind: kind, rowCount: 60 / interval, wraps: true, selectedRow: wallTime.minute / interval,
                rows: .numbers(first: 0, step: interval))
        case .ampm:
            return Wheel(
                kind: kind, rowCount: 2, wraps: false, selectedRow: wallTime.hour >= 12 ? 1 : 0, rows: .meridiems)
        case .day:
            let count = calendar.maximumRange(of: .day)?.count ?? 31
            return Wheel(
                kind: kind, rowCount: count, wraps: true, selectedRow: Wheel.modulo(wallTime.day - 1, count),
                rows: .numbers(first: 1, step: 1))
        case .month:
            if Self.hasLeapMonths(calendar) {
                let months = Self.months(ofYearOf: wallTime, in: calendar)
                let selected = months.firstIndex(of: Self.monthValue(of: wallTime)) ?? 0
                return Wheel(
                    kind: kind, rowCount: months.count, wraps: true, selectedRow: selected, rows: .list(months))
            }
            let count = calendar.maximumRange(of: .month)?.count ?? 12
            return Wheel(
                kind: kind, rowCount: count, wraps: true, selectedRow: Wheel.modulo(wallTime.month - 1, count),
                rows: .numbers(first: 1, step: 1))
        case .year:
            return Wheel(
                kind: kind, rowCount: 10_000, wraps: false,
                selectedRow: Swift.min(Swift.max(wallTime.year - 1, 0), 9_999),
                rows: .numbers(first: 1, step: 1))
        case .date:
            let base = dateWheelCentre(for: wallTime, in: calendar)
            let offset = dayOffset(of: wallTime, from: base, calendar: calendar)
            let radius = Self.dateWheelRadius
            return Wheel(
                kind: kind, rowCount: 2 * radius + 1, wraps: false,
                selectedRow: Swift.min(Swift.max(offset + radius, 0), 2 * radius),
                rows: .days(base: base, centre: radius, calendar: calendar))
        case .countdownHour:
            return countDownWheel(kind)
        }
    }

    /// Whole days from `base` (a noon) to the day of `wallTime`, counted noon to noon so that a day starting at
    /// 01:00 (a gap at midnight) or a repeated midnight hour does not shift the count.
    func dayOffset(of wallTime: WallTime, from base: Date, calendar: Calendar) -> Int {
        var noon = wallTime
        noon.hour = 12
        noon.minute = 0
        noon.second = 0
        guard let day = noon.resolved(in: calendar) else { return 0 }
        return calendar.dateComponents([.day], from: base, to: day).day ?? 0
    }

    private func countDownWheel(_ kind: WheelKind) -> Wheel {
        let interval = minuteInterval
        let duration = Int(countDownDuration)
        if kind == .countdownHour {
            return Wheel(
                kind: kind, rowCount: 24, wraps: false, selectedRow: duration / 3600, rows: .numbers(first: 0, step: 1))
        }
        return Wheel(
            kind: kind, rowCount: 60 / interval, wraps: true, selectedRow: duration % 3600 / 60 / interval,
            rows: .numbers(first: 0, step: interval))
    }
}
