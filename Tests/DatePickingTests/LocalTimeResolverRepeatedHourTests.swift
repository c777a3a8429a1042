import Foundation
import TestSupport
import Testing

@testable import DatePicking

/// Fall-back, asked inside the repeated hour: the next occurrence of a time of day
/// includes the second occurrence of a repeated hour.
@Suite("LocalTimeResolver: a time of day asked inside a repeated hour")
struct LocalTimeResolverRepeatedHourTests {
    static let gregorian = Calendar(identifier: .gregorian)

    @Test("At 01:45 PDT on 2026-11-01 in Los Angeles, 01:30 is 01:30 PST 45 minutes later")
    func losAngeles() throws {
        // Clocks go back at 02:00 PDT (09:00Z) to 01:00 PST; 01:45 PDT is 08:45Z (tz database).
        let now = Date(timeIntervalSince1970: 1_793_522_700)  // 2026-11-01T08:45:00Z = 01:45 PDT
        let result = try LocalTimeResolver.resolve(
            "01:30", now: now, timeZone: Fixtures.zone("America/Los_Angeles"), calendar: Self.gregorian)
        #expect(result.date == Date(timeIntervalSince1970: 1_793_525_400))  // 2026-11-01T09:30:00Z = 01:30 PST
        #expect(result.date.timeIntervalSince(now) == 45 * 60)
        #expect(result.adjustment == .lastOfRepeated)
        #expect(result.localTime.day == 1)
    }

    @Test("At 02:59:40 CEST on 2026-10-25 in Paris, 02:00:10 is 02:00:10 CET 30 s later")
    func paris() throws {
        // Clocks go back at 03:00 CEST (01:00Z) to 02:00 CET (tz database).
        let now = Date(timeIntervalSince1970: 1_792_889_980)  // 2026-10-25T00:59:40Z = 02:59:40 CEST
        let result = try LocalTimeResolver.resolve(
            "02:00:10", now: now, timeZone: Fixtures.zone("Europe/Paris"), calendar: Self.gregorian)
        #expect(result.date == Date(timeIntervalSince1970: 1_792_890_010))  // 2026-10-25T01:00:10Z = 02:00:10 CET
        #expect(result.date.timeIntervalSince(now) == 30)
    }

    @Test("Before the repeated hour the first occurrence still wins (guard: the cases differ)")
    func beforeTheHour() throws {
        let now = Date(timeIntervalSince1970: 1_793_520_000)  // 2026-11-01T08:00:00Z = 01:00 PDT
        let result = try LocalTimeResolver.resolve(
            "01:30", now: now, timeZone: Fixtures.zone("America/Los_Angeles"), calendar: Self.gregorian)
        #expect(result.date == FixedInstant.fallBackFirst)  // 2026-11-01T08:30:00Z = 01:30 PDT
        #expect(result.adjustment == .firstOfRepeated)
        // After both occurrences (01:45 PST = 09:45Z) the next one is the next day's, 01:30 PST on Nov 2.
        let after = try LocalTimeResolver.resolve(
            "01:30", now: Date(timeIntervalSince1970: 1_793_526_300), timeZone: Fixtures.zone("America/Los_Angeles"),
            calendar: Self.gregorian)
        #expect(after.date == Date(timeIntervalSince1970: 1_793_611_800))  // 2026-11-02T09:30:00Z
    }
}
