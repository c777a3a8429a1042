import Countdown
import DatePicking
import Foundation

/// What `timerctl start --at TIME` asked for, resolved to an instant.
///
/// `TIME` with `Z` or an offset (`2026-12-01T09:00:00+01:00`) is that instant. Without one it is a
/// local wall time in the system's time zone (`TZ`, else `/etc/localtime`), resolved by
/// ``DatePicking/LocalTimeResolver`` with the date picker's rules: `14:30` is the next 14:30 after
/// now, `2026-12-01T09:00` that local date-time, `--minute-interval N` floors the minute (DATEPICKER.md
/// B7). Daylight saving: a skipped wall time moves forward by the gap (02:30 → 03:30, as
/// `Calendar.date(from:)` does), a repeated one means its first occurrence; the CLI says which applied.
struct AbsoluteTime {
    /// The instant the timer ends at.
    var date: Date
    /// The zone a local time was read in (`nil` for an instant with an offset).
    var timeZone: TimeZone?
    /// What was done to a local time (`exact`, moved over a gap, first of two …).
    var adjustment: LocalTimeResolver.Adjustment?
    /// The text as typed.
    var text: String

    /// Resolves `text` against the system clock and time zone.
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` when `text` is neither form, or the interval is invalid.
    static func resolve(_ text: String, minuteInterval: Int?) throws(ControlError) -> AbsoluteTime {
        if let instant = ISO8601.date(from: text) {
            if minuteInterval != nil {
                throw .usage(
                    "--minute-interval applies to a local time (without Z or an offset), got \"\(text)\"", verb: .start)
            }
            return AbsoluteTime(date: instant, timeZone: nil, adjustment: nil, text: text)
        }
        let zone = TimeZone.current
        do {
            let resolution = try LocalTimeResolver.resolve(
                text, now: Date(), timeZone: zone, calendar: Calendar(identifier: .gregorian),
                minuteInterval: minuteInterval ?? 1)
            return AbsoluteTime(date: resolution.date, timeZone: zone, adjustment: resolution.adjustment, text: text)
        } catch .invalidMinuteInterval(let interval) {
            throw .usage(
                "--minute-interval must divide 60 and be 1 to 30 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30), got \(interval)",
                verb: .start)
        } catch {
            throw .usage(
                "invalid --at time \"\(text)\": use HH:MM[:SS] or YYYY-MM-DDTHH:MM[:SS] (local time), or an ISO 8601 "
                    + "date-time with Z or an offset (2026-12-01T09:00:00+01:00)",
                verb: .start)
        }
    }

    /// `started 4 "meeting": ends at 2026-12-01T09:00:00+01:00 (Europe/Paris), in 3h12m`.
    func confirmation(for timer: TimerInfo) -> String {
        let label = timer.name.map { "\(timer.id) \"\($0)\"" } ?? timer.id
        var style = Date.ISO8601FormatStyle(timeZoneSeparator: .colon)
        style.timeZone = timeZone ?? TimeZone(identifier: "UTC") ?? style.timeZone
        var line = "started \(label): ends at \(date.formatted(style))"
        if let timeZone { line += " (\(timeZone.identifier))" }
        line += ", in \(DurationFormatter.compact(seconds: timer.remaining.rounded()))"
        if let adjustment, adjustment != .exact { line += "; \(text) \(adjustment)" }
        return line + "\n"
    }
}
