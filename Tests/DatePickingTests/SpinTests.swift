import Foundation
import TestSupport
import Testing

@testable import DatePicking

@Suite("Spinning a wheel (B17–B19, B22–B27)")
struct SpinTests {
    @Test("B18: hour 11 → 12 flips AM/PM; a 12-row spin flips once, 24 rows twice")
    func b18Meridiem() {
        var picker = Fixtures.picker(.time)
        picker.date = FixedInstant.mayMorning  // 2026-05-10T10:07:00Z, 10:07 AM
        picker.spin(.hour, by: 2)
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-05-10 12:07:00")
        picker.spin(.hour, by: 12)
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-05-10 00:07:00")
        picker.spin(.hour, by: 24)
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-05-10 00:07:00")
        picker.spin(.hour, by: -1)  // 12 AM → 11 PM of the same day: no carry
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-05-10 23:07:00")
    }

    @Test("B22/A11: one event per settled user change, including a full 12-row spin; none for code")
    func b22Events() {
        var picker = Fixtures.picker(.time)
        picker.date = FixedInstant.mayMorning  // 2026-05-10T10:07:00Z
        picker.minuteInterval = 5
        picker.locale = Locale(identifier: "de_DE")
        #expect(picker.valueChangedCount == 0)
        #expect(picker.spin(.hour, by: 12).sentValueChanged)
        #expect(picker.spin(.minute, by: 0).sentValueChanged == false)
        #expect(picker.valueChangedCount == 1)
        var countdown = Fixtures.picker(.countDownTimer)
        #expect(countdown.spin(.countdownMinute, by: 1).sentValueChanged)  // the first countdown spin
        #expect(countdown.valueChangedCount == 1)
    }

    @Test("A8/B15: no carry between wheels (day 31 → 1 keeps the month, minute 59 → 0 keeps the hour)")
    func a8NoCarry() {
        var picker = Fixtures.picker(.date)
        picker.date = Date(timeIntervalSince1970: 1_769_860_800)  // 2026-01-31T12:00:00Z
        picker.spin(.day, by: 1)
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-01-01 12:00:00")
        var time = Fixtures.picker(.time)
        time.date = Date(timeIntervalSince1970: 1_778_410_740)  // 2026-05-10T10:59:00Z
        time.spin(.minute, by: 1)
        #expect(Fixtures.wall(time.date, "UTC") == "2026-05-10 10:00:00")
    }

    @Test("B19: Mar 30 month −1 gives Feb 28; Feb 29 year +1 gives Feb 28")
    func b19ShortMonths() {
        var picker = Fixtures.picker(.date)
        picker.date = Date(timeIntervalSince1970: 1_522_411_200)  // 2018-03-30T12:00:00Z
        #expect(picker.spin(.month, by: -1).restriction == .lastDayOfMonth)
        #expect(Fixtures.wall(picker.date, "UTC") == "2018-02-28 12:00:00")
        picker.date = Date(timeIntervalSince1970: 1_709_208_000)  // 2024-02-29T12:00:00Z
        picker.spin(.year, by: 1)
        #expect(Fixtures.wall(picker.date, "UTC") == "2025-02-28 12:00:00")
    }

    @Test("B17.4a: a spin past a bound snaps to the bound's displayed units")
    func b17Bounds() {
        var picker = Fixtures.picker(.time)
        picker.minimumDate = Date(timeIntervalSince1970: 1_573_443_000)  // 2019-11-11T03:30:00Z
        picker.maximumDate = Date(timeIntervalSince1970: 1_573_484_399)  // 2019-11-11T14:59:59Z
        picker.date = Date(timeIntervalSince1970: 1_573_444_800)  // 2019-11-11T04:00:00Z
        #expect(picker.spin(.ampm, by: 1).restriction == .clampedToMaximum)
        #expect(Fixtures.wall(picker.date, "UTC") == "2019-11-11 14:59:00")
        #expect(picker.spin(.hour, by: -12).restriction == .clampedToMinimum)
        #expect(Fixtures.wall(picker.date, "UTC") == "2019-11-11 03:30:00")
    }

    @Test("B23/A7: America/Los_Angeles 2026-03-08, hour +1 from 1:30 AM lands in the gap and reverts")
    func b23GapReverts() {
        var picker = Fixtures.picker(zone: "America/Los_Angeles")
        picker.date = FixedInstant.springForwardBefore  // 2026-03-08T09:30:00Z = 01:30 PST
        let outcome = picker.spin(.hour, by: 1)
        #expect(outcome.restriction == .revertedToLastValidSelection)
        #expect(picker.date == FixedInstant.springForwardBefore)
        picker.spin(.hour, by: 2)  // across the gap: 03:30 PDT, one real hour later
        #expect(picker.date == FixedInstant.springForwardAfter)  // 2026-03-08T10:30:00Z
    }

