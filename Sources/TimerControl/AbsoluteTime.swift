import Glibc
import TimerModel
import TimerProtocol
import TimerSystem

/// What `timerctl start --at TIME` asked for, checked locally and sent to timerd.
///
/// `TIME` with `Z` or an offset (`2026-12-01T09:00:00+01:00`) is that instant. Without one it is a
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

    /// Checks `text` and the interval before anything is sent.
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` naming what is wrong and what is allowed.
    static func parse(_ text: String, minuteInterval: Int?) throws(ControlError) -> AbsoluteTime {
        if ISO8601.date(from: text) != nil {
            if minuteInterval != nil {
                throw .usage(
                    "--minute-interval applies to a local time (without Z or an offset), got \"\(text)\"", verb: .start)
            }
            return AbsoluteTime(text: text, timeZone: nil, minuteInterval: nil)
        }
        do {
            _ = try OneShotTimeText(parsing: text)
        } catch {
            throw .usage("invalid --at time \"\(text)\": \(error.reason); \(OneShotTimeText.accepted)", verb: .start)
        }
        if let minuteInterval, !MinuteInterval.isValid(minuteInterval) {
            throw .usage("--minute-interval \(MinuteInterval.rule), got \(minuteInterval)", verb: .start)
        }
        return AbsoluteTime(text: text, timeZone: localTimeZoneName(), minuteInterval: minuteInterval)
    }

    /// The system's time zone name, the way the C library finds it (man tzset(3)): `TZ` (an IANA
    /// name, optionally after `:`, or a path under `zoneinfo/`), else the target of `/etc/localtime`,
    /// else `/etc/timezone`, else `UTC`.
    static func localTimeZoneName() -> String {
        if let tz = ProcessEnvironment.value("TZ") {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            return zoneName(fromPath: name) ?? name
        }
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let name = zoneName(fromPath: target) { return name }
        }
        if let bytes = try? FileSystem.readAll("/etc/timezone", maximumBytes: 255) {
            // The first line, as fgets(3) with a 256-byte buffer read it.
            let line = bytes.prefix(255).prefix { $0 != UInt8(ascii: "\n") && $0 != 0 }
            let trimmed = String(decoding: line, as: UTF8.self).filter { !$0.isWhitespace }
            if !trimmed.isEmpty { return trimmed }
        }
        return "UTC"
    }

    /// `Europe/Paris` from `/usr/share/zoneinfo/Europe/Paris`; `nil` for a path without `zoneinfo/`.
    private static func zoneName(fromPath path: String) -> String? {
        guard path.hasPrefix("/") || path.hasPrefix("..") else { return nil }
        let parts = path.components(separatedBy: "zoneinfo/")
        guard parts.count >= 2, let name = parts.last, !name.isEmpty else { return nil }
        return name
    }

    /// `started 4 "dinner": ends at 2026-11-29T18:30:00+01:00 (Europe/Paris), in 1h37m29s`, with the
    /// daylight-saving adjustment when there was one.
    func confirmation(for timer: TimerInfo) -> String {
        let label = timer.name.map { "\(timer.id) \"\($0)\"" } ?? timer.id
        var line = "started \(label): ends at "
        if let resolved = timer.resolvedAt {
            line += "\(resolved.localTime) (\(resolved.timeZone))"
        } else {
            line += timer.endsAt ?? text
        }
        line += ", in \(DurationFormatter.compact(seconds: timer.remaining.rounded()))"
        if let adjustment = timer.resolvedAt?.adjustment, adjustment != "exact" { line += "; \(text) \(adjustment)" }
        return line + "\n"
    }
}
