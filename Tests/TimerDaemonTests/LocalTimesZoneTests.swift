import Foundation
import Testing
import TimerProtocol

@testable import TimerDaemon

/// Time-zone detection, timerd's side: a `timeZone` is read as glibc reads `TZ`. Each
/// expected instant was checked with glibc's own reading: `TZ=… date -d @SECONDS`.
@Suite("timerd reads POSIX TZ strings with POSIX's sign")
struct LocalTimesZoneTests {
    /// 2026-11-27T14:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_795_788_000)

    @Test(
        "Fixed offsets, database names and DST rules give the right instant",
        arguments: [
            // TZ=UTC+3 date -d @1795788000 → 11:00-0300: three hours BEHIND UTC.
            ("12:00", "UTC+3", "2026-11-27T12:00:00-03:00", 1_795_791_600),
            // TZ='<+0330>-3:30' date -d @1795788000 → 17:30+0330.
            ("18:00", "<+0330>-3:30", "2026-11-27T18:00:00+03:30", 1_795_789_800),
            // EST5EDT is a database file: 09:00 EST today has just passed (14:00Z), so tomorrow's.
            ("09:00", "EST5EDT", "2026-11-28T09:00:00-05:00", 1_795_874_400),
            // The rule of Europe/Paris: 02:30 on 2026-03-29 is in the gap, moved forward to 03:30 CEST.
            ("2026-03-29T02:30", "CET-1CEST,M3.5.0,M10.5.0/3", "2026-03-29T03:30:00+02:00", 1_774_747_800),
            // TZ='CET-1CEST,M3.5.0,M10.5.0/3' date -d @1782900000 → 12:00+0200.
            ("2026-07-01T12:00", "CET-1CEST,M3.5.0,M10.5.0/3", "2026-07-01T12:00:00+02:00", 1_782_900_000),
            ("2026-07-01T12:00", "posix/Europe/Paris", "2026-07-01T12:00:00+02:00", 1_782_900_000),
        ])
    func zones(text: String, zone: String, localTime: String, seconds: Int) throws {
        let resolution = try LocalTimes.resolver(text, zone, 1, Self.now)
        #expect(resolution.localTime == localTime)
        #expect(resolution.date == Date(timeIntervalSince1970: Double(seconds)))
    }

    @Test("The zone is shown as sent")
    func shownAsSent() throws {
        #expect(try LocalTimes.resolver("12:00", "UTC+3", 1, Self.now).timeZone == "UTC+3")
        #expect(try LocalTimes.resolver("12:00", "posix/Europe/Paris", 1, Self.now).timeZone == "Europe/Paris")
    }

    @Test("A DST name without rules, and rules no zone follows, are refused with what to use instead")
    func refused() {
        #expect(
            throws: RPCError(
                .invalidParams,
                "POSIX time zone \"CET-1CEST\" has daylight saving but no rules: add them, e.g. "
                    + "EST5EDT,M3.2.0,M11.1.0, or use an IANA name such as America/New_York")
        ) { try LocalTimes.resolver("12:00", "CET-1CEST", 1, Self.now) }
        #expect(
            throws: RPCError(
                .invalidParams,
                "no zone of the time-zone database follows the POSIX rule \"ABC-2XYZ,M4.1.0,M9.5.0\": use an IANA "
                    + "name such as Europe/Paris")
        ) { try LocalTimes.resolver("12:00", "ABC-2XYZ,M4.1.0,M9.5.0", 1, Self.now) }
    }

    @Test("A zone name that made Foundation trap is refused as unknown, and the daemon lives (calendar fuzz target)")
    func foundationTrap() {
        // `TZ='GMT-05:-0' timerctl start --at 10:00` killed timerd with SIGILL at 521fbaa: Foundation's
        // GMT-offset reader traps on a minute character below "0". The message is LocalTimes.zone's own.
        for name in ["GMT-05:-0", "UTC-05:/0", "GMT-05:.0"] {
            #expect(
                throws: RPCError(
                    .invalidParams, "unknown time zone \"\(name)\": use an IANA name such as Europe/Paris or UTC")
            ) { try LocalTimes.resolver("10:00", name, 1, Self.now) }
        }
    }

    /// glibc's tzset(3): "If TZ is set but empty, UTC is used" (also `TZ=:`, whose name after the colon
    /// is empty; `TZ= date` and `TZ=: date` print UTC). The daemon read both as unset and took its
    /// system zone (here Asia/Tokyo, through `localtime`).
    @Test("TZ set but empty (or a lone colon) is UTC, not the system zone")
    func emptyTZ() {
        for tz in ["", ":"] {
            let detected = SystemZone.detect(tz: tz, localtime: "/usr/share/zoneinfo/Asia/Tokyo")
            #expect(detected.zone.secondsFromGMT(for: Self.now) == 0 && detected.warning == nil, "TZ='\(tz)'")
        }
        #expect(SystemZone.detect(tz: nil, localtime: "/usr/share/zoneinfo/Asia/Tokyo").zone.identifier == "Asia/Tokyo")
        #expect(SystemZone.detect(tz: ":Europe/Paris", localtime: "/nonexistent").zone.identifier == "Europe/Paris")
    }
}
