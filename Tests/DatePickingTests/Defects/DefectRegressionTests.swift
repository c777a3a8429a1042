import Foundation
import Testing

@testable import DatePicking

/// Three defects, each pinned by a test that failed on main before the fix (commit message
/// of the fix says how each failed).
@Suite("Date-picker defects: Chinese leap month, valueChangedCount overflow, non-finite dates")
struct DefectRegressionTests {
    // 2025-08-01T12:07:00Z is day 8 of leap month 6 of Chinese year 42 (乙巳) of cycle 78: Foundation's own
    // `Calendar(identifier: .chinese).dateComponents` says month 6, isLeapMonth true, on this machine.
    static let inLeapMonth = Date(timeIntervalSince1970: 1_754_050_020)  // 2025-08-01T12:07:00Z

    static func chinesePicker(_ mode: DatePickerMode = .date, interval: Int = 1) -> DatePicker {
        Fixtures.picker(mode, zone: "UTC", locale: "zh_CN", calendar: "chinese", interval: interval)
    }

    @Test("Rounding keeps the leap month: 2025-08-01T12:07Z with interval 15 reads back 12:00 the same day")
    func roundingKeepsLeapMonth() {
        var picker = Self.chinesePicker(.dateAndTime, interval: 15)
        picker.date = Self.inLeapMonth
        // Expected: the same wall day with the minute floored (B7); main gave 2025-07-02T12:00:00Z (month 6, not
        // leap month 6, a lunar month earlier).
        #expect(Spec.iso(picker.date) == "2025-08-01T12:00:00.000Z")
    }

    @Test("A minute spin keeps the leap month")
    func spinKeepsLeapMonth() {
        var picker = Self.chinesePicker(.dateAndTime)
        picker.date = Self.inLeapMonth
        picker.spin(.minute, by: 1)
        // Expected: one minute later, nothing else changed (B17); main moved to 2025-07-02.
        #expect(Spec.iso(picker.date) == "2025-08-01T12:08:00.000Z")
    }

    @Test("A mode change that rebuilds the date keeps the leap month")
    func modeChangeKeepsLeapMonth() {
        var picker = Self.chinesePicker(.time)
        picker.date = Date(timeIntervalSince1970: 1_754_050_020.5)  // 2025-08-01T12:07:00.5Z
        picker.datePickerMode = .date
        // Expected: the rebuild drops the half second only (B28, A3); main went back a lunar month.
        #expect(Spec.iso(picker.date) == "2025-08-01T12:07:00.000Z")
    }

    @Test("The Chinese month wheel has a row for the leap month in a leap year, and it is selected")
    func leapMonthRow() throws {
        var picker = Self.chinesePicker(.date)
        picker.date = Self.inLeapMonth
        let month = try #require(picker.wheels.first { $0.kind == .month })
        // Year 乙巳 has 13 months (Foundation: range(of: .month, in: .year) counts 1–12 and leap 6 is the
        // thirteenth); main showed 12 rows and selected month 6, so the leap month could not be shown.
        #expect(month.rowCount == 13)
        #expect(month.selectedValue == .leapMonth(6))
        #expect(month.value(atRow: 5) == .number(6))
        #expect(month.value(atRow: 7) == .number(7))
    }

    @Test("Spinning the Chinese month wheel steps through the leap month")
    func monthSpinThroughLeapMonth() {
        var picker = Self.chinesePicker(.date)
        picker.date = Self.inLeapMonth
        picker.spin(.month, by: -1)
        // Month 6, day 8 of year 乙巳 is 2025-07-02 (Foundation's date(from:) with isLeapMonth false).
        #expect(Spec.iso(picker.date) == "2025-07-02T12:07:00.000Z")
        picker.spin(.month, by: 1)
        #expect(Spec.iso(picker.date) == "2025-08-01T12:07:00.000Z")
        picker.spin(.month, by: 1)
        // Month 7 day 8 of 乙巳 is 2025-08-30.
        #expect(Spec.iso(picker.date) == "2025-08-30T12:07:00.000Z")
    }

    @Test("A picker decoded with valueChangedCount Int.max does not trap on its next spin")
    func valueChangedCountSaturates() throws {
        var picker = Fixtures.picker(.time)
        var object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(picker)) as? [String: Any])
        object["valueChangedCount"] = Int.max
        picker = try JSONDecoder().decode(DatePicker.self, from: JSONSerialization.data(withJSONObject: object))
        let outcome = picker.spin(.minute, by: 1)
        // Expected: the event is sent and the count stays at its ceiling; main trapped on `+= 1`.
        #expect(outcome.sentValueChanged)
        #expect(picker.valueChangedCount == Int.max)
    }

    @Test(
        "Non-finite minimum, maximum and now are not stored, so the picker still encodes",
        arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteDatesAreNotStored(value: Double) throws {
        var picker = Fixtures.picker(.dateAndTime)
        let bad = Date(timeIntervalSinceReferenceDate: value)
        picker.minimumDate = bad
        picker.maximumDate = bad
        picker.environment.now = bad
        // Expected (documented on each property): a non-finite bound is stored as nil, a non-finite now is
        // ignored. Main stored them and JSONEncoder then threw "Unable to encode Double.nan directly in JSON".
        #expect(picker.minimumDate == nil)
        #expect(picker.maximumDate == nil)
        #expect(picker.environment.now == Fixtures.now)
        let data = try JSONEncoder().encode(picker)
        #expect(try JSONDecoder().decode(DatePicker.self, from: data) == picker)
    }

    @Test("A non-finite now given to the environment's initialiser becomes the reference date")
    func nonFiniteNowInInitialiser() {
        let environment = DatePickerEnvironment(now: Date(timeIntervalSinceReferenceDate: .nan))
        // Expected: documented fallback, 2001-01-01T00:00:00Z (the reference date).
        #expect(environment.now == Date(timeIntervalSinceReferenceDate: 0))
    }
}
