import Foundation
import TestSupport
import Testing

@testable import DatePicking

@Suite("Minimum and maximum (B10–B13)")
struct RangeTests {
    @Test("B10: an inverted range is ignored; equal bounds are allowed")
    func b10Inverted() {
        var picker = Fixtures.picker()
        picker.minimumDate = Date(timeIntervalSince1970: 1_768_035_600)  // 2026-01-10T09:00:00Z
        picker.maximumDate = FixedInstant.newYearNoon  // 2026-01-01T12:00:00Z
        picker.date = Date(timeIntervalSince1970: 1_778_407_200)  // 2026-05-10T10:00:00Z
        #expect(picker.date == Date(timeIntervalSince1970: 1_778_407_200))
        picker.maximumDate = picker.minimumDate
        #expect(picker.date == Date(timeIntervalSince1970: 1_768_035_600))
    }

    @Test("B11/A6: stored raw, clamped on read after rounding; an unaligned minimum is returned as is")
    func b11ClampAfterRounding() {
        var picker = Fixtures.picker(.time, interval: 10)
        picker.minimumDate = Date(timeIntervalSince1970: 1_768_036_020)  // 2026-01-10T09:07:00Z
        picker.date = FixedInstant.newYearNoon  // 2026-01-01T12:00:00Z, before the minimum
        #expect(picker.date == Date(timeIntervalSince1970: 1_768_036_020))  // 09:07, unaligned
        #expect(picker.selectedValue(of: .minute) == .number(0))  // the wheel shows the floored row
        picker.minimumDate = nil
        #expect(picker.date == FixedInstant.newYearNoon)  // the stored value is back
    }

    @Test("B12/A9: date mode validates by day, the read value is the full-precision minimum")
    func b12DateGranularity() {
        var picker = Fixtures.picker(.date)
        picker.minimumDate = Date(timeIntervalSince1970: 1_577_880_000)  // 2020-01-01T12:00:00Z
        picker.date = Date(timeIntervalSince1970: 1_578_787_200)  // 2020-01-12T00:00:00Z
        #expect(picker.isEnabled(.number(1), in: .day))  // Jan 1 is allowed although 00:00 < 12:00
        picker.spin(.year, by: -1)
        #expect(picker.date == Date(timeIntervalSince1970: 1_577_880_000))
    }

    @Test("B12/A10: time mode compares the full date, so a minimum on another day disables every hour")
    func b12TimeModeOtherDay() {
        var picker = Fixtures.picker(.time)
        picker.date = FixedInstant.newYearNoon  // 2026-01-01T12:00:00Z
        picker.minimumDate = Date(timeIntervalSince1970: 1_768_035_600)  // 2026-01-10T09:00:00Z
        // The date reads as the minimum, so the wheels show Jan 10; every hour before 9 on that day is disabled.
        #expect(!picker.isEnabled(.number(8), in: .hour))
        #expect(picker.isEnabled(.number(10), in: .hour))
    }

    @Test("B13: rows outside [03:30, 14:59:59] and missing days are disabled")
    func b13Rows() {
        var picker = Fixtures.picker(.time)
        picker.minimumDate = Date(timeIntervalSince1970: 1_573_443_000)  // 2019-11-11T03:30:00Z
        picker.maximumDate = Date(timeIntervalSince1970: 1_573_484_399)  // 2019-11-11T14:59:59Z
        picker.date = Date(timeIntervalSince1970: 1_573_444_800)  // 2019-11-11T04:00:00Z
        #expect(!picker.isEnabled(.number(2), in: .hour))
        #expect(picker.isEnabled(.number(3), in: .hour))
        #expect(!picker.isEnabled(.meridiem(.pm), in: .ampm))
        picker.spin(.hour, by: -1)  // 3 AM: minute rows before 30 are disabled
        #expect(!picker.isEnabled(.number(29), in: .minute))
        #expect(picker.isEnabled(.number(30), in: .minute))

        var february = Fixtures.picker(.date)
        february.date = Date(timeIntervalSince1970: 1_707_566_400)  // 2024-02-10T12:00:00Z, leap year
        #expect(february.isEnabled(.number(29), in: .day))
        #expect(!february.isEnabled(.number(30), in: .day))
    }

    @Test("B10/B21: bounds are ignored in countdown mode")
    func boundsIgnoredInCountdown() {
        var picker = Fixtures.picker(.countDownTimer)
        picker.minimumDate = FixedInstant.newYearNoon  // 2026-01-01T12:00:00Z
        picker.maximumDate = Date(timeIntervalSince1970: 1_767_269_100)  // 2026-01-01T12:05:00Z
        picker.countDownDuration = 7200
        #expect(picker.countDownDuration == 7200)
        #expect(picker.isEnabled(.number(23), in: .countdownHour))
    }
}
