import Foundation

/// A second, deliberately simple reading of a normalized calendar expression, independent of the library's
/// parser, masks and civil-date arithmetic: it only answers "does this instant match?", converting the instant
/// with Foundation's `Calendar` and testing each field by the rules of systemd.time(7).
///
/// The differential test uses it to confirm an elapse the library gives and systemd 252 omits (systemd's own
/// defects, listed in docs/calendar.md): such an elapse must match the expression here.
struct IndependentCalendarMatcher {
    private struct Item {
        var start: Int
        var stop: Int?
        var repetition: Int?
    }

    private var weekdays: Set<Int>?
    private var years: [Item]?
    private var months: [Item]?
    private var days: [Item]?
    private var isDayFromEnd = false
    private var hours: [Item]?
    private var minutes: [Item]?
    private var seconds: [Item]?

    /// Reads `normalized` (the form systemd printed): `[WEEKDAYS] Y-M-D|Y-M~D h:m:s [ZONE]`; nil if it cannot.
    init?(normalized: String) {
        var words = normalized.split(separator: " ").map(String.init)
        if let first = words.first?.first, first.isLetter {
            let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
            var set = Set<Int>()
            for item in words.removeFirst().split(separator: ",") {
                let bounds = item.components(separatedBy: "..").compactMap { names.firstIndex(of: $0) }
                guard let low = bounds.first, let high = bounds.last else { return nil }
                set.formUnion(low...high)
            }
            weekdays = set
        }
        guard words.count >= 2 else { return nil }
        isDayFromEnd = words[0].contains("~")
        let date = words[0].split(whereSeparator: { $0 == "-" || $0 == "~" }).map(String.init)
        let time = words[1].split(separator: ":").map(String.init)
        guard date.count == 3, time.count == 3 else { return nil }
        years = Self.items(date[0], micro: false)
        months = Self.items(date[1], micro: false)
        days = Self.items(date[2], micro: false)
        hours = Self.items(time[0], micro: false)
        minutes = Self.items(time[1], micro: false)
        seconds = Self.items(time[2], micro: true)
    }

    /// nil for `*`.
    private static func items(_ text: String, micro: Bool) -> [Item]? {
        guard text != "*" else { return nil }
        func number(_ text: Substring) -> Int {
            guard micro else { return Int(text) ?? -1 }
            let parts = text.split(separator: ".")
            let whole = (Int(parts[0]) ?? -1) * 1_000_000
            guard parts.count == 2 else { return whole }
            let fraction = String(parts[1]).padding(toLength: 6, withPad: "0", startingAt: 0)
            return whole + (Int(fraction) ?? 0)
        }
        return text.split(separator: ",").map { item in
            let slash = item.split(separator: "/")
            let range = slash[0].components(separatedBy: "..")
            return Item(
                start: number(Substring(range[0])), stop: range.count == 2 ? number(Substring(range[1])) : nil,
                repetition: slash.count == 2 ? number(slash[1]) : nil)
        }
    }

    private static func matches(_ items: [Item]?, _ value: Int, limit: Int, unit: Int) -> Bool {
        guard let items else { return value % unit == 0 }
        return items.contains { item in
            let step = item.repetition ?? (item.stop == nil ? 0 : unit)
            if step == 0 { return value == item.start }
            let last = item.stop ?? limit
            return value >= item.start && value <= last && (value - item.start) % step == 0
        }
    }

    /// Whether `date` read in `zone` matches every field.
    func matches(_ date: Date, in zone: TimeZone) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents(
            [.year, .month, .day, .hour, .minute, .second, .nanosecond, .weekday], from: date)
        guard let year = parts.year, let month = parts.month, let day = parts.day, let hour = parts.hour,
            let minute = parts.minute, let second = parts.second, let weekday = parts.weekday,
            let range = calendar.range(of: .day, in: .month, for: date)
        else { return false }
        let micro = second * 1_000_000 + Int((Double(parts.nanosecond ?? 0) / 1000).rounded())
        if let weekdays, !weekdays.contains((weekday + 5) % 7) { return false }
        let length = range.count
        let dayMatches: Bool
        if isDayFromEnd {
            let fromEnd = length + 1 - day
            dayMatches = (days ?? []).contains { item in
                if let repetition = item.repetition, item.stop == nil {
                    // `~A/R`: A, A-R, A-2R, … days back from the end.
                    return fromEnd <= item.start && (item.start - fromEnd) % repetition == 0
                }
                return Self.matches([item], fromEnd, limit: 28, unit: 1)
            }
        } else {
            dayMatches = Self.matches(days, day, limit: 31, unit: 1)
        }
        return dayMatches && Self.matches(years, year, limit: 2199, unit: 1)
            && Self.matches(months, month, limit: 12, unit: 1) && Self.matches(hours, hour, limit: 23, unit: 1)
            && Self.matches(minutes, minute, limit: 59, unit: 1)
            && Self.matches(seconds, micro, limit: 59_999_999, unit: 1_000_000)
    }
}
