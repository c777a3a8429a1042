import Glibc

/// The time-zone database on disk (`/usr/share/zoneinfo`, or `$TZDIR` as glibc reads it): naming a
/// zone from a link target or from a file's content, and reading a TZif file's POSIX footer.
///
/// TZif is RFC 8536: a version 2+ file ends with a newline, a POSIX `TZ` string for the instants
/// after its last transition, and a newline (`…\nCET-1CEST,M3.5.0,M10.5.0/3\n`).
public enum ZoneInfo {
    /// The database directory: `$TZDIR` when set (man tzset(3)), else `/usr/share/zoneinfo`.
    public static var directory: String {
        ProcessEnvironment.value("TZDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
    }

    /// `Europe/Paris` from `/usr/share/zoneinfo/Europe/Paris`, `../usr/share/zoneinfo/posix/Europe/Paris`
    /// or `zoneinfo/right/Europe/Paris` (the `posix/` and `right/` trees hold the same zones); `nil`
    /// for a path without `zoneinfo/`.
    ///
    /// - Parameter path: a path, e.g. the target of `/etc/localtime`.
    /// - Returns: the zone's name, or `nil`.
    public static func name(fromPath path: String) -> String? {
        let parts = path.split(separator: "zoneinfo/", omittingEmptySubsequences: false)
        guard parts.count >= 2, let last = parts.last, !last.isEmpty else { return nil }
        return strippingTree(String(last))
    }

    /// The name without a leading `posix/` or `right/` (`posix/Europe/Paris` is `Europe/Paris`).
    ///
    /// - Parameter name: a database name.
    /// - Returns: the name in the main tree.
    public static func strippingTree(_ name: String) -> String {
        for tree in ["posix/", "right/"] where name.hasPrefix(tree) { return String(name.dropFirst(tree.count)) }
        return name
    }

    /// The target of a symbolic link, or `nil` when `path` is not one.
    ///
    /// - Parameter path: the link.
    /// - Returns: its target as stored.
    public static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `name` (e.g. `EST5EDT`, `Europe/Paris`) is a regular file of the database.
    ///
    /// - Parameter name: a relative name; one with a `..` component is never a database file.
    /// - Returns: `true` when `directory/name` is a regular file.
    public static func hasZone(named name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.split(separator: "/").contains("..") else { return false }
        var info = stat()
        return stat(directory + "/" + name, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The POSIX `TZ` footer of TZif data (version 2 or later), or `nil`.
    ///
    /// - Parameter bytes: a TZif file's content.
    /// - Returns: e.g. `CET-1CEST,M3.5.0,M10.5.0/3`; `nil` for version 1 data or an empty footer.
    public static func footer(of bytes: [UInt8]) -> String? {
        guard bytes.count > 6, bytes.starts(with: Array("TZif".utf8)), bytes[4] >= UInt8(ascii: "2"),
            bytes.last == UInt8(ascii: "\n")
        else { return nil }
        let body = bytes.dropLast()
        guard let start = body.lastIndex(of: UInt8(ascii: "\n")) else { return nil }
        let footer = body[(start + 1)...]
        guard !footer.isEmpty, footer.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
        return String(decoding: footer, as: UTF8.self)
    }

    /// The zone whose file has exactly `bytes` as content (a copied `/etc/localtime`), preferring the
    /// first name in sorted order outside `posix/` and `right/`; `nil` when none has.
    ///
    /// - Parameter bytes: the content to match.
    /// - Returns: the zone's name.
    /// - Complexity: one `stat` per database file (about 1,800) and a read of each file of the same
    ///   size; a few milliseconds.
    public static func name(matchingContent bytes: [UInt8]) -> String? {
        zoneFiles().first { path in
            var info = stat()
            guard stat(directory + "/" + path, &info) == 0, Int(info.st_size) == bytes.count else { return false }
            return (try? FileSystem.readAll(directory + "/" + path, maximumBytes: bytes.count)) == bytes
        }
    }

    /// The zone whose TZif footer is exactly `rule` (its rules from its last transition on), or `nil`.
    ///
    /// - Parameter rule: a POSIX `TZ` string such as `CET-1CEST,M3.5.0,M10.5.0/3`.
    /// - Returns: the first such zone in sorted order (Europe/Andorra for that rule, whose offsets
    ///   after 1985 are those of the rule).
    /// - Complexity: reads every database file (about 1,800, 5 MB); call it once per rule and keep the answer.
    public static func name(withFooter rule: String) -> String? {
        zoneFiles().first { path in
            guard let bytes = try? FileSystem.readAll(directory + "/" + path, maximumBytes: 1 << 20) else {
                return false
            }
            return footer(of: bytes) == rule
        }
    }

    /// The database's zone files, relative names sorted, without the `posix/` and `right/` trees and
    /// the non-zone files (`*.tab`, `tzdata.zi`, `leapseconds`, `posixrules`, `localtime`, …).
    static func zoneFiles() -> [String] {
        var names: [String] = []
        func walk(_ relative: String, depth: Int) {
            guard depth < 4, let handle = opendir(relative.isEmpty ? directory : directory + "/" + relative) else {
                return
            }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard !name.hasPrefix("."), !name.contains(".") || name.hasPrefix("GMT") else { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                if relative.isEmpty, ["posix", "right", "posixrules", "localtime", "Factory"].contains(name) {
                    continue
                }
                if ["leapseconds", "leap-seconds.list", "SECURITY"].contains(name) { continue }
                var info = stat()
                guard stat(directory + "/" + path, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    walk(path, depth: depth + 1)
                } else if (info.st_mode & S_IFMT) == S_IFREG {
                    names.append(path)
                }
            }
        }
        walk("", depth: 0)
        return names.sorted()
    }
}
