import Testing

@testable import TimerProtocol

@Suite("LocalTimeText: the one local-time grammar of timerctl and timerd")
struct LocalTimeTextTests {
    // Accepted by both former copies (timerctl's AbsoluteTime.isLocalTime and DatePicking's parse).
    @Test(
        "Times of day and date-times in range are read field by field",
        arguments: [
            ("14:30", [nil, nil, nil, 14, 30, 0]), ("00:00:59", [nil, nil, nil, 0, 0, 59]),
            ("2026-12-01T09:07", [2026, 12, 1, 9, 7, 0]), ("2026-12-01 23:59:58", [2026, 12, 1, 23, 59, 58]),
        ] as [(String, [Int?])])
    func accepted(text: String, fields: [Int?]) throws {
        let wall = try #require(LocalTimeText(parsing: text))
        #expect([wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second] == fields)
    }

    // Refused by timerctl's former copy (and, but for "+1:30", by DatePicking's, whose Int() took a sign).
    @Test(
        "Anything else is refused",
        arguments: [
            "", "7:30", "25:00", "14:60", "14:30:60", "14:30:61", "noon", "14", "14:30:00:00", "+1:30", "１４:30",
            "2026-13-01T10:00", "2026-12-32T10:00", "26-12-01T10:00", "2026-12-01T", "2026-12-01X10:00", " 14:30",
        ])
    func refused(text: String) {
        #expect(LocalTimeText(parsing: text) == nil)
    }

    @Test("isCalendarDate checks the day of the month (Gregorian leap years) and year ≥ 1")
    func calendar() throws {
        // Expected values: 2026 is not a leap year, 2028 is, 2100 is not (÷100), 2000 is (÷400).
        let cases = [
            ("2026-02-28T10:00", true), ("2026-02-29T10:00", false), ("2028-02-29T10:00", true),
            ("2100-02-29T10:00", false), ("2000-02-29T10:00", true), ("2026-04-31T10:00", false),
            ("0000-01-01T10:00", false), ("14:30", true),
        ]
        for (text, exists) in cases {
            #expect(try #require(LocalTimeText(parsing: text)).isCalendarDate == exists, "\(text)")
        }
    }

    @Test("The minute interval divides 60 and is 1 to 30 (UIDatePicker.minuteInterval)")
    func minuteInterval() {
        #expect((-1...61).filter(MinuteInterval.isValid) == [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30])
    }
}
