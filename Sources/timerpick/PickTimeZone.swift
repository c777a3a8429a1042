import Foundation
import TimerSystem
import ZoneReading

/// The picker's time zone, read by the reader timerd reads its own zone with
/// (``ZoneReading/ZoneReader/current(tz:localtime:)``: `TZ` as tzset(3) reads it, an empty `TZ`
/// being UTC, else `/etc/localtime`), so that `timerctl start --at "$(timerctl pick)"` ends where
/// the same local time typed would. Foundation's own `TimeZone.current` reads `TZ=UTC+3` as
/// UTC+03:00, six hours off POSIX, and does not read `TZ=:Europe/Paris`.
enum PickTimeZone {
    /// The zone, and a warning to print when it is a guess.
    ///
    /// - Parameter tz: the value of `TZ`, `""` when set but empty, `nil` when unset.
    /// - Returns: the zone (UTC when nothing names one) and the warning, if any.
    static func current(tz: String? = ProcessEnvironment.valueIfSet("TZ")) -> (zone: TimeZone, warning: String?) {
        ZoneReader.current(tz: tz)
    }
}
