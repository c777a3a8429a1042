import Foundation
import Testing

@testable import DatePicking

/// Rows in a daylight-saving gap are disabled, and a key step passes over them (rules B13, B23, decision A17 of
/// docs/datepicker-rules.md). Offsets and gaps are those of the tz database: Europe/Paris goes from 02:00 CET to
/// 03:00 CEST on 2026-03-29, America/Los_Angeles from 02:00 PST to 03:00 PDT on 2026-03-08, and
/// Australia/Lord_Howe from 02:00 to 02:30 (+10:30 to +11:00) on 2026-10-04.
@Suite("Daylight-saving gaps: disabled rows and stepping past them")
struct GapStepTests {
    static func picker(
        _ mode: DatePickerMode = .dateAndTime, zone: String, locale: String = "en_GB", at instant: String
    ) -> DatePicker {
        var picker = Fixtures.picker(mode, zone: zone, locale: locale)
        picker.date = ISO8601DateFormatter().date(from: instant) ?? Fixtures.now
        return picker
    }

    static func wall(_ picker: DatePicker) -> String {
        Fixtures.wall(picker.date, picker.effectiveCalendar.timeZone.identifier)
    }

    @Test("Europe/Paris 2026-03-29 01:30 CET: hour 02 is disabled; step +1 is 03:30 CEST, step −1 back to 01:30")
    func parisHourStep() {
        var picker = Self.picker(zone: "Europe/Paris", at: "2026-03-29T00:30:00Z")
        #expect(!picker.isEnabled(.number(2), in: .hour))
        #expect(picker.isEnabled(.number(1), in: .hour))
        #expect(picker.isEnabled(.number(3), in: .hour))
        let outcome = picker.step(.hour, by: 1)
        #expect(outcome == SpinOutcome(sentValueChanged: true, restriction: nil))
        #expect(picker.valueChangedCount == 1)
        // 03:30 CEST is 01:30Z: one real hour after 01:30 CET (00:30Z).
        #expect(picker.date == ISO8601DateFormatter().date(from: "2026-03-29T01:30:00Z"))
        #expect(!picker.isEnabled(.number(2), in: .hour))
        picker.step(.hour, by: -1)
        #expect(Self.wall(picker) == "2026-03-29 01:30:00")
        #expect(picker.valueChangedCount == 2)
    }

    @Test("spin keeps UIKit's revert onto the gap (A7); step passes over it")
    func spinStillReverts() {
        var picker = Self.picker(zone: "Europe/Paris", at: "2026-03-29T00:30:00Z")
        #expect(picker.spin(.hour, by: 1).restriction == .revertedToLastValidSelection)
        #expect(Self.wall(picker) == "2026-03-29 01:30:00")
        #expect(picker.step(.hour, by: 1).restriction == nil)
        #expect(Self.wall(picker) == "2026-03-29 03:30:00")
    }

    @Test("America/Los_Angeles 2026-03-08, 12-hour: 1:30 AM stepped +1 is 3:30 AM PDT; the 2 row is disabled")
    func losAngelesTwelveHour() {
        var picker = Self.picker(zone: "America/Los_Angeles", locale: "en_US", at: "2026-03-08T09:30:00Z")
        #expect(picker.uses12HourClock)
        #expect(!picker.isEnabled(.number(2), in: .hour))
        picker.step(.hour, by: 1)
        // 3:30 AM PDT is 10:30Z.
        #expect(picker.date == ISO8601DateFormatter().date(from: "2026-03-08T10:30:00Z"))
        #expect(picker.selectedValue(of: .ampm) == .meridiem(.am))
    }

    @Test("Australia/Lord_Howe 2026-10-04, a 30-minute gap: at 02:45, minutes 00–29 are disabled, 30–59 not")
    func lordHoweMinutes() {
        // 02:45 +11:00 is 15:45Z on 2026-10-03.
        var picker = Self.picker(zone: "Australia/Lord_Howe", at: "2026-10-03T15:45:00Z")
        picker.minuteInterval = 15
        #expect(Self.wall(picker) == "2026-10-04 02:45:00")
        #expect(!picker.isEnabled(.number(0), in: .minute))
        #expect(!picker.isEnabled(.number(15), in: .minute))
        #expect(picker.isEnabled(.number(30), in: .minute))
        #expect(picker.isEnabled(.number(2), in: .hour))
        // Down from 02:45 wraps to 02:00 (no carry, B15), which does not exist: the step goes on to 02:30.
        picker.step(.minute, by: 1)
        #expect(Self.wall(picker) == "2026-10-04 02:30:00")
    }

    @Test("In .date mode no time is shown, so no row is disabled by a gap")
    func dateModeIgnoresGaps() {
        let picker = Self.picker(.date, zone: "Europe/Paris", at: "2026-03-29T00:30:00Z")
        #expect(picker.isEnabled(.number(29), in: .day))
    }
}
