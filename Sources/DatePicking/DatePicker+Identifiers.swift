import Foundation

extension DatePicker {
    /// Looks up a time zone by IANA name.
    ///
    /// - Parameter identifier: An IANA name such as `America/Los_Angeles`, or an abbreviation Foundation knows.
    /// - Returns: The time zone.
    /// - Throws: ``DatePickingError/unknownTimeZone(_:)`` when the database does not know the name, and for
    ///   a name Foundation would trap on (``isSafeZoneIdentifier(_:)``: `GMT-05:-0`, found by the `calendar`
    ///   fuzz target), refused before Foundation sees it.
    public static func timeZone(identifier: String) throws(DatePickingError) -> TimeZone {
        guard isSafeZoneIdentifier(identifier), let zone = TimeZone(identifier: identifier) else {
            throw .unknownTimeZone(identifier)
        }
        return zone
    }

    /// Whether `TimeZone(identifier:)` may be called with `identifier`.
    ///
    /// swift-foundation's GMT-offset reader (`TimeZone.tryParseGMTName`) traps (SIGILL) on some names of
    /// 9 characters that start `GMT±` or `UTC±` with a non-digit at index 7: `GMT-05:-0`, `UTC-05:/0`,
    /// `GMT+00:x0`, `GMT+0..\0` followed by `5` (found by the `calendar` fuzz target; checked one by
    /// one against Foundation). So a name that starts `GMT+`, `GMT-`, `UTC+` or `UTC-` must be an offset
    /// Foundation reads: 1–4 digits (`GMT+5`, `GMT+0530`) or 1–2 digits, `:`, 2 digits (`GMT+05:30`).
    /// Any other name must have only digits after a `:` (no IANA name has a `:`).
    ///
    /// Public so that a program can check its own `TZ` before Foundation reads it for
    /// `TimeZone.current` (timerd and timerpick do, and use UTC with a warning instead).
    ///
    /// - Parameter identifier: a zone name or `TZ` value without its leading `:`.
    /// - Returns: `false` for a name Foundation would trap on; `true` does not mean the name is known.
    /// - Complexity: O(n) in the name's UTF-8 length.
    public static func isSafeZoneIdentifier(_ identifier: String) -> Bool {
        let bytes = Array(identifier.utf8)
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        if bytes.count > 3, bytes[0..<3] == ArraySlice("GMT".utf8) || bytes[0..<3] == ArraySlice("UTC".utf8),
            bytes[3] == UInt8(ascii: "+") || bytes[3] == UInt8(ascii: "-")
        {
            let parts = bytes[4...].split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard parts.allSatisfy({ $0.allSatisfy(isDigit) }) else { return false }
            switch parts.count {
            case 1: return (1...4).contains(parts[0].count)
            case 2: return (1...2).contains(parts[0].count) && parts[1].count == 2
            default: return false
            }
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return true }
        return bytes[(colon + 1)...].allSatisfy(isDigit)
    }

    /// Builds a locale from an identifier, checking that its language exists.
    ///
    /// `Locale(identifier:)` accepts any string; this rejects identifiers whose language is not an ISO 639 code.
    ///
    /// - Parameter identifier: A locale identifier such as `en_US`, `ar_EG` or `ja_JP@calendar=japanese`.
    /// - Returns: The locale.
    /// - Throws: ``DatePickingError/unknownLocale(_:)``.
    public static func locale(identifier: String) throws(DatePickingError) -> Locale {
        let locale = Locale(identifier: identifier)
        guard let language = locale.language.languageCode?.identifier,
            Locale.LanguageCode.isoLanguageCodes.contains(where: { $0.identifier == language })
        else { throw .unknownLocale(identifier) }
        return locale
    }

    /// Builds a calendar from its name, with a fixed time zone (GMT) and locale (`en_US_POSIX`), so that nothing
    /// is read from the system.
    ///
    /// - Parameter identifier: A CLDR calendar name (`gregorian`, `buddhist`, `japanese`, `hebrew`, `islamic`,
    ///   `islamic-civil`, `islamic-umalqura`, `persian`, …) or the Swift case name (`islamicUmmAlQura`).
    /// - Returns: The calendar.
    /// - Throws: ``DatePickingError/unknownCalendar(_:)``.
    public static func calendar(identifier: String) throws(DatePickingError) -> Calendar {
        guard let known = CalendarIdentifiers.identifier(named: identifier) else {
            throw .unknownCalendar(identifier)
        }
        return CalendarIdentifiers.calendar(known, timeZone: .gmt)
    }

    /// Sets ``timeZone`` from an IANA name. Changes only the presentation (rule B4); no `valueChanged`.
    ///
    /// - Parameter identifier: An IANA name, or `nil` to follow the environment.
    /// - Throws: ``DatePickingError/unknownTimeZone(_:)``; the time zone is then unchanged.
    public mutating func setTimeZone(identifier: String?) throws(DatePickingError) {
        guard let identifier else {
            timeZone = nil
            return
        }
        timeZone = try Self.timeZone(identifier: identifier)
    }

    /// Sets ``locale`` from an identifier; no `valueChanged`.
    ///
    /// - Parameter identifier: A locale identifier, or `nil` to follow the environment and its hour cycle.
    /// - Throws: ``DatePickingError/unknownLocale(_:)``; the locale is then unchanged.
    public mutating func setLocale(identifier: String?) throws(DatePickingError) {
        guard let identifier else {
            locale = nil
            return
        }
        locale = try Self.locale(identifier: identifier)
    }

    /// Sets ``calendar`` from a calendar name; no `valueChanged`.
    ///
    /// - Parameter identifier: A calendar name (see ``calendar(identifier:)``), or `nil` for the environment's.
    /// - Throws: ``DatePickingError/unknownCalendar(_:)``; the calendar is then unchanged.
    public mutating func setCalendar(identifier: String?) throws(DatePickingError) {
        guard let identifier else {
            calendar = nil
            return
        }
        calendar = try Self.calendar(identifier: identifier)
    }
}
