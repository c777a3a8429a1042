import DatePicking
import Foundation
import TimerControl
import TimerProtocol
import TimerSystem

/// The picker's time zone: the one `timerctl start --at` finds (`LocalTimeZone`, as tzset(3) reads
/// `TZ` and `/etc/localtime`), made a Foundation zone the way timerd reads it (docs/time.md), so
/// that `timerctl start --at "$(timerctl pick)"` ends where the same local time typed would.
/// Foundation's own `TimeZone.current` reads `TZ=UTC+3` as UTC+03:00, six hours off POSIX.
enum PickTimeZone {
    /// The zone, and a warning to print when it is a guess.
    ///
    /// - Parameter tz: the value of `TZ`, or `nil` when unset.
    /// - Returns: the zone (UTC when nothing names one) and the warning, if any.
    static func current(tz: String? = ProcessEnvironment.value("TZ")) -> (zone: TimeZone, warning: String?) {
        let detected = LocalTimeZone.detect(tz: tz)
        let name = detected.name
        if ZoneInfo.hasZone(named: name), let zone = TimeZone(identifier: name) { return (zone, detected.warning) }
        if let rule = PosixTimeZoneRule(parsing: name) {
            if !rule.hasDaylightSaving, let zone = TimeZone(secondsFromGMT: rule.standardOffsetSeconds) {
                return (zone, detected.warning)
            }
            if rule.rules != nil, let match = ZoneInfo.name(withFooter: name), let zone = TimeZone(identifier: match) {
                return (zone, detected.warning)
            }
        }
        // Through DatePicker: it refuses names that make Foundation trap (`GMT-05:-0`) before asking it.
        if let zone = try? DatePicker.timeZone(identifier: name) { return (zone, detected.warning) }
        return (.gmt, "time zone \"\(name)\" is not one timerpick can read; using UTC")
    }
}
