import DatePicking
import Foundation
import Glibc
import TimerSystem

/// The system's time zone as the C library reads it (tzset(3)): `TZ` when set, else the TZif file
/// `/etc/localtime` (or the file `TIMERD_LOCALTIME` names, for tests), by its link target, else by
/// its content (a copied file, as in many container images), else by its POSIX footer.
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
    ///   - tz: the daemon's `TZ`, or `nil`.
    ///   - localtime: the TZif file to read when `TZ` is unset.
    /// - Returns: the zone, and why it is a guess (to log), or `nil`.
    static func detect(tz: String?, localtime: String) -> (zone: TimeZone, warning: String?) {
        if let tz, !tz.isEmpty, tz != ":" {
            let spec = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if spec.hasPrefix("/"), let zone = zone(ofFile: spec) { return (zone, nil) }
            if let named = try? LocalTimes.zone(named: spec) { return (named.zone, nil) }
            return (.gmt, "TZ=\"\(tz)\" names no time zone this system knows; using UTC")
        }
        if let zone = zone(ofFile: localtime) { return (zone, nil) }
        return (.gmt, "could not determine the system time zone from \(localtime); using UTC (set TZ to choose one)")
    }

    /// The zone of a TZif file: its link target's name, else the database zone with the same content,
    /// else the database zone whose POSIX footer it has; `nil` when none.
    static func zone(ofFile path: String) -> TimeZone? {
        if let target = ZoneInfo.linkTarget(path), let name = ZoneInfo.name(fromPath: target),
            let zone = TimeZone(identifier: ZoneInfo.strippingTree(name))
        {
            return zone
        }
        guard let bytes = try? FileSystem.readAll(path, maximumBytes: 1 << 20), bytes.starts(with: Array("TZif".utf8))
        else { return nil }
        if let name = ZoneInfo.name(matchingContent: bytes), let zone = TimeZone(identifier: name) { return zone }
        if let footer = ZoneInfo.footer(of: bytes), let named = try? LocalTimes.zone(named: footer) {
            return named.zone
        }
        return nil
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
