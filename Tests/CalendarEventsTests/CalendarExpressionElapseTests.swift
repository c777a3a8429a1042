import Foundation
import Testing

@testable import CalendarEvents

@Suite("Calendar expressions: next elapses")
struct CalendarExpressionElapseTests {
    private func zone(_ identifier: String) throws -> TimeZone { try #require(TimeZone(identifier: identifier)) }

    private func elapses(_ text: String, zone identifier: String, after base: Int, count: Int = 3) throws -> [Int] {
        try CalendarExpression.parse(text)
            .elapses(after: Date(timeIntervalSince1970: Double(base)), defaultZone: zone(identifier), count: count)
            .map { Int($0.timeIntervalSince1970.rounded(.down)) }
    }

    /// Expected instants: the "(in UTC)" lines of `TZ=ZONE systemd-analyze calendar --iterations=3
    /// --base-time=@BASE 'EXPR'` (systemd 252, this machine), converted to seconds since the epoch.
    @Test(
        "each syntax feature elapses where systemd-analyze says",
        arguments: [
            // Weekdays: 2026-12-04T12:00:00Z is a Friday; Paris is UTC+1 in December.
            ("Mon..Fri 07:00", "Europe/Paris", 1_796_385_600, [1_796_623_200, 1_796_709_600, 1_796_796_000]),
            // Leap day: from 2026-03-01T00:00:00Z, the next 29 Februaries.
            ("*-02-29", "UTC", 1_772_323_200, [1_835_395_200, 1_961_625_600, 2_087_856_000]),
            // `~01` in February is its last day: 2028-02-29, 2029-02-28, 2030-02-28 (from 2027-12-31).
            ("*-02~01", "UTC", 1_830_211_200, [1_835_395_200, 1_866_931_200, 1_898_467_200]),
            // Every month's last day: 2028-01-31, 2028-02-29, 2028-03-31.
            ("*-*~01", "UTC", 1_830_211_200, [1_832_889_600, 1_835_395_200, 1_838_073_600]),
            // The last Monday of May (systemd.time(7)'s example): 2026-05-25, 2027-05-31, 2028-05-29.
            ("Mon *-05~07/1", "UTC", 1_774_612_800, [1_779_667_200, 1_811_721_600, 1_843_171_200]),
            // The last second of 31-day months: 2026-03-31, 05-31, 07-31 at 23:59:59.
            ("*-*-31 23:59:59", "UTC", 1_774_612_800, [1_775_001_599, 1_780_271_999, 1_785_542_399]),
            // Repetition in hours on weekends, from Friday 2026-03-27T12:00:00Z.
            ("Sat,Sun 8..18/2:00", "UTC", 1_774_612_800, [1_774_684_800, 1_774_692_000, 1_774_699_200]),
            // Quarterly in Kolkata (UTC+05:30): 2026-04-01, 07-01, 10-01 at 00:00 IST.
            ("quarterly", "Asia/Kolkata", 1_774_612_800, [1_774_981_800, 1_782_844_200, 1_790_793_000]),
            // A trailing zone wins over the default zone.
            ("*:0/15 Asia/Kolkata", "Pacific/Apia", 1_774_612_800, [1_774_613_700, 1_774_614_600, 1_774_615_500]),
            // Fall back in New York: 01:30 EDT on 2026-11-01 only (first occurrence, 05:30Z), then 01:30 EST.
            ("*-*-* 01:30", "America/New_York", 1_793_419_200, [1_793_424_600, 1_793_511_000, 1_793_601_000]),
            ("*-*-* 01:30", "America/New_York", 1_793_426_400, [1_793_511_000, 1_793_601_000, 1_793_687_400]),
        ])
    func matchesSystemd(_ text: String, _ zone: String, _ base: Int, _ expected: [Int]) throws {
        #expect(try elapses(text, zone: zone, after: base) == expected)
    }

    @Test("seconds with fractions elapse to the microsecond")
    func fractions() throws {
        // 2026-03-27T12:00:00Z; 12:00:01.5 is 1.5 s later (systemd prints it truncated, 12:00:01).
        let expression = try CalendarExpression.parse("12:00:01.5")
        let next = expression.nextElapse(
            after: Date(timeIntervalSince1970: 1_774_612_800), defaultZone: try zone("UTC"))
        #expect(next == Date(timeIntervalSince1970: 1_774_612_801.5))
        // Every half second: 00.5, 01.0, 01.5 after 12:00:00.
        let halves = try CalendarExpression.parse("*:*:0/0.5")
            .elapses(after: Date(timeIntervalSince1970: 1_774_612_800), defaultZone: zone("UTC"), count: 3)
        #expect(halves.map(\.timeIntervalSince1970) == [1_774_612_800.5, 1_774_612_801, 1_774_612_801.5])
    }

    /// A recurring timer asks for the next elapse after the one that just fired: that must never be the same
    /// instant again, even when the elapse has a fraction that a Double cannot hold exactly.
    @Test("the elapse after an elapse is a later one (fractional seconds included)")
    func neverTheSameElapseTwice() throws {
        let utc = try zone("UTC")
        for text in ["*:*:0/0.123457", "*:*:1.1234567", "*:*:0/0.000001", "*:*:59.999999"] {
            let expression = try CalendarExpression.parse(text)
            var previous = Date(timeIntervalSince1970: 1_774_612_800.000_000_3)  // 2026-03-27T12:00:00.0000003Z
            for _ in 0..<200 {
                let next = try #require(expression.nextElapse(after: previous, defaultZone: utc))
                #expect(next > previous, "\(text) after \(previous.timeIntervalSince1970)")
                previous = next
            }
        }
        // After 2038 (2^31 s) `Double(m) / 1e6 * 1e6` is often a hair below m: 2038-01-19T03:26:53.213905Z is
        // such an instant (found by searching m for floor(m / 1e6 * 1e6) < m). Flooring it again would give the
        // same elapse twice.
        let late = try CalendarExpression.parse("*:*:53.213905")
        let lateFirst = try #require(
            late.nextElapse(after: Date(timeIntervalSince1970: 2_147_484_360), defaultZone: utc))
        #expect(abs(lateFirst.timeIntervalSince1970 - 2_147_484_413.213_905) < 1e-6)
        let lateSecond = try #require(late.nextElapse(after: lateFirst, defaultZone: utc))
        #expect(abs(lateSecond.timeIntervalSince1970 - 2_147_484_473.213_905) < 1e-6)
        // 12:00:01.123457 (systemd rounds the seventh digit): the elapse after it is the next day's.
        let once = try CalendarExpression.parse("12:00:01.1234567")
        let first = try #require(once.nextElapse(after: Date(timeIntervalSince1970: 1_774_612_800), defaultZone: utc))
        #expect(abs(first.timeIntervalSince1970 - 1_774_612_801.123_457) < 1e-6)
        let second = try #require(once.nextElapse(after: first, defaultZone: utc))
        #expect(abs(second.timeIntervalSince1970 - 1_774_699_201.123_457) < 1e-6)
    }

