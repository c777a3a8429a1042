import Foundation
import Testing

@testable import TimerControl

/// Time-zone detection: timerctl reads what libc reads (man tzset(3)). Each case makes its
/// own files in a temporary directory; the database is this machine's /usr/share/zoneinfo.
@Suite("timerctl finds the local time zone the way libc does")
struct LocalTimeZoneTests {
    static let paris = "/usr/share/zoneinfo/Europe/Paris"

    /// A fresh directory, removed by the caller.
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test(
        "TZ: empty, names, :names, posix/ names and POSIX strings",
        arguments: [
            ("", "UTC"),  // POSIX: an empty TZ is UTC
            (":", "UTC"),
            ("Europe/Paris", "Europe/Paris"),
            (":Europe/Paris", "Europe/Paris"),
            ("posix/Europe/Paris", "Europe/Paris"),
            ("EST5EDT", "EST5EDT"),  // a file of the database, as glibc reads it first
            ("UTC+3", "UTC+3"),  // a POSIX string, sent as is for timerd to read with POSIX's sign
            ("<+0330>-3:30", "<+0330>-3:30"),
            ("CET-1CEST,M3.5.0,M10.5.0/3", "CET-1CEST,M3.5.0,M10.5.0/3"),
        ])
    func fromTZ(tz: String, expected: String) {
        let zone = LocalTimeZone.detect(tz: tz, localtime: "/nonexistent/localtime", timezoneFile: "/nonexistent/tz")
        #expect(zone == LocalTimeZone(name: expected, warning: nil))
    }

    @Test("A copied /etc/localtime is named by /etc/timezone when that zone has the same content")
    func copiedWithTimezoneFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let localtime = directory.appendingPathComponent("localtime")
        try FileManager.default.copyItem(atPath: Self.paris, toPath: localtime.path)
        let timezone = directory.appendingPathComponent("timezone")
        try Data("Europe/Paris\n".utf8).write(to: timezone)
        #expect(
            LocalTimeZone.detect(tz: nil, localtime: localtime.path, timezoneFile: timezone.path).name == "Europe/Paris"
        )
        // TZ=:/path reads the same file.
        #expect(
            LocalTimeZone.detect(tz: ":" + localtime.path, localtime: "/nonexistent", timezoneFile: timezone.path).name
                == "Europe/Paris")
    }

    @Test("A copied /etc/localtime without /etc/timezone is named by a database file with the same bytes")
    func copiedByContent() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let localtime = directory.appendingPathComponent("localtime")
        try FileManager.default.copyItem(atPath: Self.paris, toPath: localtime.path)
        let zone = LocalTimeZone.detect(tz: nil, localtime: localtime.path, timezoneFile: "/nonexistent")
        #expect(zone.warning == nil)
        // Whichever name comes first, its file has exactly Paris's bytes (on this machine: Europe/Paris).
        let named = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + zone.name))
        #expect(named == (try Data(contentsOf: URL(fileURLWithPath: Self.paris))))
    }

    @Test("A TZif file no database file matches gives the POSIX rule of its footer")
    func footerOfUnknownFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.paris)))
        bytes[60] ^= 0x01  // inside the version-1 data: no longer any zone's file, same footer
        let localtime = directory.appendingPathComponent("localtime")
        try Data(bytes).write(to: localtime)
        let zone = LocalTimeZone.detect(tz: nil, localtime: localtime.path, timezoneFile: "/nonexistent")
        #expect(zone == LocalTimeZone(name: "CET-1CEST,M3.5.0,M10.5.0/3", warning: nil))
    }

    @Test("A link into zoneinfo/posix/ names the zone in the main tree")
    func posixLink() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let localtime = directory.appendingPathComponent("localtime")
        try FileManager.default.createSymbolicLink(
            atPath: localtime.path, withDestinationPath: "/usr/share/zoneinfo/posix/Asia/Tokyo")
        #expect(
            LocalTimeZone.detect(tz: nil, localtime: localtime.path, timezoneFile: "/nonexistent").name == "Asia/Tokyo")
    }

    @Test("Nothing to go on: UTC, with a warning that says what to set")
    func undetermined() {
        let zone = LocalTimeZone.detect(tz: nil, localtime: "/nonexistent/localtime", timezoneFile: "/nonexistent/tz")
        #expect(
            zone
                == LocalTimeZone(
                    name: "UTC",
                    warning: "could not determine the local time zone (TZ is unset, /nonexistent/localtime names no "
                        + "zone, /nonexistent/tz is missing); using UTC: set TZ, e.g. TZ=Europe/Paris"))
        #expect(
            LocalTimeZone.detect(tz: ":/nonexistent/zone").warning
                == "TZ=\":/nonexistent/zone\": /nonexistent/zone is not a readable time-zone file; using UTC")
    }
}
