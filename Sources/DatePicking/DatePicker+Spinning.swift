import Foundation

extension DatePicker {
    /// Simulates one user gesture that moves one wheel by `rows` rows and settles.
    ///
    /// Positive `rows` moves toward larger values, negative toward smaller. A wrapping wheel wraps; a
    /// non-wrapping wheel (year, AM/PM, date, countdown hours) stops at its first or last row. Nothing carries into
    /// another wheel: minute 45 → 0 keeps the hour, day 31 → 1 keeps the month (rule B15, decision A8). On a
    /// 12-hour wheel every pass between 11 and 12 flips AM/PM, so 11:59 AM + 1 row is 12:59 PM and a 12-row spin
    /// flips once (rule B18).
    ///
    /// The candidate keeps the other wheels' values and the whole seconds of the shown date; fractions are
    /// dropped (A3). If the candidate does not exist or is out of range at the displayed units' granularity
    /// (B12), it is restricted (rule B17.4, see ``SpinOutcome/Restriction``):
    /// - before the minimum or after the maximum: the bound's displayed units (B17.4a);
    /// - Japanese calendar: the normalised date (B27, A14);
    /// - month or year spun onto a month missing that year (Hebrew Adar I in 5785): month − 1 (B26);
    /// - a day beyond the month's length: the last day, so Mar 30 with month − 1 gives Feb 28 (B19); a day
    ///   skipped by the calendar or zone: day − 1 (Pacific/Apia 2011-12-30 → 29, B25);
    /// - any other wheel onto a daylight-saving gap: ``nonexistentTimePolicy`` decides. For example 02:30 on
    ///   2026-03-08 does not exist in America/Los_Angeles, so hour + 1 from 1:30 AM PST reverts to 1:30 AM
    ///   (``NonexistentTimePolicy/revert``) or selects 3:30 AM PDT (``NonexistentTimePolicy/forward``); hour + 2
    ///   crosses the gap to 3:30 AM PDT, one real hour later (B23). A wheel-made wall time in a repeated
    ///   (fall-back) hour resolves to its first occurrence (B24).
    ///
    /// The result is stored, then read back through ``roundsToMinuteInterval`` and the bounds like any
    /// ``date`` (B17.5). In countdown mode the hour wheel clamps to 0–23, the minute wheel wraps, and 0:00 becomes
    /// one interval (B20, B21).
    ///
    /// - Parameters:
    ///   - wheel: The wheel to move. A wheel the current mode does not show changes nothing.
    ///   - rows: Rows to move; any `Int`.
    /// - Returns: Whether `valueChanged` was sent (also counted in ``valueChangedCount``) and which restriction,
    ///   if any, applied. Every settled change sends exactly one event, including the first countdown spin and a
    ///   full 12-row hour spin (rule B22, decision A11).
    @discardableResult
    public mutating func spin(_ wheel: WheelKind, by rows: Int) -> SpinOutcome {
        let outcome: SpinOutcome
        if datePickerMode == .countDownTimer {
            outcome = spinCountDown(wheel, by: rows)
        } else {
            outcome = spinDate(wheel, by: rows)
        }
        // Saturates: a picker decoded with a count near Int.max must not trap on its next spin.
        if outcome.sentValueChanged { valueChangedCount = valueChangedCount.addingClamped(1) }
        return outcome
    }

    /// Moves one wheel by `rows` rows as a key press does, passing over rows that cannot be selected.
    ///
    /// A person flicks a wheel through a row that cannot be selected and lands on the next one; a key moves it
    /// row by row, and ``spin(_:by:)`` onto a row whose wall time does not exist only reverts to the last valid
    /// selection (rule B17.4e, decision A7), so a key could never get past a daylight-saving gap. This spins by
    /// `rows`, and while the result would be ``SpinOutcome/Restriction/revertedToLastValidSelection`` it tries one
    /// row further in the same direction, at most one turn of the wheel (decision A17). In Europe/Paris on
    /// 2026-03-29, 01:30 with the hour wheel stepped by +1 is 03:30 CEST (02:30 does not exist), and −1 from
    /// there is 01:30 again. Any other result, a valid row or another restriction, is kept as ``spin(_:by:)``
    /// gives it; when no row in that direction can be selected, the result is that of spinning by `rows`.
    ///
    /// - Parameters:
    ///   - wheel: The wheel to move.
    ///   - rows: Rows to move; the sign gives the direction. 0 spins by 0.
    /// - Returns: The outcome of the one spin that was kept; only that spin counts a `valueChanged` event.
    /// - Complexity: Up to one spin per row of the wheel (at most 60 tries).
    @discardableResult
    public mutating func step(_ wheel: WheelKind, by rows: Int) -> SpinOutcome {
        let direction = rows.signum()
        let rowCount = wheels.first(where: { $0.kind == wheel })?.rowCount ?? 1
        guard direction != 0, rowCount > 1 else { return spin(wheel, by: rows) }
        var attempt = rows
        for _ in 0..<Swift.min(rowCount, 60) {
            var trial = self
            let outcome = trial.spin(wheel, by: attempt)
            if outcome.restriction != .revertedToLastValidSelection {
                self = trial
                return outcome
            }
            attempt = attempt.addingClamped(direction)
        }
        return spin(wheel, by: rows)
    }

