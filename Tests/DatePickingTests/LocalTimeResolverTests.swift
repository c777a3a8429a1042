import Foundation
import TestSupport
import Testing

@testable import DatePicking

@Suite("LocalTimeResolver (timerctl --at)")
struct LocalTimeResolverTests {
    static let gregorian = Calendar(identifier: .gregorian)
    static let losAngeles = Fixtures.zone("America/Los_Angeles")

    @Test("HH:mm is the next occurrence after now; a past time today means tomorrow")
    func nextOccurrence() throws {
        let now = Date(timeIntervalSince1970: 1_795_964_400)  // 2026-11-29T15:00:00Z = 07:00 PST
        let later = try LocalTimeResolver.resolve(
            "14:30", now: now, timeZone: Self.losAngeles, calendar: Self.gregorian)
        #expect(later.date == Date(timeIntervalSince1970: 1_795_991_400))  // 2026-11-29T22:30:00Z = 14:30 PST
        #expect(later.adjustment == .exact)
        let earlier = try LocalTimeResolver.resolve(
            "06:00", now: now, timeZone: Self.losAngeles, calendar: Self.gregorian)
        #expect(earlier.date == Date(timeIntervalSince1970: 1_796_047_200))  // 2026-11-30T14:00:00Z = 06:00 PST
        #expect(earlier.localTime.day == 30)
    }

    @Test("A date-time is that local date-time; --minute-interval floors like the picker")
    func dateTime() throws {
        let now = Date(timeIntervalSince1970: 1_795_964_400)  // 2026-11-29T15:00:00Z
        let berlin = Fixtures.zone("Europe/Berlin")
        let result = try LocalTimeResolver.resolve(
            "2026-12-01T09:07", now: now, timeZone: berlin, calendar: Self.gregorian, minuteInterval: 5)
        #expect(result.date == Date(timeIntervalSince1970: 1_796_112_300))  // 2026-12-01T08:05:00Z = 09:05 CET
        #expect(result.localTime.minute == 5)
    }

    @Test("Spring-forward gap: 02:30 on 2026-03-08 in Los Angeles under each policy")
    func gap() throws {
        let now = Date(timeIntervalSince1970: 1_772_913_600)  // 2026-03-07T20:00:00Z = 12:00 PST on Mar 7
        func resolve(_ policy: LocalTimeResolver.SkippedTimePolicy) throws(DatePickingError)
            -> LocalTimeResolver.Resolution
        {
            try LocalTimeResolver.resolve(
                "02:30", now: now, timeZone: Self.losAngeles, calendar: Self.gregorian, skippedTimePolicy: policy)
        }
        let forward = try resolve(.moveForward)
        #expect(forward.date == FixedInstant.springForwardAfter)  // 2026-03-08T10:30:00Z = 03:30 PDT
        #expect(forward.adjustment == .movedForwardOverGap(seconds: 3600))
        let end = try resolve(.nextValidTime)
        #expect(end.date == Date(timeIntervalSince1970: 1_772_964_000))  // 2026-03-08T10:00:00Z = 03:00 PDT
        #expect(end.adjustment == .movedToEndOfGap)
        #expect(forward.date != end.date)  // guard: the policies really differ
        #expect(throws: DatePickingError.nonexistentLocalTime("2026-03-08T02:30:00")) { try resolve(.reject) }
    }

    @Test("Fall-back repeat: 01:30 on 2026-11-01 in Los Angeles under each policy")
    func repeated() throws {
        let now = Date(timeIntervalSince1970: 1_793_475_000)  // 2026-10-31T19:30:00Z = 12:30 PDT on Oct 31
        func resolve(_ policy: LocalTimeResolver.RepeatedTimePolicy) throws(DatePickingError)
            -> LocalTimeResolver.Resolution
        {
            try LocalTimeResolver.resolve(
                "2026-11-01T01:30", now: now, timeZone: Self.losAngeles, calendar: Self.gregorian,
                repeatedTimePolicy: policy)
        }
        let first = try resolve(.first)
        #expect(first.date == FixedInstant.fallBackFirst)  // 2026-11-01T08:30:00Z = 01:30 PDT
        #expect(first.adjustment == .firstOfRepeated)
        let last = try resolve(.last)
        #expect(last.date == Date(timeIntervalSince1970: 1_793_525_400))  // 2026-11-01T09:30:00Z = 01:30 PST
        #expect(last.adjustment.description.contains("second"))
        #expect(throws: DatePickingError.ambiguousLocalTime("2026-11-01T01:30:00")) { try resolve(.reject) }
    }

    @Test(
        "Bad input gives typed errors",
        arguments: ["", "25:00", "7:30", "14:60", "2026-02-30T10:00", "noon", "14:30:61"])
    func badInput(_ text: String) {
        #expect(throws: DatePickingError.invalidLocalTime(text)) {
            try LocalTimeResolver.resolve(
                text, now: Fixtures.now, timeZone: Self.losAngeles, calendar: Self.gregorian)
        }
    }

    @Test("An invalid minute interval, an out-of-range hour and a non-finite now are rejected")
    func badParameters() {
        #expect(throws: DatePickingError.invalidLocalTime("25:0:0")) {
            try LocalTimeResolver.resolve(
                LocalTimeResolver.LocalTime(hour: 25, minute: 0), now: Fixtures.now, timeZone: Self.losAngeles,
                calendar: Self.gregorian)
        }
        #expect(throws: DatePickingError.invalidMinuteInterval(7)) {
            try LocalTimeResolver.resolve(
                "10:00", now: Fixtures.now, timeZone: Self.losAngeles, calendar: Self.gregorian, minuteInterval: 7)
        }
        #expect(throws: DatePickingError.invalidDate("nan")) {
            try LocalTimeResolver.resolve(
                "10:00", now: Date(timeIntervalSinceReferenceDate: .nan), timeZone: Self.losAngeles,
                calendar: Self.gregorian)
        }
    }

    @Test("Apia skipped 2011-12-30: 12:00 from Dec 29 afternoon is Dec 31 noon")
    func apia() throws {
        let now = Date(timeIntervalSince1970: 1_325_210_400)  // 2011-12-30T02:00:00Z = Dec 29 16:00 -10:00
        let result = try LocalTimeResolver.resolve(
            "12:00", now: now, timeZone: Fixtures.zone("Pacific/Apia"), calendar: Self.gregorian)
        #expect(result.date == Date(timeIntervalSince1970: 1_325_282_400))  // 2011-12-30T22:00:00Z = Dec 31 12:00 +14
    }
}
