import DatePicking
import Foundation
import Glibc
import ZoneReading

/// The system's time zone as the C library reads it (tzset(3)), through the one reader every
/// executable shares (``ZoneReading/ZoneReader/current(tz:localtime:)``): `TZ` when set (empty is
/// UTC), else the TZif file `/etc/localtime` (or the file `TIMERD_LOCALTIME` names, for tests).
enum SystemZone {
    /// The environment variable that moves the watched file away from `/etc/localtime` (an
    /// end-to-end test points it at a temporary file).
    static let pathVariable = "TIMERD_LOCALTIME"

    /// The file that holds the system zone.
    static func path(environment: [String: String]) -> String {
        environment[pathVariable].flatMap { $0.isEmpty ? nil : $0 } ?? "/etc/localtime"
    }

    /// The system zone, or UTC with a warning when it cannot be determined.
    ///
    /// - Parameters:
    ///   - tz: the daemon's `TZ` (`""` when set but empty), or `nil`.
    ///   - localtime: the TZif file to read when `TZ` is unset.
    /// - Returns: the zone, and why it is a guess (to log), or `nil`.
    static func detect(tz: String?, localtime: String) -> (zone: TimeZone, warning: String?) {
        ZoneReader.current(tz: tz, localtime: localtime)
    }
}

/// timerd's own `TZ` when it names an offset Foundation traps on (`GMT-05:-0`: `TimeZone.current`
/// would kill the daemon with SIGILL before it could say why). Reading this the first time replaces
/// such a `TZ` by `UTC` in the process environment, before anything asks Foundation for the current
/// zone, and keeps the original so that ``SystemZone/detect(tz:localtime:)`` warns about it; `nil`
/// when `TZ` is unset or harmless.
enum UnsafeTZ {
    static let original: String? = {
        guard let raw = getenv("TZ") else { return nil }
        let tz = String(cString: raw)
        let spec = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        guard !DatePicker.isSafeZoneIdentifier(spec) else { return nil }
        setenv("TZ", "UTC", 1)
        return tz
    }()
}
