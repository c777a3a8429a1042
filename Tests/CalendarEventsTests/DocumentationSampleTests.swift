import CalendarEvents
import Foundation
import Testing

/// The code sample of Sources/CalendarEvents/CalendarEvents.docc/CalendarEvents.md (and of docs/calendar.md),
/// run with the values its comments claim.
@Suite("CalendarEvents DocC sample")
struct CalendarEventsDocumentationSampleTests {
    @Test("CalendarEvents.md")
    func sample() throws {
        let expression = try CalendarExpression.parse("Mon..Fri 07:00")
        #expect(expression.normalized == "Mon..Fri *-*-* 07:00:00")
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        // 2026-12-04T12:00:00Z is a Friday: Monday 2026-12-07T06:00:00Z, then Tuesday 2026-12-08T06:00:00Z.
        let next = expression.elapses(after: Date(timeIntervalSince1970: 1_796_385_600), defaultZone: paris, count: 2)
        #expect(next == [Date(timeIntervalSince1970: 1_796_623_200), Date(timeIntervalSince1970: 1_796_709_600)])
        #expect(throws: CalendarExpressionError.valueOutOfRange(offset: 9, token: "25", field: .hour)) {
            try CalendarExpression.parse("Mon..Fri 25:00")
        }
        #expect(
            CalendarExpressionError.valueOutOfRange(offset: 9, token: "25", field: .hour).description
                == "hour '25' at offset 9 is out of range; allowed: 0..23")
    }
}
