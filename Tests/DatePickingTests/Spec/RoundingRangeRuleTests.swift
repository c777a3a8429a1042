import Foundation
import Testing

@testable import DatePicking

/// Rules B6–B13 and decisions A2, A3, A6, A9, A10 of docs/datepicker-rules.md, with cases beyond the vectors.
@Suite("Spec rules B6–B13: minute rows, rounding, DST rebuild, bounds and enabled rows")
struct RoundingRangeRuleTests {
    @Test("B6: interval 12 gives rows 0…48; 10:59 shows 48 whether or not the date is rounded")
    func b6MinuteRows() {
        for rounds in [true, false] {
            var picker = Fixtures.picker(.time, locale: "de_DE", interval: 12)
            picker.roundsToMinuteInterval = rounds
            picker.date = Spec.at("2026-05-10T10:59:00Z")
            let minute = picker.wheels.first { $0.kind == .minute }
            #expect(minute?.values == [0, 12, 24, 36, 48].map(WheelValue.number))
            #expect(minute?.wraps == true)
            #expect(picker.selectedValue(of: .minute) == .number(48))
        }
    }

    @Test("B7/A2/A3: interval 20 floors 10:59:45.750 to 10:40:45 (not nearest; seconds kept, fraction dropped)")
    func b7Floor() {
        var picker = Fixtures.picker(.dateAndTime, interval: 20)
        picker.date = Spec.at("2026-05-10T10:59:45.750Z")
        #expect(picker.date == Spec.at("2026-05-10T10:40:45Z"))
        picker.minuteInterval = 5
        picker.date = Spec.at("2026-05-10T17:53:00Z")
        #expect(picker.date == Spec.at("2026-05-10T17:50:00Z"))  // A2: 5:53 → 5:50, not 5:55
    }

    @Test("B7.1: aligned minute or interval 1 leaves the date untouched, fraction included")
    func b7Untouched() {
        var picker = Fixtures.picker(.time, interval: 30)
        picker.date = Spec.at("2026-05-10T10:30:15.250Z")
        #expect(picker.date == Spec.at("2026-05-10T10:30:15.250Z"))
        picker.minuteInterval = 1
        picker.date = Spec.at("2026-05-10T10:59:59.999Z")
        #expect(picker.date == Spec.at("2026-05-10T10:59:59.999Z"))
    }

    @Test("B7: rounding uses the zone's wall minute: Asia/Tehran (+03:30) Persian 10:10 → 10:00 with interval 20")
    func b7HalfHourZone() {
        var picker = Fixtures.picker(.dateAndTime, zone: "Asia/Tehran", locale: "fa_IR", calendar: "persian")
        picker.minuteInterval = 20
        picker.date = Spec.at("2026-05-10T06:40:10Z")  // 10:10:10 IRST
        #expect(picker.date == Spec.at("2026-05-10T06:30:10Z"))
    }

    @Test("B7.3: the getter floors the stored value with the current interval; setter rounding is not undone")
    func b7GetterAndSetter() {
        var picker = Fixtures.picker(.time, interval: 15)
        picker.date = Spec.at("2026-05-10T10:52:00Z")  // stored 10:45
        #expect(picker.date == Spec.at("2026-05-10T10:45:00Z"))
        picker.minuteInterval = 1
        #expect(picker.date == Spec.at("2026-05-10T10:45:00Z"))
        picker.minuteInterval = 20
        #expect(picker.date == Spec.at("2026-05-10T10:40:00Z"))
        picker.minuteInterval = 5
        #expect(picker.date == Spec.at("2026-05-10T10:45:00Z"))  // the getter's flooring is not stored
    }

    @Test("B7.5: .date mode with interval 30 floors the time of day too")
    func b7DateMode() {
        var picker = Fixtures.picker(.date, zone: "Europe/Berlin", interval: 30)
        picker.date = Spec.at("2026-07-01T21:59:00Z")  // 23:59 CEST
        #expect(picker.date == Spec.at("2026-07-01T21:30:00Z"))
    }

    @Test("B8: rounding off returns 11:53:20.5 exactly; the wheel shows 50; turning it on floors on read")
    func b8Unrounded() {
        var picker = Fixtures.picker(.time, locale: "en_GB", interval: 10)
        picker.roundsToMinuteInterval = false
        picker.date = Spec.at("2026-05-10T11:53:20.500Z")
        #expect(picker.date == Spec.at("2026-05-10T11:53:20.500Z"))
        #expect(picker.selectedValue(of: .minute) == .number(50))
        picker.roundsToMinuteInterval = true
        #expect(picker.date == Spec.at("2026-05-10T11:50:20Z"))
    }