    @Test("Guard: the two gap policies really differ (revert vs forward)")
    func gapPoliciesDiffer() {
        var reverting = Fixtures.picker(.time, zone: "America/Los_Angeles")
        reverting.date = FixedInstant.springForwardBefore  // 2026-03-08T09:30:00Z = 01:30 PST
        var forward = reverting
        forward.nonexistentTimePolicy = .forward
        reverting.spin(.hour, by: 1)
        let outcome = forward.spin(.hour, by: 1)
        #expect(reverting.date == FixedInstant.springForwardBefore)  // 01:30 PST
        #expect(forward.date == FixedInstant.springForwardAfter)  // 2026-03-08T10:30:00Z = 03:30 PDT
        #expect(outcome.restriction == .movedForwardOverGap)
        #expect(reverting.date != forward.date)
    }

    @Test("B23: Europe/Berlin 2026-03-29, minute spin onto 02:xx is also reverted")
    func b23Berlin() {
        var picker = Fixtures.picker(.time, zone: "Europe/Berlin", locale: "de_DE")
        picker.date = Date(timeIntervalSince1970: 1_774_747_800)  // 2026-03-29T01:30:00Z = 03:30 CEST
        picker.spin(.hour, by: -1)  // 02:30 does not exist on that day
        #expect(picker.date == Date(timeIntervalSince1970: 1_774_747_800))
        picker.spin(.hour, by: -2)  // 01:30 CET = 00:30Z
        #expect(picker.date == Date(timeIntervalSince1970: 1_774_744_200))  // 2026-03-29T00:30:00Z
    }

    @Test("B24: a wheel-made wall time in the fall-back hour resolves to the first occurrence")
    func b24FallBack() {
        var picker = Fixtures.picker(.time, zone: "America/Los_Angeles")
        picker.date = Date(timeIntervalSince1970: 1_793_525_400)  // 2026-11-01T09:30:00Z = 01:30 PST (second)
        picker.spin(.minute, by: 1)  // 01:31 is rebuilt from components: first occurrence, PDT
        #expect(picker.date == Date(timeIntervalSince1970: 1_793_521_860))  // 2026-11-01T08:31:00Z = 01:31 PDT
    }

    @Test("B25: Pacific/Apia skipped 2011-12-30; day +1 gives day − 1, +2 lands on Dec 31")
    func b25Apia() {
        var picker = Fixtures.picker(.date, zone: "Pacific/Apia")
        picker.date = Date(timeIntervalSince1970: 1_325_196_000)  // 2011-12-29T22:00:00Z = Dec 29 12:00 -10:00
        #expect(picker.spin(.day, by: 1).restriction == .previousDay)
        #expect(picker.date == Date(timeIntervalSince1970: 1_325_196_000))
        picker.spin(.day, by: 2)
        #expect(picker.date == Date(timeIntervalSince1970: 1_325_282_400))  // 2011-12-30T22:00:00Z = Dec 31 +14:00
        var dateAndTime = Fixtures.picker(.dateAndTime, zone: "Pacific/Apia")
        dateAndTime.date = Date(timeIntervalSince1970: 1_325_196_000)  // Dec 29 12:00 -10:00
        dateAndTime.spin(.date, by: 1)  // the date wheel has no Dec 30 row
        #expect(dateAndTime.date == Date(timeIntervalSince1970: 1_325_282_400))
    }

    @Test("B25: the Gregorian cutover 1582-10-05…14 does not exist; a spin onto it gives day − 1")
    func b25Cutover() {
        var picker = Fixtures.picker(.date)
        picker.date = Date(timeIntervalSince1970: -12_219_336_000)  // 1582-10-04T12:00:00Z (Julian)
        picker.spin(.day, by: 3)  // Oct 7 does not exist
        #expect(picker.selectedValue(of: .day) == .number(4))
    }

    @Test("B26: Hebrew 5785 has no Adar I; a month spin onto it steps back to Shevat")
    func b26Hebrew() {
        var picker = Fixtures.picker(.date, calendar: "hebrew")
        picker.date = Date(timeIntervalSince1970: 1_739_016_000)  // 2025-02-08T12:00:00Z = 10 Shevat 5785
        #expect(picker.spin(.month, by: 1).restriction == .previousMonth)
        #expect(picker.selectedValue(of: .month) == .number(5))
        picker.spin(.month, by: 2)  // Adar (7) exists
        #expect(picker.selectedValue(of: .month) == .number(7))
    }

    @Test("B27/A14: Japanese Reiwa 8 Feb 30 normalises to Mar 2")
    func b27Japanese() {
        var picker = Fixtures.picker(.date, locale: "ja_JP", calendar: "japanese")
        picker.date = Date(timeIntervalSince1970: 1_772_280_000)  // 2026-02-28T12:00:00Z = Reiwa 8
        #expect(picker.spin(.day, by: 2).restriction == .normalized)
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-03-02 12:00:00")
    }

    @Test("Islamic and Persian calendars spin months within their own years")
    func otherCalendars() {
        for name in ["islamic-umalqura", "islamic-civil", "persian"] {
            var picker = Fixtures.picker(.date, calendar: name)
            picker.date = Date(timeIntervalSince1970: 1_772_280_000)  // 2026-02-28T12:00:00Z
            let year = picker.selectedValue(of: .year)
            picker.spin(.month, by: 1)
            #expect(picker.selectedValue(of: .year) == year, "\(name)")
            #expect(picker.valueChangedCount == 1, "\(name)")
        }
    }
}
