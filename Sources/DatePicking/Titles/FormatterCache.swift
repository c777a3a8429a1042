import Foundation

/// A process-wide cache of configured `DateFormatter`s and of titles that depend only on the locale, shared by
/// every ``WheelTitles``.
///
/// Creating a `DateFormatter` (and ICU's pattern generator behind a template) costs tens of microseconds; using
/// one costs a few. Formatters are therefore made once per (locale, calendar, time zone, format) and used under
/// the cache's lock, since a `DateFormatter` is a mutable reference. Foundation only, so an `NSLock`.
final class FormatterCache: @unchecked Sendable {
    static let shared = FormatterCache()
    private let lock = NSLock()
    private var formatters: [String: DateFormatter] = [:]
    private var titles: [String: String] = [:]

    /// How a formatter's pattern is given: a fixed ICU pattern or a template localized for the locale.
    enum Format: Hashable {
        case pattern(String)
        case template(String)

        var key: String {
            switch self {
            case .pattern(let text): return "p:" + text
            case .template(let text): return "t:" + text
            }
        }
    }

    /// Formats `date` with the cached formatter for these settings.
    func string(from date: Date, format: Format, locale: Locale, calendar: Calendar) -> String {
        let key = Self.key(format: format, locale: locale, calendar: calendar)
        lock.lock()
        defer { lock.unlock() }
        return formatter(for: key, format: format, locale: locale, calendar: calendar).string(from: date)
    }

    /// Reads a property of the cached formatter for these settings (AM/PM and month symbols).
    func read<T>(
        format: Format, locale: Locale, calendar: Calendar, _ body: (DateFormatter) -> T
    ) -> T {
        let key = Self.key(format: format, locale: locale, calendar: calendar)
        lock.lock()
        defer { lock.unlock() }
        return body(formatter(for: key, format: format, locale: locale, calendar: calendar))
    }

    /// A title cached under `key`, computed by `make` the first time.
    func title(for key: String, _ make: () -> String) -> String {
        lock.lock()
        if let cached = titles[key] {
            lock.unlock()
            return cached
        }
        lock.unlock()
        let made = make()
        lock.lock()
        titles[key] = made
        lock.unlock()
        return made
    }

    private static func key(format: Format, locale: Locale, calendar: Calendar) -> String {
        "\(locale.identifier)|\(calendar.identifier)|\(calendar.timeZone.identifier)|\(format.key)"
    }

    /// Must be called with the lock held.
    private func formatter(for key: String, format: Format, locale: Locale, calendar: Calendar) -> DateFormatter {
        if let cached = formatters[key] { return cached }
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        switch format {
        case .pattern(let pattern): formatter.dateFormat = pattern
        case .template(let template): formatter.setLocalizedDateFormatFromTemplate(template)
        }
        formatters[key] = formatter
        return formatter
    }
}
