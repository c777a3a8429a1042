import Foundation
import Testing

@testable import DatePicking

/// Rules B20, B21, B29, B30 and decisions A4, A5, A12, A13 of docs/datepicker-rules.md, beyond the vectors.
@Suite("Spec rules B20–B21, B29–B30: countdown, UIKit never asserts, HTML analog")
struct CountdownAndAnalogRuleTests {
    @Test(
        "B20/A4/A5: countdown extremes (interval 1)",
        arguments: [
            (0.0, 60.0), (59, 60), (59.999, 60), (60, 60), (119.9, 60), (3659, 3600), (7199.9, 7140),
            (86_339, 86_280), (86_340, 86_340), (86_399, 86_340), (86_400, 86_340), (1e300, 86_340), (-1, 60),
            (-1e300, 60), (.nan, 60), (.infinity, 86_340), (-.infinity, 60), (.leastNonzeroMagnitude, 60),
        ])
    func b20Extremes(input: Double, expected: Double) {
        var picker = Fixtures.picker(.countDownTimer)
        picker.countDownDuration = input
        #expect(picker.countDownDuration == expected, "countDownDuration = \(input)")
    }

    @Test(
        "B20: the minute is floored to the interval and 0:00 becomes one interval",
        arguments: [
            (15, 899.0, 900.0), (15, 900, 900), (15, 1799, 900), (30, 5400, 5400), (30, 5399, 3600),
            (6, 86_399, 86_040), (20, 30, 1200), (10, 4000, 3600), (12, 86_400, 85_680), (2, 179, 120),
        ])
    func b20Interval(interval: Int, input: Double, expected: Double) {
        var picker = Fixtures.picker(.countDownTimer, interval: interval)
        picker.countDownDuration = input
        #expect(picker.countDownDuration == expected, "interval \(interval), countDownDuration = \(input)")
    }

    @Test("B20: setCountDownDuration throws for -1, NaN and ±infinity and leaves the value unchanged")
    func b20Throws() throws {
        var picker = Fixtures.picker(.countDownTimer)
        try picker.setCountDownDuration(7200)
        for bad in [-1, -0.5, Double.nan, .infinity, -.infinity] {
            #expect(throws: DatePickingError.self) { try picker.setCountDownDuration(bad) }
        }
        #expect(picker.countDownDuration == 7200)
        try picker.setCountDownDuration(1e12)  // finite and positive: capped, not rejected
        #expect(picker.countDownDuration == 86_340)
    }

    @Test("B21/A12: countdown date loads the local hour:minute (London BST 01:45 → 6300; Paris 01:10 → 4200)")
    func b21DateInCountdown() {
        var picker = Fixtures.picker(.countDownTimer, zone: "Europe/London")
        picker.date = Spec.at("2026-07-01T00:45:59Z")
        #expect(picker.countDownDuration == 6300)
        picker.timeZone = Fixtures.zone("Europe/Paris")
        picker.date = Date(timeIntervalSinceReferenceDate: 600)  // 2001-01-01 01:10 CET (ActionSheetPicker #72)
        #expect(picker.countDownDuration == 4200)
        picker.date = Spec.at("2026-07-01T22:00:00Z")  // 00:00 CEST: 0:00 is shown as one interval
        #expect(picker.countDownDuration == 60)
    }

