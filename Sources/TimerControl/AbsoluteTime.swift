import Glibc
import TimerModel
import TimerProtocol
import TimerSystem

/// What `timerctl start --at TIME` asked for, checked locally and sent to timerd.
///
/// `TIME` with `Z` or an offset (`2026-12-01T09:00:00+01:00`, seconds optional) is that instant. Without one it is a
/// local wall time, `HH:MM[:SS]` or `2:30pm` (its next occurrence), `YYYY-MM-DDTHH:MM[:SS]`,
/// `tomorrow 09:00`, `fri 17:00`, or a span from now (`+25m`, `now + 25 minutes`): the grammar of
/// `OneShotTimeText`, in the system's time zone (``localTimeZoneName()``). timerd resolves it with the date picker's rules
/// (DatePicking's `LocalTimeResolver`: `--minute-interval N` floors the minute; a wall time in a
/// daylight-saving gap moves forward by the gap, a repeated one means its first occurrence) and
/// says how, so this CLI does not load ICU's calendar data (see docs/performance.md).
struct AbsoluteTime: Equatable {
    /// The text as typed.
    var text: String
    /// The zone of a local time; `nil` when `text` has its own offset.
    var timeZone: String?
    /// The minute interval for a local time.
    var minuteInterval: Int?
    /// Why the local zone is a guess (printed on stderr as a warning), or `nil`.
    var zoneWarning: String? = nil
    /// The local zone's name, shown after an instant's end time in the confirmation; `nil` when
    /// `text` is a local time (timerd then names the zone it used).
    var shownZone: String? = nil

    /// Checks `text` and the interval before anything is sent.
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` naming what is wrong and what is allowed.
    static func parse(_ text: String, minuteInterval: Int?) throws(ControlError) -> AbsoluteTime {
        // ISO 8601 allows an instant without seconds (`2026-12-24T18:00+01:00`); the wire has them.
        let instant = ISO8601.completingSeconds(text)
        if ISO8601.date(from: instant) != nil {
            if minuteInterval != nil {
                throw .usage(
                    "--minute-interval applies to a local time (without Z or an offset), got \"\(text)\"", verb: .start)
            }
            return AbsoluteTime(
                text: instant, timeZone: nil, minuteInterval: nil, shownZone: localTimeZoneName())
        }
        do {
            _ = try OneShotTimeText(parsing: text)
        } catch {
            throw .usage("invalid --at time \"\(text)\": \(error.reason); \(OneShotTimeText.accepted)", verb: .start)
        }
        if let minuteInterval, !MinuteInterval.isValid(minuteInterval) {
            throw .usage("--minute-interval \(MinuteInterval.rule), got \(minuteInterval)", verb: .start)
        }
        let zone = LocalTimeZone.detect(tz: ProcessEnvironment.valueIfSet("TZ"))
        return AbsoluteTime(text: text, timeZone: zone.name, minuteInterval: minuteInterval, zoneWarning: zone.warning)
    }

    /// The system's time zone name, the way the C library finds it (``LocalTimeZone``).
    static func localTimeZoneName() -> String {
        LocalTimeZone.detect(tz: ProcessEnvironment.valueIfSet("TZ")).name
    }

    /// `started 4 "dinner": ends at 2026-11-29T18:30:00+01:00 (Europe/Paris), in 1h37m29s`, with the
    /// daylight-saving adjustment when there was one. An instant (`--at` with Z or an offset, or
    /// what `--pick` chose) is shown the same way, in the local zone: one form for every end time.
    ///
    /// - Parameters:
    ///   - timer: the started timer, as timerd replied.
    ///   - clock: the local zone's offsets (the system's; tests fix one).
    /// - Returns: the line, newline-terminated.
    func confirmation(for timer: TimerInfo, clock: LocalClock = .system) -> String {
        let label = timer.name.map { "\(timer.id) \"\($0)\"" } ?? timer.id
        var line = "started \(label): ends at "
        if let resolved = timer.resolvedAt {
            line += "\(resolved.localTime) (\(resolved.timeZone))"
        } else if let shownZone, let end = timer.endsAt.flatMap({ ISO8601.displayDate(from: $0) }) {
            line += "\(clock.offsetText(end)) (\(shownZone))"
        } else {
            line += timer.endsAt ?? text
        }
        line += ", in \(DurationFormatter.compact(seconds: timer.remaining.rounded()))"
        line += StatusTable.wakeNote(timer)
        if let adjustment = timer.resolvedAt?.adjustment, adjustment != "exact" { line += "; \(text) \(adjustment)" }
        return line + "\n"
    }
}
