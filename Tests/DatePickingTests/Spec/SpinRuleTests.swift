import Foundation
import Testing

@testable import DatePicking

/// Rules B17–B19 and B22–B28, decisions A3, A7, A8, A11, A14 of docs/datepicker-rules.md, beyond the vectors.
@Suite("Spec rules B17–B28: spins, AM/PM, short months, events, DST, calendars, mode changes")
struct SpinRuleTests {
    @Test("B17.1/A3: the candidate keeps whole seconds of the shown date and drops the fraction")
    func b17Seconds() {
        var picker = Fixtures.picker(.time, locale: "en_GB")
        picker.roundsToMinuteInterval = false
        picker.date = Spec.at("2026-05-10T10:07:42.900Z")
        picker.spin(.minute, by: 1)
        #expect(picker.date == Spec.at("2026-05-10T10:08:42Z"))
    }

    @Test("B17.4a: a date-wheel spin past the maximum takes the maximum's units down to the minute")
    func b17DateWheelMaximum() {
        var picker = Fixtures.picker(.dateAndTime, locale: "en_GB")
        picker.maximumDate = Spec.at("2026-01-03T10:00:00Z")
        picker.date = Spec.at("2026-01-01T12:00:00Z")
        let outcome = picker.spin(.date, by: 5)
        #expect(outcome.restriction == .clampedToMaximum && outcome.sentValueChanged)
        #expect(picker.date == Spec.at("2026-01-03T10:00:00Z"))
    }

    @Test("B17.4a: .date mode: a year spin below the minimum takes the minimum's day, keeps the time")
    func b17YearBelowMinimum() {
        var picker = Fixtures.picker(.date)
        picker.minimumDate = Spec.at("2016-02-29T18:00:00Z")
        picker.date = Spec.at("2017-02-28T09:00:00Z")
        #expect(picker.spin(.year, by: -1).restriction == .clampedToMinimum)
        // 2016-02-29 09:00 is the day of the minimum, then clamped on read to the minimum itself (B11, A9).
        #expect(picker.date == Spec.at("2016-02-29T18:00:00Z"))
        picker.spin(.year, by: 1)
        #expect(picker.date == Spec.at("2017-02-28T18:00:00Z"))
    }

    @Test("B17.5: a full turn of a wrapping wheel rebuilds the date from the selection (fraction dropped)")
    func b17FullTurnRebuilds() {
        var picker = Fixtures.picker(.time, locale: "en_GB", interval: 5)
        picker.roundsToMinuteInterval = false
        picker.date = Spec.at("2026-05-10T10:07:30.500Z")
        let outcome = picker.spin(.minute, by: 12)  // 12 rows of 5 minutes: back to the row of 05
        #expect(picker.date == Spec.at("2026-05-10T10:05:30Z"))
        #expect(outcome.sentValueChanged == false)  // the selection did not change (B17.6)
    }

    @Test("B18: 12-hour wheel crossing 11↔12 several times: ±1000 rows, +37 from 11 AM, 12 AM −1")
    func b18ManyFlips() {
        var picker = Fixtures.picker(.time)
        picker.date = Spec.at("2026-05-10T03:00:00Z")  // 3:00 AM
        picker.spin(.hour, by: 1000)  // 1000 mod 24 = 16: 7 PM
        #expect(picker.date == Spec.at("2026-05-10T19:00:00Z"))
        #expect(picker.selectedValue(of: .hour) == .number(7) && picker.selectedValue(of: .ampm) == .meridiem(.pm))
        picker.spin(.hour, by: -1000)  // back to 3 AM
        #expect(picker.date == Spec.at("2026-05-10T03:00:00Z"))
        picker.date = Spec.at("2026-05-10T11:30:00Z")  // 11:30 AM
        picker.spin(.hour, by: 37)  // passes 11→12 four times: AM again, 12:30 AM of the same day
        #expect(picker.date == Spec.at("2026-05-10T00:30:00Z"))
        picker.spin(.hour, by: -1)  // 12 → 11 flips to PM: 11:30 PM, no carry into the day
        #expect(picker.date == Spec.at("2026-05-10T23:30:00Z"))
        picker.spin(.hour, by: -11)  // 11 PM → 12 PM, no 12↔11 pass
        #expect(picker.date == Spec.at("2026-05-10T12:30:00Z"))
    }