    @Test("B9: Australia/Sydney 2026-04-05 02:37 AEST (second) with interval 15 becomes 02:30 AEDT (first)")
    func b9SydneyFallBack() {
        var picker = Fixtures.picker(.dateAndTime, zone: "Australia/Sydney", locale: "en_GB", interval: 15)
        picker.date = Spec.at("2026-04-04T16:37:00Z")
        #expect(picker.date == Spec.at("2026-04-04T15:30:00Z"))
        picker.minuteInterval = 1  // no rebuild needed on a fresh set: the second occurrence is kept
        picker.date = Spec.at("2026-04-04T16:37:00Z")
        #expect(picker.date == Spec.at("2026-04-04T16:37:00Z"))
    }

    @Test("B9/B24: America/Los_Angeles 01:30 PST stays with interval 15 (aligned), becomes 01:20 PDT with 20")
    func b9LosAngeles() {
        var picker = Fixtures.picker(.time, zone: "America/Los_Angeles", interval: 15)
        picker.date = Spec.at("2026-11-01T09:30:00Z")
        #expect(picker.date == Spec.at("2026-11-01T09:30:00Z"))
        picker.minuteInterval = 20
        #expect(picker.date == Spec.at("2026-11-01T08:20:00Z"))
    }

    @Test("B10: inverted bounds are both ignored; rows stay enabled")
    func b10Inverted() {
        var picker = Fixtures.picker(.date)
        picker.minimumDate = Spec.at("2026-06-01T00:00:00Z")
        picker.maximumDate = Spec.at("2026-05-01T00:00:00Z")
        picker.date = Spec.at("2030-01-01T12:00:00Z")
        #expect(picker.date == Spec.at("2030-01-01T12:00:00Z"))
        #expect(picker.isEnabled(.number(2031), in: .year))
        picker.date = Spec.at("2001-01-01T12:00:00Z")
        #expect(picker.date == Spec.at("2001-01-01T12:00:00Z"))
        picker.maximumDate = Spec.at("2026-06-01T00:00:00.001Z")  // now valid: clamping applies again
        #expect(picker.date == Spec.at("2026-06-01T00:00:00Z"))
    }

    @Test("B10: equal bounds are allowed: every date reads as that instant")
    func b10Equal() {
        var picker = Fixtures.picker(.dateAndTime, zone: "Europe/London")
        let instant = Spec.at("2026-05-10T10:07:00Z")
        picker.minimumDate = instant
        picker.maximumDate = instant
        picker.date = Spec.at("1990-01-01T00:00:00Z")
        #expect(picker.date == instant)
        picker.date = Spec.at("2090-01-01T00:00:00Z")
        #expect(picker.date == instant)
    }

    @Test("B10/B21: bounds are ignored in countdown mode")
    func b10Countdown() {
        var picker = Fixtures.picker(.countDownTimer)
        picker.minimumDate = Spec.at("2100-01-01T00:00:00Z")
        picker.maximumDate = Spec.at("2101-01-01T00:00:00Z")
        picker.countDownDuration = 5400
        #expect(picker.countDownDuration == 5400)
        picker.date = Spec.at("2026-05-10T02:15:00Z")
        #expect(picker.date == Spec.at("2026-05-10T02:15:00Z"))
        #expect(picker.countDownDuration == 8100)
    }

    @Test("B11/A6: clamp after rounding (min 09:13, interval 10, date 09:15 → 09:13); removing the bound restores")
    func b11ClampAfterRound() {
        var picker = Fixtures.picker(.time, locale: "en_GB", interval: 10)
        picker.minimumDate = Spec.at("2026-05-10T09:13:00Z")
        picker.date = Spec.at("2026-05-10T09:15:00Z")  // stored 09:10
        #expect(picker.date == Spec.at("2026-05-10T09:13:00Z"))
        #expect(picker.selectedValue(of: .minute) == .number(10))
        picker.minimumDate = nil
        #expect(picker.date == Spec.at("2026-05-10T09:10:00Z"))
    }

    @Test("B11: only a maximum; the full-precision bound is returned and the wheel shows its floored minute")
    func b11MaximumOnly() {
        var picker = Fixtures.picker(.dateAndTime, interval: 10)
        picker.maximumDate = Spec.at("2026-05-10T09:07:30Z")
        picker.date = Spec.at("2027-05-10T10:00:00Z")
        #expect(picker.date == Spec.at("2026-05-10T09:07:30Z"))
        #expect(picker.selectedValue(of: .minute) == .number(0))
        #expect(picker.selectedValue(of: .hour) == .number(9))
        picker.maximumDate = nil
        #expect(picker.date == Spec.at("2027-05-10T10:00:00Z"))
    }

