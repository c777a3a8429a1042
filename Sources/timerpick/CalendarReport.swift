import CalendarEvents
import Foundation
import TimerModel
import TimerProtocol

/// What `timerctl calendar` prints: the layout of `systemd-analyze calendar` (systemd 252), or JSON.
///
/// Labels are right-aligned to 15 columns as systemd prints them; "Original form" appears only when it differs
/// from the normalized form, "(in UTC)" only when local time is not UTC; an expression that never elapses again
/// prints "Next elapse: never". The relative "From now" text follows the units systemd shows (observed from
/// `systemd-analyze calendar` on this machine): years and months, months and days, weeks and days, days, a day
/// and hours, hours, hours and minutes, minutes, minutes and seconds, seconds, milliseconds.
struct CalendarReport {
    /// The expression as typed.
    var original: String
    /// The parsed expression.
    var expression: CalendarExpression
    /// The elapses to show, in order.
    var elapses: [Date]
    /// The instant "From now" counts from.
    var now: Date

    /// The text layout; `local` formats an instant in the process's local time, `utc` in UTC (both as
    /// `Www YYYY-MM-DD HH:MM:SS ZONE`).
    func text(local: (Date) -> String, utc: (Date) -> String) -> String {
        var lines: [String] = []
        func line(_ label: String, _ value: String) {
            lines.append(String(repeating: " ", count: max(0, 15 - label.count)) + label + ": " + value)
        }
        if original != expression.normalized { line("Original form", original) }
        line("Normalized form", expression.normalized)
        if elapses.isEmpty { line("Next elapse", "never") }
        for (index, elapse) in elapses.enumerated() {
            let localText = local(elapse)
            let utcText = utc(elapse)
            line(index == 0 ? "Next elapse" : "Iter. #\(index + 1)", localText)
            if localText != utcText { line("(in UTC)", utcText) }
            line("From now", Self.relative(from: now, to: elapse))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"normalized":"…","elapses":["2026-12-07T06:00:00.000Z",…]}` and a line end; instants in UTC with
    /// milliseconds, as every output of the service writes them.
    var json: String {
        var writer = JSONBytesWriter()
        writer.raw("{")
        writer.key("normalized")
        writer.string(expression.normalized)
        writer.raw(",")
        writer.key("elapses")
        writer.raw("[")
        for (index, elapse) in elapses.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.string(ISO8601.string(from: elapse))
        }
        writer.raw("]}")
        return String(decoding: writer.bytes, as: UTF8.self) + "\n"
    }

    /// "8 months 2 days ago", "1h 1min left", "now": the distance between two instants in systemd's units.
    static func relative(from now: Date, to instant: Date) -> String {
        let difference = Int(((instant.timeIntervalSince1970 - now.timeIntervalSince1970) * 1_000_000).rounded(.down))
        guard difference != 0 else { return "now" }
        let suffix = difference > 0 ? " left" : " ago"
        let d = abs(difference)
        let second = 1_000_000
        let (minute, hour, day) = (60 * second, 3600 * second, 86_400 * second)
        let week = 7 * day
        let month = 2_629_800 * second  // 30.44 days
        let year = 31_557_600 * second  // 365.25 days
        func plural(_ count: Int, _ unit: String) -> String { "\(count) \(unit)\(count == 1 ? "" : "s")" }
        let text: String
        switch d {
        case year...: text = plural(d / year, "year") + " " + plural(d % year / month, "month")
        case month...: text = plural(d / month, "month") + " " + plural(d % month / day, "day")
        case week...: text = plural(d / week, "week") + " " + plural(d % week / day, "day")
        case (2 * day)...: text = plural(d / day, "day")
        case (day + hour)...: text = "1 day \(d % day / hour)h"
        case (6 * hour)...: text = "\(d / hour)h"
        case hour...: text = "\(d / hour)h \(d % hour / minute)min"
        case (5 * minute)...: text = "\(d / minute)min"
        case minute...: text = "\(d / minute)min \(d % minute / second)s"
        case second...: text = "\(d / second)s"
        case 1000...: text = "\(d / 1000)ms"
        default: text = "\(d)us"
        }
        return text + suffix
    }
}
