import TimerProtocol
import TimerSystem

/// The local time zone the way the C library finds it (man tzset(3), POSIX.1-2017 §8.3), named for
/// `timer.start`'s `timeZone` so that `timerd` (which may run with another environment) resolves a
/// local `--at` time in the zone the user's own programs use.
///
/// Order:
/// 1. `TZ` set: empty means UTC; `:path` or an absolute path is a TZif file (read as `/etc/localtime`
///    below); a name of the database (`Europe/Paris`, `EST5EDT`, `posix/Europe/Paris`, `:Europe/Paris`)
///    is that zone; otherwise a POSIX `TZ` string (`UTC+3`, which is UTC−03:00, `<+0330>-3:30`,
///    `CET-1CEST,M3.5.0,M10.5.0/3`) is sent as it is, for `timerd` to read with POSIX's sign.
/// 2. `/etc/localtime`: a link into the database (also `zoneinfo/posix/…`) names its zone; a copied
///    file (container images) is named by the zone listed in `/etc/timezone` when that file has the
///    same content, else by the first database file with the same content, else by the POSIX rule
///    in its TZif footer.
/// 3. `/etc/timezone`'s first line.
/// 4. UTC, with a warning: the zone could not be determined.
package struct LocalTimeZone: Equatable {
    /// The name to send: a database name or a POSIX `TZ` string.
    package var name: String
    /// Why the zone is a guess (shown on stderr), or `nil` when it was found.
    package var warning: String?

    /// A detected zone.
    ///
    /// - Parameters:
    ///   - name: a database name or a POSIX `TZ` string.
    ///   - warning: why it is a guess, or `nil`.
    package init(name: String, warning: String? = nil) {
        self.name = name
        self.warning = warning
    }

    /// Finds the zone.
    ///
    /// - Parameters:
    ///   - tz: the value of `TZ`, or `nil` when unset.
    ///   - localtime: the path of the system's zone file.
    ///   - timezoneFile: the path of the Debian-style zone name file.
    /// - Returns: the zone's name, and a warning when it fell back to UTC.
    package static func detect(
        tz: String?, localtime: String = "/etc/localtime", timezoneFile: String = "/etc/timezone"
    ) -> LocalTimeZone {
        if let tz {
            if tz.isEmpty || tz == ":" { return LocalTimeZone(name: "UTC") }
            let spec = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if spec.hasPrefix("/") {
                if let name = zone(ofFile: spec, timezoneFile: timezoneFile) { return LocalTimeZone(name: name) }
                return LocalTimeZone(
                    name: "UTC", warning: "TZ=\"\(tz)\": \(spec) is not a readable time-zone file; using UTC")
            }
            if ZoneInfo.hasZone(named: spec) { return LocalTimeZone(name: ZoneInfo.strippingTree(spec)) }
            if let name = ZoneInfo.name(fromPath: spec) { return LocalTimeZone(name: name) }
            // A POSIX string, or a name the daemon's database may know (it says so if not).
            return LocalTimeZone(name: spec)
        }
        if let name = zone(ofFile: localtime, timezoneFile: timezoneFile) { return LocalTimeZone(name: name) }
        if let name = firstLine(of: timezoneFile) { return LocalTimeZone(name: name) }
        return LocalTimeZone(
            name: "UTC",
            warning: "could not determine the local time zone (TZ is unset, \(localtime) names no zone, "
                + "\(timezoneFile) is missing); using UTC: set TZ, e.g. TZ=Europe/Paris")
    }

    /// The zone of a TZif file: its link target's name, else a database zone or the `/etc/timezone`
    /// zone with the same content, else its POSIX footer.
    static func zone(ofFile path: String, timezoneFile: String) -> String? {
        if let target = ZoneInfo.linkTarget(path), let name = ZoneInfo.name(fromPath: target) { return name }
        guard let bytes = try? FileSystem.readAll(path, maximumBytes: 1 << 20), bytes.starts(with: Array("TZif".utf8))
        else { return nil }
        if let listed = firstLine(of: timezoneFile), ZoneInfo.hasZone(named: listed),
            (try? FileSystem.readAll(ZoneInfo.directory + "/" + listed, maximumBytes: bytes.count)) == bytes
        {
            return listed
        }
        if let name = ZoneInfo.name(matchingContent: bytes) { return name }
        if let footer = ZoneInfo.footer(of: bytes), PosixTimeZoneRule(parsing: footer) != nil { return footer }
        return nil
    }

    /// The first line of a file, without whitespace (as glibc's fgets with 256 bytes reads it).
    static func firstLine(of path: String) -> String? {
        guard let bytes = try? FileSystem.readAll(path, maximumBytes: 255) else { return nil }
        let line = bytes.prefix(255).prefix { $0 != UInt8(ascii: "\n") && $0 != 0 }
        let trimmed = String(decoding: line, as: UTF8.self).filter { !$0.isWhitespace }
        return trimmed.isEmpty ? nil : trimmed
    }
}
