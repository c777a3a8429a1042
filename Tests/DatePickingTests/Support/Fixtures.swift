import Foundation
import TestSupport

@testable import DatePicking

/// Shared builders for the unit tests: explicit zones, locales and "now", never the machine's.
enum Fixtures {
    /// 2026-01-01T12:00:00Z, the "now" of every fixture picker.
    static let now = FixedInstant.newYearNoon

    static func zone(_ identifier: String) -> TimeZone {
        TimeZone(identifier: identifier) ?? .gmt
    }

    static func picker(
        _ mode: DatePickerMode = .dateAndTime,
        zone: String = "UTC",
        locale: String? = "en_US",
        calendar: String = "gregorian",
        interval: Int = 1
    ) -> DatePicker {
        var picker = DatePicker(environment: DatePickerEnvironment(now: now))
        picker.datePickerMode = mode
        picker.timeZone = Self.zone(zone)
        picker.locale = locale.map(Locale.init(identifier:))
        picker.calendar = try? DatePicker.calendar(identifier: calendar)
        picker.minuteInterval = interval
        return picker
    }

    /// The wall time of `date` in `zone` as `yyyy-MM-dd HH:mm:ss`, Gregorian.
    static func wall(_ date: Date, _ zone: String) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.zone(zone)
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", p.year ?? 0, p.month ?? 0, p.day ?? 0, p.hour ?? 0,
            p.minute ?? 0, p.second ?? 0)
    }
}
