import DatePicking
import Foundation
import Synchronization
import TimerProtocol
import TimerSystem

/// The one reader of time zones for every executable that needs a Foundation `TimeZone`: timerd
/// (its system zone, and the `timeZone` a client sends) and timerpick (the picker and
/// `timerctl calendar`). `timerctl` itself does not link it (it would load ICU); it sends the name
/// it finds (`LocalTimeZone`, the same order as ``current(tz:localtime:)``) and timerd reads it
/// with ``zone(named:)``.
///
/// The order is glibc's tzset(3) (docs/time.md, "Time zones: what libc reads").
public enum ZoneReader {
    /// Why a zone name was refused; ``description`` is the message shown to the user.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        /// The message, naming the zone and what is accepted instead.
        public var description: String
    }

    /// POSIX rule strings already matched to a database zone (reading the database takes ~50 ms).
    private static let footerMatches = Mutex<[String: String]>([:])

    /// The zone in effect for a process whose `TZ` is `tz`, as glibc's tzset(3) reads it:
    ///
    /// - `TZ` unset: the TZif file `localtime` (``zone(ofFile:)``);
    /// - `TZ` empty, or `:` alone: UTC (glibc's "empty string means UTC");
    /// - `:/path` or `/path`: that TZif file;
    /// - anything else, with a leading `:` dropped: ``zone(named:)``.
    ///
    /// When nothing can be read the zone is UTC and the warning says why.
    ///
    /// - Parameters:
    ///   - tz: the value of `TZ`, `""` when set but empty, `nil` when unset.
    ///   - localtime: the TZif file to read when `TZ` is unset (`/etc/localtime`).
    /// - Returns: the zone, and why it is a guess (to print or log), or `nil` when it was found.
    public static func current(tz: String?, localtime: String = "/etc/localtime") -> (
        zone: TimeZone, warning: String?
    ) {
        guard let tz else {
            if let zone = zone(ofFile: localtime) { return (zone, nil) }
            return (
                .gmt, "could not determine the system time zone from \(localtime); using UTC (set TZ to choose one)"
            )
        }
        if tz.isEmpty || tz == ":" { return (.gmt, nil) }
        let spec = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if spec.hasPrefix("/") {
            if let zone = zone(ofFile: spec) { return (zone, nil) }
            return (.gmt, "TZ=\"\(tz)\": \(spec) is not a readable time-zone file; using UTC")
        }
        if let named = try? zone(named: spec) { return (named.zone, nil) }
        return (.gmt, "TZ=\"\(tz)\" names no time zone this system knows; using UTC")
    }

    /// The zone of a TZif file: its link target's name, else the database zone with the same content,
    /// else the database zone whose POSIX footer it has; `nil` when none.
    ///
    /// - Parameter path: the file (`/etc/localtime`).
    /// - Returns: the zone, or `nil` when the file is missing, is not TZif, or matches no zone.
    public static func zone(ofFile path: String) -> TimeZone? {
        if let target = ZoneInfo.linkTarget(path), let name = ZoneInfo.name(fromPath: target),
            let zone = TimeZone(identifier: ZoneInfo.strippingTree(name))
        {
            return zone
        }
        guard let bytes = try? FileSystem.readAll(path, maximumBytes: 1 << 20), bytes.starts(with: Array("TZif".utf8))
        else { return nil }
        if let name = ZoneInfo.name(matchingContent: bytes), let zone = TimeZone(identifier: name) { return zone }
        if let footer = ZoneInfo.footer(of: bytes), let named = try? zone(named: footer) { return named.zone }
        return nil
    }

    /// The zone a name or `TZ` value (without its leading `:`) names, read the way glibc reads `TZ`
    /// (man tzset(3)): a file of the time-zone database first (`Europe/Paris`, `EST5EDT`,
    /// `posix/Europe/Paris`), else a POSIX `TZ` string with POSIX's sign (`UTC+3` is UTC−03:00;
    /// `<+0330>-3:30` is UTC+03:30), else a name Foundation's own database knows.
    ///
    /// A POSIX string with daylight saving (`CET-1CEST,M3.5.0,M10.5.0/3`) is the database zone whose
    /// TZif footer (RFC 8536) is that very rule: its offsets after its last transition, which covers
    /// every instant a timer can end at (the next 366 days), are the rule's.
    ///
    /// - Parameter name: the zone as given.
    /// - Returns: the zone, and the name to show for it (the one given, without a `posix/` or
    ///   `zoneinfo/` tree for a database name).
    /// - Throws: ``Refusal`` naming the zone and what is accepted.
    public static func zone(named name: String) throws(Refusal) -> (zone: TimeZone, name: String) {
        let unknown = Refusal(
            description: "unknown time zone \"\(name)\": use an IANA name such as Europe/Paris or UTC")
        let stripped = ZoneInfo.strippingTree(ZoneInfo.name(fromPath: name) ?? name)
        if ZoneInfo.hasZone(named: stripped), let zone = TimeZone(identifier: stripped) { return (zone, stripped) }
        if let rule = PosixTimeZoneRule(parsing: name) {
            guard rule.hasDaylightSaving else {
                guard let zone = TimeZone(secondsFromGMT: rule.standardOffsetSeconds) else { throw unknown }
                return (zone, name)
            }
            guard rule.rules != nil else {
                throw Refusal(
                    description: "POSIX time zone \"\(name)\" has daylight saving but no rules: add them, e.g. "
                        + "EST5EDT,M3.2.0,M11.1.0, or use an IANA name such as America/New_York")
            }
            let cached = footerMatches.withLock { $0[name] }
            if let match = cached ?? ZoneInfo.name(withFooter: name), let zone = TimeZone(identifier: match) {
                footerMatches.withLock { $0[name] = match }
                return (zone, name)
            }
            throw Refusal(
                description: "no zone of the time-zone database follows the POSIX rule \"\(name)\": use an IANA "
                    + "name such as Europe/Paris")
        }
        // Through DatePicker: it refuses names that make Foundation trap (`GMT-05:-0`) before asking it.
        if let zone = try? DatePicker.timeZone(identifier: stripped) { return (zone, stripped) }
        throw unknown
    }
}
