import DatePicking
import Foundation
import TimerProtocol

extension LocalTimeResolver {
    /// Reads `text` with the product's one local-time grammar (`TimerProtocol.LocalTimeText`, which
    /// `timerctl` and `timerd` share), then resolves it: the path a `timerctl start --at` time takes
    /// in `timerd`. Text outside the grammar, or a date that does not exist, is
    /// ``DatePickingError/invalidLocalTime(_:)`` with the text, as the resolver's own errors name it.
    static func resolve(
        _ text: String,
        now: Date,
        timeZone: TimeZone,
        calendar: Calendar,
        minuteInterval: Int = 1,
        skippedTimePolicy: SkippedTimePolicy = .moveForward,
        repeatedTimePolicy: RepeatedTimePolicy = .first
    ) throws(DatePickingError) -> Resolution {
        guard let wall = LocalTimeText(parsing: text.trimmingCharacters(in: .whitespaces)), wall.isCalendarDate
        else { throw .invalidLocalTime(text) }
        return try resolve(
            LocalTime(
                year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute,
                second: wall.second),
            now: now, timeZone: timeZone, calendar: calendar, minuteInterval: minuteInterval,
            skippedTimePolicy: skippedTimePolicy, repeatedTimePolicy: repeatedTimePolicy)
    }
}
