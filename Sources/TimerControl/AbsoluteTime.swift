import Glibc
import TimerModel
import TimerProtocol
import TimerSystem

/// What `timerctl start --at TIME` asked for, checked locally and sent to timerd.
///
/// `TIME` with `Z` or an offset (`2026-12-01T09:00:00+01:00`) is that instant. Without one it is a
/// local wall time, `HH:MM[:SS]` (its next occurrence) or `YYYY-MM-DDTHH:MM[:SS]`, in the system's
/// time zone (``localTimeZoneName()``). timerd resolves it with the date picker's rules
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
        guard isLocalTime(text) else {
            throw .usage(
                "invalid --at time \"\(text)\": use HH:MM[:SS] or YYYY-MM-DDTHH:MM[:SS] (local time), or an ISO 8601 "
                    + "date-time with Z or an offset (2026-12-01T09:00:00+01:00)",
                verb: .start)
        }
        if let minuteInterval, !(1...30).contains(minuteInterval) || 60 % minuteInterval != 0 {
            throw .usage(
                "--minute-interval must divide 60 and be 1 to 30 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30), got \(minuteInterval)",
                verb: .start)
        }
        return AbsoluteTime(text: text, timeZone: localTimeZoneName(), minuteInterval: minuteInterval)
    }

    /// `HH:MM[:SS]` or `YYYY-MM-DD(T| )HH:MM[:SS]` with fields in range (the calendar check is timerd's).
    static func isLocalTime(_ text: String) -> Bool {
        var time = Substring(text)
        if let separator = text.firstIndex(where: { $0 == "T" || $0 == " " }) {
            let date = text[..<separator].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, date[0].count == 4, date[1].count == 2, date[2].count == 2,
                date.allSatisfy({ $0.allSatisfy(\.isWholeNumberDigit) }), let month = Int(date[1]),
                let day = Int(date[2]),
                (1...12).contains(month), (1...31).contains(day)
            else { return false }
            time = text[text.index(after: separator)...]
        }
        let fields = time.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3,
            fields.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isWholeNumberDigit) }),
            let hour = Int(fields[0]), let minute = Int(fields[1]), hour < 24, minute < 60
        else { return false }
        return fields.count == 2 || (Int(fields[2]) ?? 60) < 60
    }

    /// The system's time zone name, the way the C library finds it (man tzset(3)): `TZ` (an IANA
    /// name, optionally after `:`, or a path under `zoneinfo/`), else the target of `/etc/localtime`,
    /// else `/etc/timezone`, else `UTC`.
    static func localTimeZoneName() -> String {
        if let tz = RuntimePaths.environment("TZ") {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            return zoneName(fromPath: name) ?? name
        }
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let name = zoneName(fromPath: target) { return name }
        }
        if let file = fopen("/etc/timezone", "r") {
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 256)
            if fgets(&line, Int32(line.count), file) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let trimmed = text.filter { !$0.isWhitespace }
                if !trimmed.isEmpty { return trimmed }
            }
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

extension Character {
    /// `0`…`9` (ASCII only).
    fileprivate var isWholeNumberDigit: Bool { isASCII && isNumber }
}
