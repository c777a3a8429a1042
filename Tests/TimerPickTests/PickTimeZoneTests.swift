import Foundation
import Testing

@testable import timerpick

/// The picker reads the zone as timerctl and timerd do, and its --min/--max take the richer
/// one-shot forms. Expected instants computed with Python's zoneinfo and glibc's `TZ=… date`.
@Suite("timerctl pick: zone and one-shot forms as for start --at")
struct PickTimeZoneTests {
    /// 2026-11-27T14:00:00Z, a Friday.
    static let now = Date(timeIntervalSince1970: 1_795_788_000)

    @Test("TZ=UTC+3 is UTC-03:00 (POSIX), not Foundation's UTC+03:00")
    func posixSign() {
        #expect(PickTimeZone.current(tz: "UTC+3").zone.secondsFromGMT(for: Self.now) == -10_800)
        #expect(PickTimeZone.current(tz: "<+0330>-3:30").zone.secondsFromGMT(for: Self.now) == 12_600)
        #expect(PickTimeZone.current(tz: ":Europe/Paris").zone.identifier == "Europe/Paris")
        // 2026-07-01T10:00:00Z is 12:00 CEST under the rule of Europe/Paris.
        let rule = PickTimeZone.current(tz: "CET-1CEST,M3.5.0,M10.5.0/3").zone
        #expect(rule.secondsFromGMT(for: Date(timeIntervalSince1970: 1_782_900_000)) == 7_200)
    }

    @Test("--min/--max read tomorrow 09:00, fri 17:00 and +25m")
    func forms() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        #expect(
            try PickOptions.instant("tomorrow 09:00", now: Self.now, timeZone: paris)
                == Date(timeIntervalSince1970: 1_795_852_800))  // 2026-11-28T09:00:00+01:00
        #expect(
            try PickOptions.instant("fri 17:00", now: Self.now, timeZone: paris)
                == Date(timeIntervalSince1970: 1_795_795_200))  // 2026-11-27T17:00:00+01:00
        #expect(
            try PickOptions.instant("+25m", now: Self.now, timeZone: paris)
                == Date(timeIntervalSince1970: 1_795_789_500))  // 14:25Z
    }
}
