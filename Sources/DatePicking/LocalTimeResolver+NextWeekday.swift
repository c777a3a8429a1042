import Foundation

extension LocalTimeResolver {
    /// Resolves a time of day on the first day with `weekday` after today (`next monday 9:00`):
    /// never today, so on a Monday it is the Monday a week later, whether or not the time is still
    /// ahead today.
    ///
    /// The date is found in `timeZone`, then the wall time on it is resolved as a typed date-time is
    /// (``resolve(_:now:timeZone:calendar:minuteInterval:skippedTimePolicy:repeatedTimePolicy:)-(LocalTime,_,_,_,_,_,_)``),
    /// with the same daylight-saving policies.
    ///
    /// - Parameters:
    ///   - localTime: the time of day (its date fields are ignored).
    ///   - weekday: 1 = Sunday … 7 = Saturday, as `Calendar` numbers them.
    ///   - now: the current instant.
    ///   - timeZone: the zone of the wall time.
    ///   - calendar: the calendar for days and weekdays (its time zone is replaced by `timeZone`).
    ///   - minuteInterval: minutes, a divisor of 60 from 1 to 30; the minute is floored to it.
    /// - Returns: the instant, the wall time used and which policy case applied.
    /// - Throws: the errors of the date-time resolution, and ``DatePickingError/invalidLocalTime(_:)``
    ///   for a weekday outside 1–7.
    public static func resolve(
        _ localTime: LocalTime, onNextWeekday weekday: Int, now: Date, timeZone: TimeZone, calendar: Calendar,
        minuteInterval: Int = 1
    ) throws(DatePickingError) -> Resolution {
        guard (1...7).contains(weekday) else { throw .invalidLocalTime("weekday \(weekday)") }
        guard now.timeIntervalSinceReferenceDate.isFinite else {
            throw .invalidDate(String(now.timeIntervalSinceReferenceDate))
        }
        var local = calendar
        local.timeZone = timeZone
        let today = local.dateComponents([.era, .year, .month, .day], from: now)
        var gregorian = Calendar(identifier: .gregorian)
        gregorian.timeZone = timeZone
        for offset in 1...7 {
            guard
                let noon = local.date(
                    from: DateComponents(
                        era: today.era, year: today.year, month: today.month, day: today.day, hour: 12)),
                let date = local.date(byAdding: .day, value: offset, to: noon),
                local.component(.weekday, from: date) == weekday
            else { continue }
            let parts = gregorian.dateComponents([.year, .month, .day], from: date)
            var wall = localTime
            (wall.year, wall.month, wall.day) = (parts.year, parts.month, parts.day)
            return try resolve(wall, now: now, timeZone: timeZone, calendar: calendar, minuteInterval: minuteInterval)
        }
        throw .invalidLocalTime("\(localTime.hour):\(localTime.minute)")
    }
}
