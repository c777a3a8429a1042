import Countdown
import DatePicking
import Foundation
import TimerModel
import TimerProtocol
import TimerService

/// Resolves the local wall times of `timer.start` (`"at": "14:30", "timeZone": "Europe/Paris"`) with
/// the date picker's rules (``DatePicking/LocalTimeResolver``), on behalf of `timerctl`, which then
/// need not load ICU's time-zone and calendar data at every start (docs/performance.md).
///
/// `14:30` (or `2:30pm`, `noon`) is its next occurrence after now; `2026-12-01T09:00` that local
/// date-time (`2026-12-01` its midnight); `tomorrow 09:00`, `fri 17:00` and `next mon 9:00` that time
/// on that day; `+25m` 25 minutes from now
/// (``TimerProtocol/OneShotTimeText`` has the grammar, docs/time.md the rules); the minute is
/// floored to `minuteInterval` (rule B7 of docs/datepicker-rules.md). Daylight saving: a wall time in a gap moves forward
/// by the gap's length, as `Calendar.date(from:)` does (02:30 on 2026-03-08 in America/Los_Angeles
/// becomes 03:30 PDT); a repeated one means its first occurrence (01:30 on 2026-11-01 there is
/// 01:30 PDT). The resolution says which applied.
enum LocalTimes {
    /// The resolver timerd installs in its ``TimerService``.
    static let resolver: @Sendable (String, String, Int, Date) throws -> LocalTimeResolution = {
        text, zoneName, minuteInterval, now in
        let (zone, shownZone) = try zone(named: zoneName)
        let invalid = RPCError(
            .invalidParams,
            "invalid local time \"\(text)\": \(LocalTimeText.accepted), or an ISO 8601 "
                + "date-time with Z or an offset (2026-12-01T09:00:00+01:00)")
        // The one grammar (TimerProtocol) reads the text; the date picker's rules give the instant.
        let oneShot: OneShotTimeText
        do throws(OneShotTimeText.ParseError) {
            oneShot = try OneShotTimeText(parsing: text)
        } catch {
            if let wall = LocalTimeText(parsing: text.trimmingCharacters(in: .whitespaces)), !wall.isCalendarDate {
                throw invalid
            }
            throw RPCError(.invalidParams, error.description)
        }
        guard MinuteInterval.isValid(minuteInterval) else {
            throw RPCError(.invalidParams, "minuteInterval \(MinuteInterval.rule), got \(minuteInterval)")
        }
        var style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon)
        style.timeZone = zone
        let resolution: LocalTimeResolver.Resolution
        switch oneShot {
        case .relative(let seconds):
            // A span from now is an instant already: no wall time to resolve, no daylight-saving rule.
            let date = now.addingTimeInterval(seconds)
            return LocalTimeResolution(
                date: date, localTime: date.formatted(style), timeZone: shownZone, adjustment: "exact")
        case .wall(let wall, let day):
            let local = LocalTimeResolver.LocalTime(
                year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute,
                second: wall.second)
            let calendar = Calendar(identifier: .gregorian)
            do {
                if case .nextWeekday(let weekday) = day {
                    resolution = try LocalTimeResolver.resolve(
                        local, onNextWeekday: weekday, now: now, timeZone: zone, calendar: calendar,
                        minuteInterval: minuteInterval)
                } else if let day = day?.resolverDay {
                    resolution = try LocalTimeResolver.resolve(
                        local, on: day, now: now, timeZone: zone, calendar: calendar,
                        minuteInterval: minuteInterval)
                } else {
                    resolution = try LocalTimeResolver.resolve(
                        local, now: now, timeZone: zone, calendar: calendar, minuteInterval: minuteInterval)
                }
            } catch {
                throw invalid
            }
        }
        return LocalTimeResolution(
            date: resolution.date, localTime: resolution.date.formatted(style), timeZone: shownZone,
            adjustment: resolution.adjustment.description)
    }
}

extension OneShotTimeText.Day {
    /// The date picker's name for the same day; `nil` for `next` and a weekday, which
    /// ``DatePicking/LocalTimeResolver/resolve(_:onNextWeekday:now:timeZone:calendar:minuteInterval:)``
    /// resolves.
    var resolverDay: LocalTimeResolver.Day? {
        switch self {
        case .today: return .today
        case .tomorrow: return .tomorrow
        case .weekday(let value): return .weekday(value)
        case .nextWeekday: return nil
        }
    }
}