    @Test("B18: the AM/PM wheel adds or removes 12 h and stops at its ends (ko_KR, AM/PM first)")
    func b18MeridiemWheel() {
        var picker = Fixtures.picker(.time, zone: "Asia/Seoul", locale: "ko_KR")
        picker.date = Spec.at("2026-05-10T05:15:00Z")  // 2:15 PM KST
        #expect(picker.spin(.ampm, by: 1).sentValueChanged == false)  // already PM
        picker.spin(.ampm, by: -1)
        #expect(picker.date == Spec.at("2026-05-09T17:15:00Z"))  // 2:15 AM KST
        picker.spin(.ampm, by: Int.max)
        #expect(picker.date == Spec.at("2026-05-10T05:15:00Z"))
    }

    @Test("B19: Mar 31 2024 month −1 → Feb 29 (time and seconds kept); 2023 → Feb 28")
    func b19LeapFebruary() {
        var picker = Fixtures.picker(.date, locale: "en_GB")
        picker.date = Spec.at("2024-03-31T14:15:09Z")
        #expect(picker.spin(.month, by: -1).restriction == .lastDayOfMonth)
        #expect(picker.date == Spec.at("2024-02-29T14:15:09Z"))
        picker.spin(.year, by: -1)
        #expect(picker.date == Spec.at("2023-02-28T14:15:09Z"))
    }

    @Test("B19: day 31 in April snaps to 30 and sends an event; Feb 29 + 1001 years → 3029-02-28")
    func b19DayWheel() {
        var picker = Fixtures.picker(.date)
        picker.date = Spec.at("2026-04-30T12:00:00Z")
        let outcome = picker.spin(.day, by: 1)
        #expect(outcome.restriction == .lastDayOfMonth && outcome.sentValueChanged)
        #expect(picker.date == Spec.at("2026-04-30T12:00:00Z"))
        #expect(picker.valueChangedCount == 1)
        picker.date = Spec.at("2028-02-29T12:00:00Z")
        picker.spin(.year, by: 1001)
        #expect(picker.date == Spec.at("3029-02-28T12:00:00Z"))
    }

    @Test("B22/A11: programmatic changes never fire; user spins fire once each")
    func b22Events() throws {
        var picker = Fixtures.picker(.time)
        picker.date = Spec.at("2026-05-10T10:00:00Z")
        picker.minimumDate = Spec.at("2026-05-10T00:00:00Z")
        picker.maximumDate = Spec.at("2026-05-10T23:00:00Z")
        picker.minuteInterval = 10
        picker.countDownDuration = 600
        try picker.setLocale(identifier: "ko_KR")
        try picker.setCalendar(identifier: "buddhist")
        try picker.setTimeZone(identifier: "Asia/Seoul")
        picker.datePickerMode = .date
        picker.datePickerMode = .countDownTimer
        picker.datePickerMode = .time
        #expect(picker.valueChangedCount == 0)
        picker.spin(.hour, by: 12)  // a full 12-row spin flips AM/PM and fires (radar 42419686)
        picker.spin(.minute, by: 6)  // a full turn: the selection is unchanged, no event
        picker.spin(.minute, by: 0)
        #expect(picker.valueChangedCount == 1)
        picker.datePickerMode = .countDownTimer
        picker.spin(.countdownHour, by: 1)  // the first countdown spin fires (radar 16048059)
        #expect(picker.valueChangedCount == 2)
    }

    @Test("B23/A7: Australia/Lord_Howe 30-minute gap on 2026-10-04: 01:15 hour +1 reverts or moves 30 min")
    func b23LordHowe() {
        var picker = Fixtures.picker(.time, zone: "Australia/Lord_Howe", locale: "en_GB")
        picker.date = Spec.at("2026-10-03T14:45:00Z")  // 01:15 LHST (+10:30)
        #expect(picker.spin(.hour, by: 1).restriction == .revertedToLastValidSelection)
        #expect(picker.date == Spec.at("2026-10-03T14:45:00Z"))
        picker.spin(.minute, by: 30)  // 01:45 exists
        picker.spin(.hour, by: 1)  // 02:45 LHDT (+11) exists: the gap is only 02:00–02:29
        #expect(picker.date == Spec.at("2026-10-03T15:45:00Z"))
        picker.date = Spec.at("2026-10-03T14:45:00Z")
        picker.nonexistentTimePolicy = .forward
        #expect(picker.spin(.hour, by: 1).restriction == .movedForwardOverGap)
        #expect(picker.date == Spec.at("2026-10-03T15:45:00Z"))  // 02:15 → 02:45 LHDT
    }

