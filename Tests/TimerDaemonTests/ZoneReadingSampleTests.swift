import Foundation
import Testing
import ZoneReading

/// The code sample of Sources/ZoneReading/ZoneReading.docc/ZoneReading.md, run with the values its
/// comments claim. `TZ=UTC+3` is three hours behind UTC by POSIX's sign (glibc: `TZ=UTC+3 date -d
/// @1795788000` prints 11:00 for 14:00Z); `posix/Europe/Paris` is the database zone Europe/Paris.
@Suite("ZoneReading DocC sample")
struct ZoneReadingDocumentationSampleTests {
    @Test("ZoneReading.md")
    func sample() throws {
        let reading = ZoneReader.current(tz: "UTC+3")
        #expect(reading.zone.secondsFromGMT(for: Date(timeIntervalSince1970: 1_795_788_000)) == -10_800)
        #expect(reading.warning == nil)
        let paris = try ZoneReader.zone(named: "posix/Europe/Paris")
        #expect(paris.zone.identifier == "Europe/Paris" && paris.name == "Europe/Paris")
    }
}