    /// Every microsecond, around Paris's 2026 transitions: each answer in a few steps (no walk through an hour
    /// of microseconds), by the policy. Expected instants: the rules of the policy tests above.
    @Test("an every-microsecond expression at a gap and in a repeated hour answers at once")
    func everyMicrosecondAtTransitions() throws {
        let expression = try CalendarExpression.parse("*:*:0/0.000001")
        let paris = try zone("Europe/Paris")
        func next(_ seconds: Double) -> Double? {
            expression.nextElapse(after: Date(timeIntervalSince1970: seconds), defaultZone: paris)?
                .timeIntervalSince1970
        }
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            // 01:59:59.999999 CET on 2026-03-29: 02:00:00 is skipped and moved to 03:00 CEST = 01:00:00Z.
            #expect(next(1_774_745_999.999_999).map { abs($0 - 1_774_746_000) < 1e-7 } == true)
            // 03:00:00 CEST (01:00:00Z) itself: the next microsecond.
            #expect(next(1_774_746_000).map { abs($0 - 1_774_746_000.000_001) < 1e-7 } == true)
            // 02:10 CET on 2026-10-25 (01:10Z), inside the repeated hour: every wall-clock time up to 03:00 has
            // had its first occurrence, so the next is 03:00:00 CET = 02:00:00Z.
            #expect(next(1_792_890_600) == 1_792_893_600)
        }
        #expect(elapsed < .seconds(1))
    }

    @Test("midnight and 23:59:59 edges: the day rolls over once, 24:00 is refused")
    func midnight() throws {
        // From 2026-12-31T23:59:59Z: 00:00:00 of 2027-01-01 (1_798_761_600), then the next day's.
        #expect(
            try elapses("00:00:00", zone: "UTC", after: 1_798_761_599) == [1_798_761_600, 1_798_848_000, 1_798_934_400])
        // 23:59:59 and 00:00:00 in one list: one second apart across the midnight, never twice.
        #expect(try elapses("23:59:59", zone: "UTC", after: 1_798_761_598, count: 2) == [1_798_761_599, 1_798_847_999])
        #expect(
            try elapses("23,0:59,0:59,0", zone: "UTC", after: 1_798_761_598, count: 3)
                == [1_798_761_599, 1_798_761_600, 1_798_761_659])
        #expect(throws: CalendarExpressionError.valueOutOfRange(offset: 0, token: "24", field: .hour)) {
            try CalendarExpression.parse("24:00")
        }
    }

    @Test("never: a past date, 30 February, nothing before 2200")
    func never() throws {
        #expect(try elapses("2003-03-05 05:40", zone: "UTC", after: 1_774_612_800).isEmpty)
        #expect(try elapses("*-02-30", zone: "UTC", after: 1_774_612_800).isEmpty)
        // 2199-12-31T23:59:59Z and later: systemd's last year is 2199.
        #expect(try elapses("2199-12-31 23:59:59", zone: "UTC", after: 7_258_118_399).isEmpty)
    }

    /// timerd's policy (docs/calendar.md): a wall-clock time skipped by a spring-forward gap still elapses
    /// once, moved forward by the gap's length, like a one-shot `--at` time. Expected instants are the local
    /// time read with the offset before the gap.
    @Test(
        "a time in a DST gap elapses once, moved forward by the gap",
        arguments: [
            // 2026-03-29 02:30 does not exist in Paris (02:00 CET -> 03:00 CEST): 03:30 CEST = 01:30Z.
            ("*-*-* 02:30", "Europe/Paris", 1_774_699_200, [1_774_747_800, 1_774_830_600, 1_774_917_000]),
            // 2026-03-08 02:30 in New York (02:00 EST -> 03:00 EDT): 03:30 EDT = 07:30Z.
            ("*-*-* 02:30", "America/New_York", 1_772_928_000, [1_772_955_000, 1_773_037_800, 1_773_124_200]),
            // 2026-10-04 02:15 on Lord Howe Island (30-minute gap, +10:30 -> +11:00): 02:45 = 2026-10-03T15:45Z.
            ("02:15", "Australia/Lord_Howe", 1_791_032_400, [1_791_042_300, 1_791_126_900, 1_791_213_300]),
            // Samoa skipped 2011-12-30 (-10:00 -> +14:00, a 24-hour gap): its 12:00 moved 24 h is the real
            // 2011-12-31 12:00, one elapse (systemd-analyze prints the same three instants here).
            ("12:00", "Pacific/Apia", 1_325_116_800, [1_325_196_000, 1_325_282_400, 1_325_368_800]),
            // Paris, every 20 minutes across the gap: the moved 02:00/02:20/02:40 are the real 03:00/03:20/03:40.
            ("*:0/20", "Europe/Paris", 1_774_744_800, [1_774_746_000, 1_774_747_200, 1_774_748_400]),
        ])
    func gapPolicy(_ text: String, _ zone: String, _ base: Int, _ expected: [Int]) throws {
        #expect(try elapses(text, zone: zone, after: base) == expected)
    }

    /// Guard: the gap policy really differs from systemd, which skips the day (`TZ=Europe/Paris systemd-analyze
    /// calendar --base-time=@1774699200 '*-*-* 02:30'` prints 2026-03-30 00:30:00 UTC first), so the policy
    /// tests above cannot pass by accident.
    @Test("guard: systemd skips the gap day; timerd does not")
    func gapPolicyDiffersFromSystemd() throws {
        let systemdFirst = 1_774_830_600  // 2026-03-30T00:30:00Z, from systemd-analyze
        let first = try elapses("*-*-* 02:30", zone: "Europe/Paris", after: 1_774_699_200, count: 1)
        #expect(first != [systemdFirst])
        #expect(first[0] < systemdFirst)
    }

    /// Fall back: a repeated wall-clock time elapses at its first occurrence only. Paris 2026-10-25 repeats
    /// 02:00–02:59 (CEST, then CET); `*:0/20` elapses at 02:20 and 02:40 CEST, then 03:00 CET, as
    /// `TZ=Europe/Paris systemd-analyze calendar --base-time=@1792886400 '*:0/20'` prints.
    @Test("a repeated time elapses once, at its first occurrence")
    func overlapPolicy() throws {
        #expect(
            try elapses("*:0/20", zone: "Europe/Paris", after: 1_792_886_400, count: 4)
                == [1_792_887_600, 1_792_888_800, 1_792_893_600, 1_792_894_800])
        // Asked from inside the second pass (02:10 CET = 01:10Z), 02:30 has already elapsed (00:30Z): next day.
        #expect(try elapses("02:30", zone: "Europe/Paris", after: 1_792_890_600, count: 1) == [1_792_978_200])
    }
}