    @Test("B23/A7: America/Sao_Paulo 2018-11-04 00:00 did not exist; the date wheel onto 00:30 reverts")
    func b23SaoPauloMidnight() {
        var picker = Fixtures.picker(.dateAndTime, zone: "America/Sao_Paulo", locale: "pt_BR")
        picker.date = Spec.at("2018-11-03T03:30:00Z")  // 2018-11-03 00:30 -03
        #expect(picker.spin(.date, by: 1).restriction == .revertedToLastValidSelection)
        #expect(picker.date == Spec.at("2018-11-03T03:30:00Z"))
        picker.nonexistentTimePolicy = .forward
        picker.spin(.date, by: 1)
        #expect(picker.date == Spec.at("2018-11-04T03:30:00Z"))  // 01:30 -02
    }

    @Test("B23: Europe/London 2026-03-29: hour +1 from 00:40 reverts, +2 crosses to 02:40 BST")
    func b23London() {
        var picker = Fixtures.picker(.time, zone: "Europe/London", locale: "en_GB")
        picker.date = Spec.at("2026-03-29T00:40:00Z")
        picker.spin(.hour, by: 1)
        #expect(picker.date == Spec.at("2026-03-29T00:40:00Z"))
        picker.spin(.hour, by: 2)
        #expect(picker.date == Spec.at("2026-03-29T01:40:00Z"))
    }

    @Test("B23/B17.4e: the AM/PM wheel onto 2:30 AM on 2026-03-08 in Los Angeles reverts")
    func b23MeridiemIntoGap() {
        var picker = Fixtures.picker(.time, zone: "America/Los_Angeles")
        picker.date = Spec.at("2026-03-08T21:30:00Z")  // 2:30 PM PDT
        #expect(picker.spin(.ampm, by: -1).restriction == .revertedToLastValidSelection)
        #expect(picker.date == Spec.at("2026-03-08T21:30:00Z"))
        picker.nonexistentTimePolicy = .forward
        picker.spin(.ampm, by: -1)
        #expect(picker.date == Spec.at("2026-03-08T10:30:00Z"))  // 3:30 AM PDT
    }

    @Test("B24: Los Angeles 2026-11-01: hour +1 from 00:30 PDT gives the first 01:30, +1 more gives 02:30 PST")
    func b24FirstOccurrence() {
        var picker = Fixtures.picker(.time, zone: "America/Los_Angeles")
        picker.date = Spec.at("2026-11-01T07:30:00Z")
        picker.spin(.hour, by: 1)
        #expect(picker.date == Spec.at("2026-11-01T08:30:00Z"))
        picker.spin(.hour, by: 1)
        #expect(picker.date == Spec.at("2026-11-01T10:30:00Z"))
    }

    @Test("B24: a programmatic second-occurrence date jumps to the first when a spin rebuilds it")
    func b24SpinRebuilds() {
        var picker = Fixtures.picker(.time, zone: "America/Los_Angeles")
        picker.date = Spec.at("2026-11-01T09:30:00Z")  // 01:30 PST, the second occurrence
        #expect(picker.date == Spec.at("2026-11-01T09:30:00Z"))
        picker.spin(.minute, by: 60)  // a full turn: same wall time, rebuilt
        #expect(picker.date == Spec.at("2026-11-01T08:30:00Z"))
    }

    @Test("B25: 1582-10-04 day +1 restricts back to Oct 4; +11 lands on Oct 15")
    func b25Cutover() {
        var picker = Fixtures.picker(.date)
        let october4 = Spec.wall(.gregorian, "UTC", 1582, 10, 4)
        picker.date = october4
        #expect(picker.spin(.day, by: 1).restriction == .previousDay)
        #expect(picker.date == october4)
        picker.spin(.day, by: 11)
        #expect(picker.date == Spec.wall(.gregorian, "UTC", 1582, 10, 15))
        #expect(picker.date.timeIntervalSince(october4) == 86_400)
    }

