/// Writes durations for people: compact spans (`1h30m`) and clock notation (`1:30:00`).
public enum DurationFormatter {
    /// A compact span in the accepted input syntax: `25m`, `1h30m`, `1d2h`, `1.5s`, `250ms`, `100ns`.
    ///
    /// - Parameter seconds: the duration in seconds; negative values get a leading `-`.
    /// - Returns: the span, or `0s` for zero.
    public static func compact(seconds: Double) -> String {
        guard seconds.isFinite else { return number(seconds) }
        if seconds < 0 { return "-" + compact(seconds: -seconds) }
        var milliseconds = Int64((seconds * 1_000).rounded())
        if milliseconds == 0 {
            if seconds == 0 { return "0s" }
            let nanoseconds = Int64((seconds * 1e9).rounded())
            return nanoseconds % 1_000 == 0 ? "\(nanoseconds / 1_000)us" : "\(nanoseconds)ns"
        }
        if milliseconds < 1_000 { return "\(milliseconds)ms" }
        var parts = ""
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000)] where milliseconds >= size {
            parts += "\(milliseconds / size)\(unit)"
            milliseconds %= size
        }
        if milliseconds > 0 {
            let wholeSeconds = milliseconds / 1_000
            let fraction = milliseconds % 1_000
            parts += fraction == 0 ? "\(wholeSeconds)s" : "\(wholeSeconds).\(trimmedFraction(fraction))s"
        }
        return parts
    }

    /// Clock notation `H:MM:SS` as a countdown shows it: hours unbounded, seconds rounded up so that
    /// `0:00:00` appears only when nothing is left.
    ///
    /// - Parameter seconds: the duration in seconds (negative is shown as 0).
    /// - Returns: e.g. `0:24:58` or `100:00:00`.
    public static func clock(seconds: Double) -> String {
        let total = seconds.isFinite && seconds > 0 ? Int64(min(seconds.rounded(.up), 9e15)) : 0
        let hours = total / 3_600
        let minutes = String((total % 3_600) / 60).leftPadded(to: 2)
        let secs = String(total % 60).leftPadded(to: 2)
        return "\(hours):\(minutes):\(secs)"
    }

    /// A countdown as `status` and `watch` show it: ``clock(seconds:)`` below one day, and from one
    /// day on the whole days first, `2d 03:04:05` (rather than `51:04:05`); seconds rounded up, as
    /// in ``clock(seconds:)``.
    ///
    /// - Parameter seconds: the duration in seconds (negative is shown as 0).
    /// - Returns: e.g. `0:24:58`, `23:59:59`, `1d 00:00:00`, `118d 09:37:30`.
    public static func countdown(seconds: Double) -> String {
        let total = seconds.isFinite && seconds > 0 ? Int64(min(seconds.rounded(.up), 9e15)) : 0
        guard total >= 86_400 else { return clock(seconds: Double(total)) }
        let rest = total % 86_400
        let hours = String(rest / 3_600).leftPadded(to: 2)
        return "\(total / 86_400)d \(hours):\(clock(seconds: Double(rest % 3_600)).dropFirst(2))"
    }

    /// A number without a trailing `.0`: `300`, `1.5`, `-2`, `nan`.
    ///
    /// - Parameter value: the number.
    /// - Returns: its shortest decimal form.
    public static func number(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(describing: value)
    }

    private static func trimmedFraction(_ milliseconds: Int64) -> String {
        var text = String(milliseconds).leftPadded(to: 3)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
