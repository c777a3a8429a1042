import Foundation
import Testing

@testable import DatePicking

@Suite("Time-zone identifiers that make Foundation trap are refused, not passed on")
struct TimeZoneIdentifierTests {
    @Test("GMT offsets with a non-digit after the colon are unknown zones (found by the calendar fuzz target)")
    func trappingNamesAreRefused() {
        // TimeZone(identifier:) trapped (SIGILL) on each of these in swift-foundation 6.x; checked with a
        // 3-line program before the fix.
        for name in ["GMT-05:-0", "UTC-05:/0", "GMT-05:.0", "UTC-05:\u{14}0", "GMT+00:x0", "GMT+0..\u{0}5"] {
            #expect(throws: DatePickingError.unknownTimeZone(name)) { try DatePicker.timeZone(identifier: name) }
        }
    }

    @Test("Names Foundation reads still work: IANA names and GMT offsets with digits after the colon")
    func readableNames() throws {
        #expect(try DatePicker.timeZone(identifier: "Europe/Paris").identifier == "Europe/Paris")
        // Foundation reads GMT+05:30 as 5 h 30 min east of UTC: 19,800 s.
        #expect(try DatePicker.timeZone(identifier: "GMT+05:30").secondsFromGMT() == 19_800)
        // Foundation reads GMT+5 and GMT+0530 too (18,000 and 19,800 s east).
        #expect(try DatePicker.timeZone(identifier: "GMT+5").secondsFromGMT() == 18_000)
        #expect(try DatePicker.timeZone(identifier: "GMT+0530").secondsFromGMT() == 19_800)
        #expect(DatePicker.isSafeZoneIdentifier("Etc/GMT+5"))
        #expect(DatePicker.isSafeZoneIdentifier("GMT0"))
        #expect(!DatePicker.isSafeZoneIdentifier("GMT-05:-0"))
        #expect(!DatePicker.isSafeZoneIdentifier("GMT+0..\u{0}5"))
    }
}