    private mutating func spinCountDown(_ wheel: WheelKind, by rows: Int) -> SpinOutcome {
        let interval = minuteInterval
        let before = Int(countDownDuration)
        var hour = before / 3600
        var minute = before % 3600 / 60
        switch wheel {
        case .countdownHour:
            hour = Swift.min(Swift.max(hour.addingClamped(rows), 0), 23)
        case .countdownMinute:
            let count = 60 / interval
            minute = Wheel.modulo(minute / interval + rows % count, count) * interval
        default:
            return SpinOutcome(sentValueChanged: false, restriction: nil)
        }
        var restriction: SpinOutcome.Restriction?
        if hour == 0, minute == 0, !allowsZeroCountDownDuration {
            minute = interval
            restriction = .countDownMinimum
        }
        countDownHour = hour
        countDownMinute = minute
        let changed = hour * 3600 + minute * 60 != before
        return SpinOutcome(sentValueChanged: changed || restriction != nil, restriction: restriction)
    }

    private mutating func spinDate(_ wheel: WheelKind, by rows: Int) -> SpinOutcome {
        let layout = self.layout
        guard layout.logical.contains(wheel) else { return SpinOutcome(sentValueChanged: false, restriction: nil) }
        let calendar = effectiveCalendar
        let previous = selection(in: calendar)
        var candidate = previous
        switch wheel {
        case .hour:
            // On a 12-hour wheel, flipping AM/PM at every 11↔12 pass makes the hour move like a 24-hour one.
            candidate.hour = Wheel.modulo(previous.hour + rows % 24, 24)
        case .minute:
            let interval = minuteInterval
            let count = 60 / interval
            candidate.minute = Wheel.modulo(previous.minute / interval + rows % count, count) * interval
        case .ampm:
            let row = Swift.min(Swift.max((previous.hour >= 12 ? 1 : 0) + Swift.max(Swift.min(rows, 2), -2), 0), 1)
            candidate.hour = previous.hour % 12 + 12 * row
        case .day:
            let count = calendar.maximumRange(of: .day)?.count ?? 31
            candidate.day = Wheel.modulo(previous.day - 1 + rows % count, count) + 1
        case .month where Self.hasLeapMonths(calendar):
            let months = Self.months(ofYearOf: previous, in: calendar)
            let index = months.firstIndex(of: Self.monthValue(of: previous)) ?? 0
            switch months[Wheel.modulo(index + rows % months.count, months.count)] {
            case .leapMonth(let month):
                candidate.month = month
                candidate.isLeapMonth = true
            case .number(let month):
                candidate.month = month
                candidate.isLeapMonth = false
            default:
                break
            }
        case .month:
            let count = calendar.maximumRange(of: .month)?.count ?? 12
            candidate.month = Wheel.modulo(previous.month - 1 + rows % count, count) + 1
        case .year where calendar.identifier == .japanese:
            // Years run on across eras, as on iOS: Reiwa 1 (2019) − 1 row is Heisei 30 (decision A15).
            var anchor = previous
            anchor.isLeapMonth = false
            anchor.day = 1
            anchor.hour = 12
            if let start = anchor.resolved(in: calendar),
                let moved = calendar.date(
                    byAdding: .year, value: Swift.min(Swift.max(rows, -20_000), 20_000), to: start)
            {
                let target = WallTime(moved, in: calendar)
                candidate.era = target.era
                candidate.year = target.year
            }
        case .year:
            candidate.year = Swift.min(Swift.max(previous.year.addingClamped(rows), 1), 10_000)
        case .date:
            let base = dateWheelCentre(for: previous, in: calendar)
            let radius = Self.dateWheelRadius
            let offset = dayOffset(of: previous, from: base, calendar: calendar)
            let target = Swift.min(Swift.max(offset.addingClamped(rows), -radius), radius)
            if let day = calendar.date(byAdding: .day, value: target, to: base) {
                candidate = candidate.replacing(to: .day, from: WallTime(day, in: calendar))
            }
        case .countdownHour, .countdownMinute:
            return SpinOutcome(sentValueChanged: false, restriction: nil)
        }
        let (result, restriction) = restrict(candidate, previous: previous, spun: wheel, calendar: calendar)
        let changed = result != previous
        // Any settled gesture rebuilds the date from the selection (B17.5), even a full turn of a wrapping wheel:
        // the fraction of a second goes and a repeated wall time becomes its first occurrence (A3, B24).
        if rows != 0 || changed || restriction != nil, let instant = result.resolved(in: calendar),
            let value = Self.sanitized(instant)
        {
            storedDate = rounded(value, in: calendar)
        }
        return SpinOutcome(sentValueChanged: changed || restriction != nil, restriction: restriction)
    }

