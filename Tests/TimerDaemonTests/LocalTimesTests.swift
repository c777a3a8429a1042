import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import TimerDaemon

/// The daemon's resolver for local `--at` times: DatePicking's rules, named zones, exact errors.
@Suite("timerd resolves local --at times")
struct LocalTimesTests {
    // 2026-11-29T09:00:00Z
    static let nine = Date(timeIntervalSince1970: 1_795_942_800)

    @Test("14:30 in Europe/Paris is its next occurrence, floored to the interval")
    func nextOccurrence() throws {
        let resolution = try LocalTimes.resolver("14:37", "Europe/Paris", 15, Self.nine)
        #expect(resolution.localTime == "2026-11-29T14:30:00+01:00")
        #expect(resolution.date == Self.nine.addingTimeInterval(4.5 * 3_600))  // 13:30Z
        #expect(resolution.adjustment == "exact")
        // 09:00 Paris (08:00Z) has passed at 09:00Z: tomorrow.
        #expect(try LocalTimes.resolver("09:00", "Europe/Paris", 1, Self.nine).localTime == "2026-11-30T09:00:00+01:00")
    }

    @Test("a wall time in the spring-forward gap moves forward by the gap; a repeated one is the first")
    func daylightSaving() throws {
        // 02:30 on 2027-03-14 does not exist in America/Los_Angeles (02:00 PST → 03:00 PDT).
        let gap = try LocalTimes.resolver("2027-03-14T02:30", "America/Los_Angeles", 1, Self.nine)
        #expect(gap.localTime == "2027-03-14T03:30:00-07:00")
        #expect(gap.adjustment == "moved forward 3600 s over a daylight-saving gap")
        // 01:30 on 2027-11-07 occurs twice there: the first is PDT (08:30Z).
        let repeated = try LocalTimes.resolver("2027-11-07T01:30", "America/Los_Angeles", 1, Self.nine)
        #expect(repeated.localTime == "2027-11-07T01:30:00-07:00")
        #expect(repeated.adjustment == "first of two occurrences (clocks go back)")
    }

    @Test("bad zones, dates and intervals get errors that say what is allowed")
    func errors() {
        #expect(
            throws: RPCError(
                .invalidParams, "unknown time zone \"Mars/Base\": use an IANA name such as Europe/Paris or UTC")
        ) { try LocalTimes.resolver("10:00", "Mars/Base", 1, Self.nine) }
        #expect(
            throws: RPCError(
                .invalidParams,
                "invalid local time \"2026-02-30T10:00\": use HH:MM[:SS] or YYYY-MM-DDTHH:MM[:SS], or an ISO 8601 "
                    + "date-time with Z or an offset (2026-12-01T09:00:00+01:00)")
        ) { try LocalTimes.resolver("2026-02-30T10:00", "UTC", 1, Self.nine) }
        #expect(
            throws: RPCError(
                .invalidParams,
                "minuteInterval must divide 60 and be 1 to 30 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30), got 7")
        ) { try LocalTimes.resolver("10:00", "UTC", 7, Self.nine) }
    }
}