    @Test("B21: countdown wheels: minute 59 → 0 does not carry; hours stop at 0 and 23")
    func b21Wheels() {
        var picker = Fixtures.picker(.countDownTimer)
        picker.countDownDuration = 3540  // 0:59
        #expect(picker.spin(.countdownMinute, by: 1).restriction == .countDownMinimum)
        #expect(picker.countDownDuration == 60)  // 0:00 → 0:01
        picker.countDownDuration = 7140  // 1:59
        picker.spin(.countdownMinute, by: 1)
        #expect(picker.countDownDuration == 3600)  // 1:00, no carry
        picker.spin(.countdownHour, by: 1000)
        #expect(picker.countDownDuration == 23 * 3600)
        picker.spin(.countdownMinute, by: -1001)  // 60 rows: -1001 mod 60 = 19
        #expect(picker.countDownDuration == 23 * 3600 + 19 * 60)
        picker.spin(.countdownHour, by: Int.min)
        #expect(picker.countDownDuration == 19 * 60)
        picker.minuteInterval = 15
        #expect(picker.wheels.last?.values == [0, 15, 30, 45].map(WheelValue.number))
        picker.spin(.countdownMinute, by: -2)  // row 1 (15) − 2 rows = row 3 (45)
        #expect(picker.countDownDuration == 45 * 60)
        #expect(picker.spin(.hour, by: 1).sentValueChanged == false)  // no such wheel in countdown
    }

    @Test("A5: allowsZeroCountDownDuration keeps 0:00 for setter, spins and the getter")
    func a5AllowsZero() {
        var picker = Fixtures.picker(.countDownTimer, interval: 10)
        picker.allowsZeroCountDownDuration = true
        #expect(picker.countDownDuration == 0)
        picker.countDownDuration = 600
        picker.spin(.countdownMinute, by: -1)
        #expect(picker.countDownDuration == 0)
        picker.allowsZeroCountDownDuration = false
        #expect(picker.countDownDuration == 600)
    }

    @Test("B29: UIKit never asserts where Flutter does: unaligned minutes, dates outside the bounds, bad intervals")
    func b29NoAssertions() {
        var picker = Fixtures.picker(.dateAndTime, interval: 15)
        picker.minimumDate = Spec.at("2026-05-10T10:00:00Z")
        picker.maximumDate = Spec.at("2026-05-10T11:00:00Z")
        picker.date = Spec.at("2026-05-10T09:07:00Z")  // before the minimum and not on the grid: accepted
        #expect(picker.date == Spec.at("2026-05-10T10:00:00Z"))
        picker.minuteInterval = 7  // Flutter asserts; UIKit ignores
        #expect(picker.minuteInterval == 15)
        picker.datePickerMode = .countDownTimer
        picker.countDownDuration = 90_000  // Flutter asserts < 1 day; UIKit caps at 23:59, floored to 23:45
        #expect(picker.countDownDuration == 85_500)
    }

    @Test("B30: HTML stepUp/stepDown: numbers, reversed ranges, against-direction clamps, bogus steps")
    func b30HTML() throws {
        let number = HTMLInputStepping(type: .number, value: "10", min: nil, max: nil, step: "2")
        #expect(try number.run(.stepDown, n: 3) == "4")
        let reversed = HTMLInputStepping(
            type: .date, value: "2026-05-10", min: "2026-06-01", max: "2026-05-01", step: nil)
        #expect(try reversed.run(.stepUp, n: 1) == "2026-05-10")
        let above = HTMLInputStepping(type: .time, value: "10:00", min: nil, max: "09:00", step: nil)
        #expect(try above.run(.stepUp, n: 1) == "10:00")  // clamping would move it down: nothing happens
        let bogus = HTMLInputStepping(type: .date, value: "2026-05-10", min: nil, max: nil, step: "-3")
        #expect(try bogus.run(.stepUp, n: 2) == "2026-05-12")  // a negative step means the default, 1 day
        let invalid = HTMLInputStepping(type: .time, value: "25:00", min: nil, max: nil, step: nil)
        #expect(try invalid.run(.none, n: 1) == "")
    }

    @Test("A13: datetime-local steps by 60 s by default, not one day")
    func a13DatetimeLocal() throws {
        let input = HTMLInputStepping(
            type: .datetimeLocal, value: "2026-12-31T23:59", min: nil, max: nil, step: nil)
        #expect(try input.run(.stepUp, n: 1) == "2027-01-01T00:00")
    }
}