    @Test("B12/A9: .date validates by day; the returned date is still clamped at full precision")
    func b12DateGranularity() {
        var picker = Fixtures.picker(.date)
        picker.minimumDate = Spec.at("2020-01-01T12:00:00Z")
        picker.date = Spec.at("2020-01-01T08:00:00Z")
        #expect(picker.date == Spec.at("2020-01-01T12:00:00Z"))
        #expect(picker.isEnabled(.number(1), in: .day))
        #expect(picker.isEnabled(.number(2020), in: .year))
        #expect(!picker.isEnabled(.number(2019), in: .year))
    }

    @Test("B12/A10: .time compares the full date: a minimum at 18:00 the day before enables every hour")
    func b12TimeComparesDate() {
        var picker = Fixtures.picker(.time, locale: "de_DE")
        picker.minimumDate = Spec.at("2026-05-09T18:00:00Z")
        picker.date = Spec.at("2026-05-10T03:00:00Z")
        #expect(picker.date == Spec.at("2026-05-10T03:00:00Z"))
        #expect(Spec.enabled(picker, .hour, Array(0...23)) == Array(0...23))
        picker.minimumDate = Spec.at("2026-05-10T18:00:00Z")  // same day: hours before 18 are disabled
        #expect(Spec.enabled(picker, .hour, Array(0...23)) == Array(18...23))
    }

    @Test("B13: Feb 2025 disables days 29–31; Feb 2024 disables only 30–31")
    func b13MissingDays() {
        var picker = Fixtures.picker(.date, zone: "Asia/Tokyo", locale: "ja_JP")
        picker.date = Spec.at("2025-02-10T03:00:00Z")
        #expect(Spec.enabled(picker, .day, [27, 28, 29, 30, 31]) == [27, 28])
        picker.date = Spec.at("2024-02-10T03:00:00Z")
        #expect(Spec.enabled(picker, .day, [28, 29, 30, 31]) == [28, 29])
    }

    @Test("B13: rows beyond a maximum are disabled per unit (month by month, day by day, year by year)")
    func b13MaximumRows() {
        var picker = Fixtures.picker(.date, locale: "en_GB")
        picker.maximumDate = Spec.at("2026-03-15T00:00:00Z")
        picker.date = Spec.at("2026-03-10T12:00:00Z")
        #expect(Spec.enabled(picker, .month, [1, 2, 3, 4, 12]) == [1, 2, 3])
        #expect(Spec.enabled(picker, .day, [14, 15, 16, 31]) == [14, 15])
        #expect(Spec.enabled(picker, .year, [1, 2025, 2026, 2027, 10_000]) == [1, 2025, 2026])
    }

    @Test("B13: time-mode hour rows ignore the minute (min 03:30: hour 2 off, 3 on); minute rows by minute")
    func b13HourAndMinuteRows() {
        var picker = Fixtures.picker(.time, locale: "en_GB", interval: 15)
        picker.minimumDate = Spec.at("2026-05-10T03:30:00Z")
        picker.date = Spec.at("2026-05-10T03:45:00Z")
        #expect(Spec.enabled(picker, .hour, [2, 3, 4]) == [3, 4])
        #expect(Spec.enabled(picker, .minute, [0, 15, 30, 45]) == [30, 45])
    }

    @Test("B13: values that are not rows of the wheel are never enabled")
    func b13NotOnTheWheel() {
        var picker = Fixtures.picker(.date)
        #expect(!picker.isEnabled(.number(13), in: .month))
        #expect(!picker.isEnabled(.number(0), in: .month))
        #expect(!picker.isEnabled(.number(32), in: .day))
        #expect(!picker.isEnabled(.number(0), in: .year))
        #expect(!picker.isEnabled(.number(10_001), in: .year))
        #expect(!picker.isEnabled(.number(5), in: .hour))  // no hour wheel in .date mode
        picker.datePickerMode = .time
        picker.minuteInterval = 5
        #expect(!picker.isEnabled(.number(7), in: .minute))
        #expect(picker.isEnabled(.number(55), in: .minute))
        #expect(!picker.isEnabled(.number(0), in: .hour))  // en_US shows 1–12
        #expect(!picker.isEnabled(.number(13), in: .hour))
        picker.locale = Locale(identifier: "de_DE")
        #expect(!picker.isEnabled(.meridiem(.pm), in: .ampm))  // no AM/PM wheel in de_DE
        #expect(picker.isEnabled(.number(0), in: .hour))
        #expect(!picker.isEnabled(.number(24), in: .hour))
        picker.datePickerMode = .countDownTimer
        #expect(!picker.isEnabled(.number(24), in: .countdownHour))
        #expect(!picker.isEnabled(.number(3), in: .countdownMinute))
        #expect(picker.isEnabled(.number(5), in: .countdownMinute))
    }
}