    /// The granularity at which the current mode validates a selection (rule B12, decisions A9/A10).
    var displayedGranularity: WallTime.Granularity { datePickerMode == .date ? .day : .minute }

    /// Validates a candidate and restricts it until it is valid (rule B17.3–4).
    private func restrict(
        _ candidate: WallTime, previous: WallTime, spun wheel: WheelKind, calendar: Calendar
    ) -> (WallTime, SpinOutcome.Restriction?) {
        let granularity = displayedGranularity
        let bounds = validBounds
        let minimum = bounds.minimum.map { WallTime($0, in: calendar) }
        let maximum = bounds.maximum.map { WallTime($0, in: calendar) }
        let isJapanese = calendar.identifier == .japanese
        var current = candidate
        var restriction: SpinOutcome.Restriction?
        for _ in 0..<40 {
            if let minimum, current.isBefore(minimum, to: granularity) {
                current = current.replacing(to: granularity, from: minimum)
                restriction = restriction ?? .clampedToMinimum
                continue
            }
            if let maximum, maximum.isBefore(current, to: granularity) {
                current = current.replacing(to: granularity, from: maximum)
                restriction = restriction ?? .clampedToMaximum
                continue
            }
            if current.existingDate(in: calendar, to: granularity) != nil { return (current, restriction) }
            if isJapanese, let normalized = current.resolved(in: calendar) {
                current = WallTime(normalized, in: calendar)
                restriction = restriction ?? .normalized
                continue
            }
            switch wheel {
            case .day, .month, .year:
                if wheel != .day, !monthExists(current, calendar: calendar) {
                    // A Chinese leap month missing in the new year falls back to its ordinary month; a Hebrew
                    // Adar I missing in a common year to the month before (B26).
                    if current.isLeapMonth {
                        current.isLeapMonth = false
                    } else if current.month > 1 {
                        current.month -= 1
                    } else {
                        return (previous, .revertedToLastValidSelection)
                    }
                    restriction = restriction ?? .previousMonth
                    continue
                }
                let length = monthLength(current, calendar: calendar)
                if current.day > length {
                    current.day = length
                    restriction = restriction ?? .lastDayOfMonth
                } else if current.day > 1 {
                    current.day -= 1
                    restriction = restriction ?? .previousDay
                } else {
                    return (previous, .revertedToLastValidSelection)
                }
            default:
                guard nonexistentTimePolicy == .forward, let moved = current.resolved(in: calendar) else {
                    return (previous, .revertedToLastValidSelection)
                }
                current = WallTime(moved, in: calendar)
                restriction = restriction ?? .movedForwardOverGap
            }
        }
        return (previous, .revertedToLastValidSelection)
    }

    /// Whether the wall time's month exists in its year (Hebrew Adar I exists only in leap years, rule B26).
    private func monthExists(_ wallTime: WallTime, calendar: Calendar) -> Bool {
        var first = wallTime
        first.day = 1
        first.hour = 12
        first.minute = 0
        first.second = 0
        guard let date = first.resolved(in: calendar) else { return false }
        let back = WallTime(date, in: calendar)
        return back.era == first.era && back.year == first.year && back.month == first.month
            && back.isLeapMonth == first.isLeapMonth
    }

    /// Days in the wall time's month, from the calendar (Feb 2024: 29).
    private func monthLength(_ wallTime: WallTime, calendar: Calendar) -> Int {
        var first = wallTime
        first.day = 1
        first.hour = 12
        first.minute = 0
        first.second = 0
        guard let date = first.resolved(in: calendar),
            let range = calendar.range(of: .day, in: .month, for: date)
        else { return 28 }
        return range.upperBound - 1
    }
}
