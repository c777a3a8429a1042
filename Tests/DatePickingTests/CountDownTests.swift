import Foundation
import Testing

@testable import DatePicking

@Suite("Countdown mode (B20, B21, A4, A5, A12)")
struct CountDownTests {
    struct Case: Sendable, CustomStringConvertible {
        var interval: Int
        var set: Double
        var expected: Double
        var description: String { "interval \(interval): \(set) → \(expected)" }
    }

    static let cases: [Case] = [
        Case(interval: 1, set: 100, expected: 60),
        Case(interval: 1, set: 0, expected: 60),
        Case(interval: 1, set: -5, expected: 60),
        Case(interval: 1, set: 50_000, expected: 49_980),
        Case(interval: 1, set: 86_340, expected: 86_340),
        Case(interval: 1, set: 86_399, expected: 86_340),
        Case(interval: 1, set: 1e12, expected: 86_340),
        Case(interval: 1, set: .infinity, expected: 86_340),
        Case(interval: 1, set: .nan, expected: 60),
        Case(interval: 10, set: 4000, expected: 3600),
        Case(interval: 20, set: 30, expected: 1200),
        Case(interval: 30, set: 3599, expected: 1800),
    ]

    @Test("B20/A4/A5: whole minutes, at least one interval, at most 23:59", arguments: cases)
    func b20Setting(_ testCase: Case) {
        var picker = Fixtures.picker(.countDownTimer, interval: testCase.interval)
        picker.countDownDuration = testCase.set
        #expect(picker.countDownDuration == testCase.expected)
    }

    @Test("A5: allowsZeroCountDownDuration lets the wheels show 0:00")
    func a5AllowZero() {
        var picker = Fixtures.picker(.countDownTimer)
        picker.allowsZeroCountDownDuration = true
        #expect(picker.countDownDuration == 0)
    }

    @Test("B20: setCountDownDuration rejects NaN, infinity and negatives with a typed error")
    func b20Throwing() {
        var picker = Fixtures.picker(.countDownTimer)
        #expect(throws: DatePickingError.invalidCountDownDuration("nan")) { try picker.setCountDownDuration(.nan) }
        #expect(throws: DatePickingError.invalidCountDownDuration("inf")) {
            try picker.setCountDownDuration(.infinity)
        }
        #expect(throws: DatePickingError.invalidCountDownDuration("-1.0")) { try picker.setCountDownDuration(-1) }
        #expect(picker.countDownDuration == 60)
    }

    @Test("B21: minute 59 → 0 does not carry; at 0 h it becomes one interval")
    func b21Spin() {
        var picker = Fixtures.picker(.countDownTimer, interval: 5)
        picker.countDownDuration = 3300  // 0:55
        let outcome = picker.spin(.countdownMinute, by: 1)
        #expect(outcome.restriction == .countDownMinimum)
        #expect(picker.countDownDuration == 300)
        picker.spin(.countdownHour, by: -3)  // stays at 0 h
        #expect(picker.countDownDuration == 300)
        picker.spin(.countdownHour, by: 100)  // stops at 23 h
        #expect(picker.countDownDuration == 23 * 3600 + 300)
    }

    @Test("A12: date in countdown mode loads the local hour and minute (00:10Z is 01:10 in Berlin)")
    func a12Date() {
        var picker = Fixtures.picker(.countDownTimer, zone: "Europe/Berlin")
        picker.date = Date(timeIntervalSinceReferenceDate: 600)  // 2001-01-01T00:10:00Z = 01:10 CET
        #expect(picker.countDownDuration == 4200)
    }

    @Test("B28: switching to countdown restores the previous countdown value")
    func b28ModeSwitch() {
        var picker = Fixtures.picker(.countDownTimer)
        picker.countDownDuration = 5400
        picker.datePickerMode = .time
        picker.datePickerMode = .countDownTimer
        #expect(picker.countDownDuration == 5400)
    }
}
