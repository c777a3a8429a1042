import Foundation
import TestSupport
import Testing

@testable import DatePicking

@Suite("Minute interval and rounding (B3, B6–B9)")
struct RoundingTests {
    @Test("B3: only divisors of 60 in 1...30 are accepted", arguments: Array(-5...65))
    func b3ValidIntervals(value: Int) {
        var picker = Fixtures.picker()
        picker.minuteInterval = 15
        picker.minuteInterval = value
        let valid = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].contains(value)
        #expect(picker.minuteInterval == (valid ? value : 15))
        #expect(DatePicker.isValidMinuteInterval(value) == valid)
    }

    @Test("B3/A1: setMinuteInterval throws a typed error and keeps the previous value")
    func b3Throwing() throws {
        var picker = Fixtures.picker()
        try picker.setMinuteInterval(10)
        #expect(throws: DatePickingError.invalidMinuteInterval(7)) { try picker.setMinuteInterval(7) }
        #expect(picker.minuteInterval == 10)
        #expect(DatePickingError.invalidMinuteInterval(7).description.contains("divisor of 60"))
    }

    @Test("B7: floor, not nearest; seconds kept, fraction dropped")
    func b7Floor() {
        var picker = Fixtures.picker(interval: 15)
        picker.date = Date(timeIntervalSince1970: 1_778_408_099.5)  // 2026-05-10T10:14:59.500Z
        #expect(picker.date == Date(timeIntervalSince1970: 1_778_407_259))  // 2026-05-10T10:00:59Z
    }

    @Test("B7.1: an aligned date is untouched, fraction included")
    func b7Aligned() {
        var picker = Fixtures.picker(interval: 15)
        let aligned = Date(timeIntervalSince1970: 1_778_407_200.25)  // 2026-05-10T10:00:00.250Z
        picker.date = aligned
        #expect(picker.date == aligned)
    }

    @Test("B7.3: a larger interval floors on the next read; a smaller one does not undo it")
    func b7ReadTimeRounding() {
        var picker = Fixtures.picker(interval: 1)
        picker.date = FixedInstant.mayMorning  // 2026-05-10T10:07:00Z
        picker.minuteInterval = 5
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-05-10 10:05:00")
        picker.minuteInterval = 15
        picker.date = FixedInstant.mayMorning  // 10:07Z, stored as 10:00
        picker.minuteInterval = 1
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-05-10 10:00:00")
    }

    @Test("B8: rounding off returns the exact value while the minute wheel shows the floored row")
    func b8RoundingOff() {
        var picker = Fixtures.picker(.time, interval: 10)
        picker.roundsToMinuteInterval = false
        picker.date = FixedInstant.mayMorning  // 2026-05-10T10:07:00Z
        #expect(picker.date == FixedInstant.mayMorning)
        #expect(picker.selectedValue(of: .minute) == .number(0))
    }

    @Test("B7.5: rounding does not depend on the mode (date mode floors the time too)")
    func b7DateMode() {
        var picker = Fixtures.picker(.date, interval: 15)
        picker.date = FixedInstant.mayMorning  // 2026-05-10T10:07:00Z
        #expect(Fixtures.wall(picker.date, "UTC") == "2026-05-10 10:00:00")
    }

    @Test("B9: Europe/London fall-back 01:37 GMT (second occurrence) floors to 01:30 BST, the first")
    func b9FallBack() {
        var picker = Fixtures.picker(zone: "Europe/London", interval: 15)
        picker.date = Date(timeIntervalSince1970: 1_792_892_220)  // 2026-10-25T01:37:00Z = 01:37 GMT
        #expect(picker.date == Date(timeIntervalSince1970: 1_792_888_200))  // 2026-10-25T00:30:00Z = 01:30 BST
        picker.minuteInterval = 1
        picker.date = Date(timeIntervalSince1970: 1_792_892_220)  // no rebuild with interval 1
        #expect(picker.date == Date(timeIntervalSince1970: 1_792_892_220))
    }

    @Test("B9: America/Los_Angeles fall-back 01:40 PST floors to 01:30 PDT")
    func b9LosAngeles() {
        var picker = Fixtures.picker(zone: "America/Los_Angeles", interval: 30)
        picker.date = Date(timeIntervalSince1970: 1_793_526_000)  // 2026-11-01T09:40:00Z = 01:40 PST
        #expect(picker.date == FixedInstant.fallBackFirst)  // 2026-11-01T08:30:00Z = 01:30 PDT
    }
}
