import Foundation
import TestSupport
import Testing

@testable import DatePicking

@Suite("Edge cases: extreme dates, non-finite values, unknown identifiers")
struct EdgeTests {
    static let extremes: [Date] = [
        .distantPast,  // 0001-01-01T00:00:00Z
        .distantFuture,  // 4001-01-01T00:00:00Z
        Date(timeIntervalSinceReferenceDate: -1e300),
        Date(timeIntervalSinceReferenceDate: 1e300),
    ]

    @Test("distantPast/distantFuture and huge instants: every operation works and nothing traps")
    func extremeDates() {
        for mode in DatePickerMode.allCases {
            for extreme in Self.extremes {
                var picker = Fixtures.picker(mode, zone: "America/New_York", interval: 15)
                picker.date = extreme
                #expect(picker.date >= .distantPast && picker.date <= DatePicker.latestDate)
                picker.minimumDate = extreme
                for wheel in WheelKind.allCases {
                    picker.spin(wheel, by: Int.max)
                    picker.spin(wheel, by: Int.min)
                    _ = picker.isEnabled(.number(1), in: wheel)
                }
                _ = picker.wheels
                #expect(picker.date >= .distantPast && picker.date <= DatePicker.latestDate)
            }
        }
    }

    @Test("A non-finite date is ignored by the property and rejected by setDate")
    func nonFiniteDate() {
        var picker = Fixtures.picker()
        let before = picker.date
        picker.date = Date(timeIntervalSinceReferenceDate: .nan)
        picker.minimumDate = Date(timeIntervalSinceReferenceDate: .infinity)
        #expect(picker.date == before)
        #expect(throws: DatePickingError.invalidDate("nan")) {
            try picker.setDate(Date(timeIntervalSinceReferenceDate: .nan))
        }
    }

    @Test("Unknown identifiers give typed errors naming what is allowed")
    func unknownIdentifiers() {
        var picker = Fixtures.picker()
        #expect(throws: DatePickingError.unknownTimeZone("Mars/Olympus")) {
            try picker.setTimeZone(identifier: "Mars/Olympus")
        }
        #expect(throws: DatePickingError.unknownLocale("xx_YY")) { try picker.setLocale(identifier: "xx_YY") }
        #expect(throws: DatePickingError.unknownCalendar("mayan")) { try picker.setCalendar(identifier: "mayan") }
        #expect(throws: DatePickingError.unknownTimeZone("Nowhere")) {
            try DatePickerEnvironment(now: Fixtures.now, localeIdentifier: "en_US", timeZoneIdentifier: "Nowhere")
        }
        #expect(DatePickingError.unknownCalendar("mayan").description.contains("gregorian"))
        #expect(DatePickingError.unknownTimeZone("x").description.contains("IANA"))
        #expect(picker.timeZone == Fixtures.zone("UTC"))
    }

    @Test("Known identifiers are accepted, including Swift case names for calendars")
    func knownIdentifiers() throws {
        var picker = Fixtures.picker()
        try picker.setCalendar(identifier: "islamicUmmAlQura")
        #expect(picker.calendar?.identifier == .islamicUmmAlQura)
        try picker.setLocale(identifier: "fa_IR")
        try picker.setTimeZone(identifier: "Asia/Tehran")
        try picker.setTimeZone(identifier: nil)
        #expect(picker.timeZone == nil)
    }

    @Test("Apia 2011-12-30 does not exist: the date wheel goes from Dec 29 to Dec 31")
    func apiaSkippedDay() {
        var picker = Fixtures.picker(.dateAndTime, zone: "Pacific/Apia")
        picker.date = Date(timeIntervalSince1970: 1_325_196_000)  // 2011-12-29T22:00:00Z = Dec 29 12:00 -10:00
        let wheel = picker.wheels[0]
        let zone = Fixtures.zone("Pacific/Apia")
        #expect(Instants.gregorianDay(wheel.value(atRow: wheel.selectedRow), zone: zone) == "2011-12-29")
        #expect(Instants.gregorianDay(wheel.value(atRow: wheel.selectedRow + 1), zone: zone) == "2011-12-31")
    }

    @Test("Codable round trip keeps every property")
    func codable() throws {
        var picker = Fixtures.picker(.time, zone: "Europe/London", locale: "ar_EG", calendar: "hebrew", interval: 5)
        picker.minimumDate = FixedInstant.newYearNoon  // 2026-01-01T12:00:00Z
        picker.spin(.hour, by: 3)
        let data = try JSONEncoder().encode(picker)
        let decoded = try JSONDecoder().decode(DatePicker.self, from: data)
        #expect(decoded == picker)
        #expect(decoded.date == picker.date)
    }
}
