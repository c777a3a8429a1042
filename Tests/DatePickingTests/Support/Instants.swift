import Foundation

@testable import DatePicking

/// Parses and prints the ISO 8601 instants of the vector file (`2026-03-08T09:30:00Z`, `…T10:15:30.500Z`,
/// `…T01:30:00-08:00`), at millisecond precision.
enum Instants {
    static func parse(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// `YYYY-MM-DD` of `date` in the Gregorian calendar and the given zone.
    static func gregorianDay(_ date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return HTMLInputStepping.pad(parts.year ?? 0, 4) + "-" + HTMLInputStepping.pad(parts.month ?? 0, 2) + "-"
            + HTMLInputStepping.pad(parts.day ?? 0, 2)
    }

    /// Noon of a Gregorian `YYYY-MM-DD` in the given zone.
    static func noon(ofGregorianDay text: String, in zone: TimeZone) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 12))
    }

    /// `YYYY-MM-DD` of a date-wheel row in the given zone.
    static func gregorianDay(_ value: WheelValue, zone: TimeZone) -> String {
        guard case .day(let date) = value else { return "not a day" }
        return gregorianDay(date, in: zone)
    }
}
