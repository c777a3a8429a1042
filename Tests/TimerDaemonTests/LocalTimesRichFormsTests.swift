import Foundation
import Testing
import TimerProtocol

@testable import TimerDaemon

/// Richer one-shot times: the forms timerd resolves for `--at`, with exact instants in
/// named zones. Expected instants were computed independently with Python's zoneinfo (tz database).
@Suite("timerd resolves 2:30pm, tomorrow 09:00, fri 17:00, +25m, noon, 2026-12-31 and next monday 9:00")
struct LocalTimesRichFormsTests {
    /// 2026-11-27T14:00:00Z, a Friday: 15:00 CET in Europe/Paris.
    static let fridayAfternoon = Date(timeIntervalSince1970: 1_795_788_000)

    @Test(
        "Each form in Europe/Paris, asked on Friday 2026-11-27 at 15:00 CET",
        arguments: [
            ("2:30pm", "2026-11-28T14:30:00+01:00", 1_795_872_600),  // passed today: tomorrow
            ("2:30 PM", "2026-11-28T14:30:00+01:00", 1_795_872_600),
            ("14:30", "2026-11-28T14:30:00+01:00", 1_795_872_600),
            ("tomorrow 09:00", "2026-11-28T09:00:00+01:00", 1_795_852_800),
            ("Tomorrow 9am", "2026-11-28T09:00:00+01:00", 1_795_852_800),
            ("fri 17:00", "2026-11-27T17:00:00+01:00", 1_795_795_200),  // today, still ahead
            ("friday 2pm", "2026-12-04T14:00:00+01:00", 1_796_389_200),  // today's has passed: next week
            ("12am", "2026-11-28T00:00:00+01:00", 1_795_820_400),
            ("12pm", "2026-11-28T12:00:00+01:00", 1_795_863_600),
            ("today 17:00", "2026-11-27T17:00:00+01:00", 1_795_795_200),
            ("now + 25 minutes", "2026-11-27T15:25:00+01:00", 1_795_789_500),
            ("+25m", "2026-11-27T15:25:00+01:00", 1_795_789_500),
            ("now+1h", "2026-11-27T16:00:00+01:00", 1_795_791_600),
            ("2026-12-01 09:00", "2026-12-01T09:00:00+01:00", 1_796_112_000),  // today's forms still work
            // at(1)'s words: noon and midnight (next occurrence), a day after the time, a date alone
            // (its midnight), "next" and a weekday (never today: on this Friday, next fri is a week on).
            ("noon", "2026-11-28T12:00:00+01:00", 1_795_863_600),
            ("midnight", "2026-11-28T00:00:00+01:00", 1_795_820_400),
            ("tomorrow noon", "2026-11-28T12:00:00+01:00", 1_795_863_600),
            ("09:00 tomorrow", "2026-11-28T09:00:00+01:00", 1_795_852_800),
            ("noon tomorrow", "2026-11-28T12:00:00+01:00", 1_795_863_600),
            ("2026-12-31", "2026-12-31T00:00:00+01:00", 1_798_671_600),
            ("next monday 9:00", "2026-11-30T09:00:00+01:00", 1_796_025_600),
            ("Next Mon 9am", "2026-11-30T09:00:00+01:00", 1_796_025_600),
            ("9:00 next monday", "2026-11-30T09:00:00+01:00", 1_796_025_600),
            ("next fri 17:00", "2026-12-04T17:00:00+01:00", 1_796_400_000),
            ("fri 17:00", "2026-11-27T17:00:00+01:00", 1_795_795_200),  // without "next": today, still ahead
        ])
    func forms(text: String, localTime: String, seconds: Int) throws {
        let resolution = try LocalTimes.resolver(text, "Europe/Paris", 1, Self.fridayAfternoon)
        #expect(resolution.localTime == localTime)
        #expect(resolution.date == Date(timeIntervalSince1970: Double(seconds)))
    }

    @Test("Daylight saving with a day: tomorrow 02:30 in a gap moves forward; sun 01:30 inside the repeat")
    func daylightSaving() throws {
        // 2026-03-07T20:00:00Z = 12:00 PST on Saturday; 02:30 on Sunday 2026-03-08 does not exist.
        let saturday = Date(timeIntervalSince1970: 1_772_913_600)
        let gap = try LocalTimes.resolver("tomorrow 02:30", "America/Los_Angeles", 1, saturday)
        #expect(gap.localTime == "2026-03-08T03:30:00-07:00")  // 10:30Z
        #expect(gap.adjustment == "moved forward 3600 s over a daylight-saving gap")
        // 2026-11-01T08:45:00Z = 01:45 PDT on Sunday: 01:30 PST (09:30Z) is still ahead today.
        let inside = try LocalTimes.resolver(
            "sun 1:30am", "America/Los_Angeles", 1, Date(timeIntervalSince1970: 1_793_522_700))
        #expect(inside.date == Date(timeIntervalSince1970: 1_793_525_400))
        #expect(inside.localTime == "2026-11-01T01:30:00-08:00")
    }

    @Test(
        "Bad input says what is wrong and what is allowed",
        arguments: [
            ("fri", "a day needs a time (fri 17:00)"),
            ("now", "\"now\" has passed: add a span (now + 25 minutes)"),
            ("now - 5m", "expected + after now"),
            (
                "+25x",
                "the span \"25x\" is not a duration (invalid duration \"25x\": use a number with units (90s, 25m, 1h30m, 1.5h, \"1h 30min\"), H:MM[:SS] (01:30:00) or ISO 8601 (PT1H30M))"
            ),
            ("13pm", "not a time"),
            ("tomorrow tea", "\"tea\" is not a time of day"),
            ("14", "not a time"),
            ("next 9:00", "\"next\" needs a weekday (next monday 9:00)"),
            ("next monday", "a day needs a time (next monday 17:00)"),
            ("2026-02-30", "that date does not exist"),
        ])
    func badInput(text: String, reason: String) {
        #expect(
            throws: RPCError(.invalidParams, "invalid time \"\(text)\": \(reason); \(OneShotTimeText.accepted)")
        ) { try LocalTimes.resolver(text, "Europe/Paris", 1, Self.fridayAfternoon) }
    }
}
