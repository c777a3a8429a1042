import Foundation

@testable import DatePicking

/// Helpers for the rule-by-rule tests in `Spec/`: instants written as ISO 8601 text and pickers in any zone.
enum Spec {
    /// The instant of an ISO 8601 string such as `2026-03-08T09:30:00Z`; `distantPast` if it does not parse,
    /// which no expectation uses, so a typo fails the test.
    static func at(_ text: String) -> Date {
        Instants.parse(text) ?? .distantPast
    }

    /// The instant as `2026-03-08T09:30:00.000Z`, for readable failure messages.
    static func iso(_ date: Date) -> String {
        Instants.format(date)
    }

    /// A calendar with the given identifier and zone.
    static func calendar(_ identifier: Calendar.Identifier, _ zone: String) -> Calendar {
        var calendar = Calendar(identifier: identifier)
        calendar.timeZone = Fixtures.zone(zone)
        return calendar
    }

    /// The instant of a wall time in a calendar, or `distantPast` if the calendar cannot build it.
    static func wall(
        _ identifier: Calendar.Identifier, _ zone: String, era: Int? = nil, _ year: Int, _ month: Int, _ day: Int,
        _ hour: Int = 12, _ minute: Int = 0
    ) -> Date {
        let parts = DateComponents(era: era, year: year, month: month, day: day, hour: hour, minute: minute)
        return calendar(identifier, zone).date(from: parts) ?? .distantPast
    }

    /// Era, year, month and day of an instant in a calendar.
    static func ymd(_ date: Date, _ identifier: Calendar.Identifier, _ zone: String) -> [Int] {
        let parts = calendar(identifier, zone).dateComponents([.era, .year, .month, .day], from: date)
        return [parts.era ?? -1, parts.year ?? -1, parts.month ?? -1, parts.day ?? -1]
    }

    /// The number values of the listed rows that `isEnabled` reports enabled.
    static func enabled(_ picker: DatePicker, _ kind: WheelKind, _ values: [Int]) -> [Int] {
        values.filter { picker.isEnabled(.number($0), in: kind) }
    }
}
