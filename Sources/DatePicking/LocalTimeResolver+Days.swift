import Foundation

extension LocalTimeResolver {
    /// A day named relative to now, for a wall time typed with one (`tomorrow 09:00`, `fri 17:00`).
    public enum Day: Sendable, Hashable {
        /// Today's date in the zone.
        case today
        /// Tomorrow's date in the zone (the calendar day after today's, whatever its length).
        case tomorrow
        /// The next day with this weekday (1 = Sunday … 7 = Saturday, as `Calendar` numbers them) on
        /// which the wall time is still ahead: today's if it is, else up to a week later.
        case weekday(Int)
    }

    /// Resolves a time of day on a day named relative to now.
    ///
    /// The date is found in `timeZone` (`tomorrow` at 23:30 on 2026-11-29 in Europe/Paris is
    /// 2026-11-30), then the wall time on that date is resolved exactly as a typed date-time is, with the
    /// same daylight-saving policies: `tomorrow 02:30` asked on 2026-03-07 in America/Los_Angeles is in
    /// the gap and moves forward to 03:30 PDT under ``SkippedTimePolicy/moveForward``. For a weekday,
    /// the first such day whose resolved instant is after `now` wins (`fri 17:00` asked on a Friday at
    /// 16:00 is today, at 18:00 it is a week later).
    ///
    /// - Parameters:
    ///   - localTime: the time of day (its date fields are ignored).
    ///   - day: the day.
    ///   - now: the current instant.
    ///   - timeZone: the zone of the wall time.
    ///   - calendar: the calendar for days and weekdays (its time zone is replaced by `timeZone`).
    ///   - minuteInterval: minutes, a divisor of 60 from 1 to 30; the minute is floored to it.
    ///   - skippedTimePolicy: what to do in a daylight-saving gap.
    ///   - repeatedTimePolicy: what to do with a repeated wall time.
    /// - Returns: the instant, the wall time used and which policy case applied. `today` may give an
    ///   instant before `now` (the caller refuses it as past).
    /// - Throws: the errors of ``resolve(_:now:timeZone:calendar:minuteInterval:skippedTimePolicy:repeatedTimePolicy:)-(LocalTime,_,_,_,_,_,_)``,
    ///   and ``DatePickingError/invalidLocalTime(_:)`` for a weekday outside 1–7.
    public static func resolve(
        _ localTime: LocalTime,
        on day: Day,
        now: Date,
        timeZone: TimeZone,
        calendar: Calendar,
        minuteInterval: Int = 1,
        skippedTimePolicy: SkippedTimePolicy = .moveForward,
        repeatedTimePolicy: RepeatedTimePolicy = .first
    ) throws(DatePickingError) -> Resolution {
        guard now.timeIntervalSinceReferenceDate.isFinite else {
            throw .invalidDate(String(now.timeIntervalSinceReferenceDate))
        }
        var local = calendar
        local.timeZone = timeZone
        let today = local.dateComponents([.era, .year, .month, .day], from: now)
        let offsets: [Int]
        var weekday: Int?
        switch day {
        case .today: offsets = [0]
        case .tomorrow: offsets = [1]
        case .weekday(let value):
            guard (1...7).contains(value) else { throw .invalidLocalTime("weekday \(value)") }
            weekday = value
            offsets = Array(0...7)
        }
        for offset in offsets {
            guard
                let noon = local.date(
                    from: DateComponents(
                        era: today.era, year: today.year, month: today.month, day: today.day, hour: 12)),
                let date = local.date(byAdding: .day, value: offset, to: noon)
            else { continue }
            if let weekday, local.component(.weekday, from: date) != weekday { continue }
            // The proleptic Gregorian date of that day, as the typed date-time path takes it.
            var gregorian = Calendar(identifier: .gregorian)
            gregorian.timeZone = timeZone
            let parts = gregorian.dateComponents([.year, .month, .day], from: date)
            var wall = localTime
            (wall.year, wall.month, wall.day) = (parts.year, parts.month, parts.day)
            let resolution = try resolve(
                wall, now: now, timeZone: timeZone, calendar: calendar, minuteInterval: minuteInterval,
                skippedTimePolicy: skippedTimePolicy, repeatedTimePolicy: repeatedTimePolicy)
            if weekday == nil || resolution.date > now { return resolution }
            // The weekday is today but its time has passed: its second occurrence of a repeated hour
            // may still be ahead, else the next week's.
            if resolution.adjustment == .firstOfRepeated {
                let second = try resolve(
                    wall, now: now, timeZone: timeZone, calendar: calendar, minuteInterval: minuteInterval,
                    skippedTimePolicy: skippedTimePolicy, repeatedTimePolicy: .last)
                if second.date > now { return second }
            }
        }
        throw .invalidLocalTime("\(localTime.hour):\(localTime.minute)")
    }
}
