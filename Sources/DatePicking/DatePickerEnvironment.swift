import Foundation

/// The outside world a ``DatePicker`` would otherwise read from the system: "now" and the user's settings.
///
/// UIKit reads the clock (`date` defaults to the moment of creation), `Locale.current`, `Calendar.current`,
/// `TimeZone.current` and the 24-Hour Time switch (rules B2 and B16 of docs/datepicker-rules.md). This module never does;
/// the caller passes them here, which keeps every result reproducible.
public struct DatePickerEnvironment: Sendable, Hashable, Codable {
    /// The instant treated as "now": the initial ``DatePicker/date`` and the "today" row of the date wheel.
    ///
    /// A non-finite instant (NaN or ±infinity) is ignored when set, keeping the previous value, so that an
    /// environment always encodes to JSON.
    public var now: Date {
        didSet { if !now.timeIntervalSinceReferenceDate.isFinite { now = oldValue } }
    }
    /// The system locale, used when ``DatePicker/locale`` is `nil`.
    public var locale: Locale
    /// The system time zone, used when ``DatePicker/timeZone`` is `nil`.
    public var timeZone: TimeZone
    /// The system calendar, used when ``DatePicker/calendar`` is `nil`. Its own time zone is ignored.
    public var calendar: Calendar
    /// The system 12/24-hour switch, used only when ``DatePicker/locale`` is `nil`; `nil` means the system
    /// locale's own preference.
    public var hourCycle: HourCycle?

    /// Creates an environment from values.
    ///
    /// - Parameters:
    ///   - now: The instant treated as "now". A non-finite instant becomes the reference date,
    ///     2001-01-01T00:00:00Z; use the throwing initialiser to be told instead.
    ///   - locale: The system locale. Default `en_US`.
    ///   - timeZone: The system time zone. Default GMT.
    ///   - calendar: The system calendar. Default Gregorian.
    ///   - hourCycle: The system 12/24-hour switch, or `nil` to follow `locale`.
    public init(
        now: Date,
        locale: Locale = Locale(identifier: "en_US"),
        timeZone: TimeZone = .gmt,
        calendar: Calendar = Calendar(identifier: .gregorian),
        hourCycle: HourCycle? = nil
    ) {
        self.now = now.timeIntervalSinceReferenceDate.isFinite ? now : Date(timeIntervalSinceReferenceDate: 0)
        self.locale = locale
        self.timeZone = timeZone
        self.calendar = calendar
        self.hourCycle = hourCycle
    }

    /// Creates an environment from identifiers, checking each one.
    ///
    /// - Parameters:
    ///   - now: The instant treated as "now"; it must be finite.
    ///   - localeIdentifier: A locale identifier such as `en_US` or `ar_EG`.
    ///   - timeZoneIdentifier: An IANA time-zone name such as `Europe/Berlin`.
    ///   - calendarIdentifier: A calendar name such as `gregorian`, `hebrew` or `islamic-umalqura`.
    ///   - hourCycle: The system 12/24-hour switch, or `nil` to follow the locale.
    /// - Throws: ``DatePickingError/invalidDate(_:)``, ``DatePickingError/unknownLocale(_:)``,
    ///   ``DatePickingError/unknownTimeZone(_:)`` or ``DatePickingError/unknownCalendar(_:)``.
    public init(
        now: Date,
        localeIdentifier: String,
        timeZoneIdentifier: String,
        calendarIdentifier: String = "gregorian",
        hourCycle: HourCycle? = nil
    ) throws(DatePickingError) {
        guard now.timeIntervalSinceReferenceDate.isFinite else {
            throw .invalidDate(String(now.timeIntervalSinceReferenceDate))
        }
        let timeZone = try DatePicker.timeZone(identifier: timeZoneIdentifier)
        self.init(
            now: now,
            locale: try DatePicker.locale(identifier: localeIdentifier),
            timeZone: timeZone,
            calendar: try DatePicker.calendar(identifier: calendarIdentifier),
            hourCycle: hourCycle
        )
    }
}