    @Test("B25: Pacific/Apia: month +1 from 2011-11-30 lands on the skipped Dec 30 and gives Dec 29")
    func b25ApiaMonth() {
        var picker = Fixtures.picker(.date, zone: "Pacific/Apia")
        picker.date = Spec.at("2011-11-30T22:00:00Z")  // 12:00 -10:00
        #expect(picker.spin(.month, by: 1).restriction == .previousDay)
        #expect(picker.date == Spec.at("2011-12-29T22:00:00Z"))
    }

    @Test("B26: Hebrew 5784 Adar I 15, year +1 → 5785 has no Adar I → Shevat 15")
    func b26AdarI() {
        var picker = Fixtures.picker(.date, locale: "he_IL", calendar: "hebrew")
        let adarI = Spec.wall(.hebrew, "UTC", 5784, 6, 15)
        #expect(Spec.ymd(adarI, .hebrew, "UTC").suffix(3) == [5784, 6, 15])
        picker.date = adarI
        #expect(picker.spin(.year, by: 1).restriction == .previousMonth)
        #expect(picker.date == Spec.wall(.hebrew, "UTC", 5785, 5, 15))
        #expect(picker.spin(.month, by: 1).restriction == .previousMonth)  // onto 6 again: stays Shevat
        #expect(picker.date == Spec.wall(.hebrew, "UTC", 5785, 5, 15))
        #expect(picker.valueChangedCount == 2)
        picker.spin(.month, by: 2)  // Adar (7) exists in 5785
        #expect(picker.date == Spec.wall(.hebrew, "UTC", 5785, 7, 15))
        picker.spin(.year, by: -1)  // 5784 month 7 is Adar II
        #expect(picker.date == Spec.wall(.hebrew, "UTC", 5784, 7, 15))
    }

    @Test("B26/B19: Hebrew Shevat 30 → Adar (29 days) gives Adar 29; the month wheel has 13 rows")
    func b26ShortHebrewMonth() {
        var picker = Fixtures.picker(.date, calendar: "hebrew")
        picker.date = Spec.wall(.hebrew, "UTC", 5785, 5, 30)
        #expect(picker.wheels.first { $0.kind == .month }?.rowCount == 13)
        #expect(picker.spin(.month, by: 2).restriction == .lastDayOfMonth)
        #expect(picker.date == Spec.wall(.hebrew, "UTC", 5785, 7, 29))
    }

    @Test("B27/A14: Heisei 31 Apr 30 day +1 normalises to Reiwa 1 May 1; Reiwa 8 Jan 30 month +1 → Mar 2")
    func b27JapaneseNormalises() {
        var picker = Fixtures.picker(.date, zone: "Asia/Tokyo", locale: "ja_JP", calendar: "japanese")
        picker.date = Spec.at("2019-04-30T03:00:00Z")  // Heisei 31-04-30 12:00 JST
        #expect(picker.spin(.day, by: 1).restriction == .normalized)
        #expect(picker.date == Spec.at("2019-05-01T03:00:00Z"))
        #expect(picker.selectedValue(of: .year) == .number(1))
        picker.date = Spec.at("2026-01-30T03:00:00Z")  // Reiwa 8-01-30
        #expect(picker.spin(.month, by: 1).restriction == .normalized)  // not clamped to Feb 28
        #expect(picker.date == Spec.at("2026-03-02T03:00:00Z"))
    }

    @Test("B28: .time → .date rebuilds the date from the selection; dateAndTime → time keeps it exactly")
    func b28ModeChange() {
        var picker = Fixtures.picker(.dateAndTime, locale: "en_GB")
        picker.date = Spec.at("2026-05-10T10:07:30.500Z")
        picker.datePickerMode = .time  // shares hour and minute
        #expect(picker.date == Spec.at("2026-05-10T10:07:30.500Z"))
        picker.datePickerMode = .date  // shares nothing: rebuilt, whole seconds kept
        #expect(picker.date == Spec.at("2026-05-10T10:07:30Z"))
    }

    @Test("B28: switching to countdown restores its value, or one interval when there was none")
    func b28Countdown() {
        var picker = Fixtures.picker(.date, interval: 5)
        picker.datePickerMode = .countDownTimer
        #expect(picker.countDownDuration == 300)
        picker.countDownDuration = 5400
        picker.datePickerMode = .date
        picker.datePickerMode = .countDownTimer
        #expect(picker.countDownDuration == 5400)
    }
}
