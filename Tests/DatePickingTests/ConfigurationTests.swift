import Foundation
import Testing

@testable import DatePicking

@Suite("Configuration and defaults (B1, B2)")
struct ConfigurationTests {
    @Test("B1/B2: a fresh picker has UIKit's defaults and the environment's now as its date")
    func defaults() {
        let picker = DatePicker(environment: DatePickerEnvironment(now: Fixtures.now))
        #expect(picker.datePickerMode == .dateAndTime)
        #expect(picker.minuteInterval == 1)
        #expect(picker.roundsToMinuteInterval)
        #expect(picker.minimumDate == nil && picker.maximumDate == nil)
        #expect(picker.locale == nil && picker.calendar == nil && picker.timeZone == nil)
        #expect(picker.nonexistentTimePolicy == .revert)
        #expect(picker.countDownDuration == 60)  // A5
        #expect(picker.date == Fixtures.now)  // 2026-01-01T12:00:00Z
        #expect(picker.valueChangedCount == 0)
    }

    @Test("B2: nil locale, calendar and time zone fall back to the environment (null-resettable)")
    func environmentFallback() throws {
        var picker = DatePicker(
            environment: try DatePickerEnvironment(
                now: Fixtures.now, localeIdentifier: "de_DE", timeZoneIdentifier: "Asia/Tokyo",
                calendarIdentifier: "buddhist"))
        #expect(picker.effectiveCalendar.identifier == .buddhist)
        #expect(picker.effectiveCalendar.timeZone.identifier == "Asia/Tokyo")
        // The environment's calendar is merged into its locale (B2).
        #expect(picker.effectiveLocale.identifier == "de_DE@calendar=buddhist")
        picker.locale = Locale(identifier: "en_US")
        picker.locale = nil
        #expect(picker.effectiveLocale.identifier == "de_DE@calendar=buddhist")
    }

    @Test("B1: mode names round-trip through their UIKit spelling")
    func modeNames() {
        for mode in DatePickerMode.allCases {
            #expect(DatePickerMode(name: mode.description) == mode)
        }
        #expect(DatePickerMode(name: "yearAndMonth") == nil)
    }
}
