import Foundation
import Testing

@testable import CalendarEvents

@Suite("Calendar expressions: parsing and the normalized form")
struct CalendarExpressionParsingTests {
    /// Every expected normalized form is what `systemd-analyze calendar 'EXPR'` (systemd 252, this machine)
    /// printed as "Normalized form:".
    @Test(
        "normalized like systemd-analyze",
        arguments: [
            ("Mon..Fri 07:00", "Mon..Fri *-*-* 07:00:00"),
            ("Mon,Tue,Wed,Fri *:1,2,3,5", "Mon..Wed,Fri *-*-* *:01,02,03,05:00"),
            ("Mon,Tue 1:00", "Mon,Tue *-*-* 01:00:00"),
            ("Sat-Sun", "Sat,Sun *-*-* 00:00:00"),
            ("Sun,Mon..Sat", "*-*-* 00:00:00"),
            ("mon-wed 5:00", "Mon..Wed *-*-* 05:00:00"),
            ("sunday", "Sun *-*-* 00:00:00"),
            ("*:0/15", "*-*-* *:00/15:00"),
            ("8..18/2:00", "*-*-* 08..18/2:00:00"),
            ("*-02~03", "*-02~03 00:00:00"),
            ("Mon *-05~07/1", "Mon *-05~07/1 00:00:00"),
            ("*-*~1..7", "*-*~01..07 00:00:00"),
            ("minutely", "*-*-* *:*:00"),
            ("hourly", "*-*-* *:00:00"),
            ("daily", "*-*-* 00:00:00"),
            ("DAILY", "*-*-* 00:00:00"),
            ("weekly", "Mon *-*-* 00:00:00"),
            ("monthly", "*-*-01 00:00:00"),
            ("yearly", "*-01-01 00:00:00"),
            ("annually", "*-01-01 00:00:00"),
            ("quarterly", "*-01,04,07,10-01 00:00:00"),
            ("semiannually", "*-01,07-01 00:00:00"),
            ("hourly UTC", "*-*-* *:00:00 UTC"),
            ("12:00:01.5", "*-*-* 12:00:01.500000"),
            ("*:*:1.1234567", "*-*-* *:*:01.123457"),
            ("1:2:3.0", "*-*-* 01:02:03"),
            ("*:*:0/0.5", "*-*-* *:*:00/0.500000"),
            ("*:*:1.5..3", "*-*-* *:*:01.500000..02.500000"),
            ("*:*:0.25..1/0.25", "*-*-* *:*:00.250000..01/0.250000"),
            ("*-*-* *:*:*", "*-*-* *:*:*"),
            ("*:10/20,1,5..7", "*-*-* *:01,05..07,10/20:00"),
            ("*:5..7,6", "*-*-* *:05..07,06:00"),
            ("*:5..7/2,5", "*-*-* *:05,05..07/2:00"),
            ("*:5/10,5/10", "*-*-* *:05/10:00"),
            ("*:5..9/3", "*-*-* *:05..08/3:00"),
            ("*:0..59/1", "*-*-* *:00..59:00"),
            ("*:5/1", "*-*-* *:05/1:00"),
            ("*:*:0/1,5", "*-*-* *:*:*"),
            ("*:*:1/1", "*-*-* *:*:01/1"),
            ("*:50..55/20", "*-*-* *:50:00"),
            ("5..5:00", "*-*-* 05:00:00"),
            ("2030..2040/3-1-1", "2030..2039/3-01-01 00:00:00"),
            ("00-01-01", "2000-01-01 00:00:00"),
            ("69-1-1", "2069-01-01 00:00:00"),
            ("70-01-01", "1970-01-01 00:00:00"),
            ("1-1", "*-01-01 00:00:00"),
            ("2026-*-* 1:00 utc", "2026-*-* 01:00:00 UTC"),
            ("Mon..Fri 07:00 Europe/Paris", "Mon..Fri *-*-* 07:00:00 Europe/Paris"),
            ("daily Europe/Paris", "*-*-* 00:00:00 Europe/Paris"),
            ("*-1/2-1..31/10", "*-01/2-01..31/10 00:00:00"),
        ])
    func normalized(_ text: String, _ expected: String) throws {
        #expect(try CalendarExpression.parse(text).normalized == expected)
    }

    /// The examples of systemd.time(7), "CALENDAR EVENTS" (the man page on this machine, systemd 252), with the
    /// normalized forms it gives; `systemd-analyze calendar` prints the same for each.
    @Test(
        "systemd.time(7)'s own examples",
        arguments: [
            ("Sat,Thu,Mon..Wed,Sat..Sun", "Mon..Thu,Sat,Sun *-*-* 00:00:00"),
            ("Mon,Sun 12-*-* 2,1:23", "Mon,Sun 2012-*-* 01,02:23:00"),
            ("Wed *-1", "Wed *-*-01 00:00:00"),
            ("Wed..Wed,Wed *-1", "Wed *-*-01 00:00:00"),
            ("Wed, 17:48", "Wed *-*-* 17:48:00"),
            ("Wed..Sat,Tue 12-10-15 1:2:3", "Tue..Sat 2012-10-15 01:02:03"),
            ("*-*-7 0:0:0", "*-*-07 00:00:00"),
            ("10-15", "*-10-15 00:00:00"),
            ("monday *-12-* 17:00", "Mon *-12-* 17:00:00"),
            ("Mon,Fri *-*-3,1,2 *:30:45", "Mon,Fri *-*-01,02,03 *:30:45"),
            ("12,14,13,12:20,10,30", "*-*-* 12,13,14:10,20,30:00"),
            ("12..14:10,20,30", "*-*-* 12..14:10,20,30:00"),
            ("mon,fri *-1/2-1,3 *:30:45", "Mon,Fri *-01/2-01,03 *:30:45"),
            ("03-05 08:05:40", "*-03-05 08:05:40"),
            ("Sat,Sun 12-05 08:05:40", "Sat,Sun *-12-05 08:05:40"),
            ("2003-03-05 05:40", "2003-03-05 05:40:00"),
            ("05:40:23.4200004/3.1700005", "*-*-* 05:40:23.420000/3.170001"),
            ("2003-02..04-05", "2003-02..04-05 00:00:00"),
            ("2003-03-05 05:40 UTC", "2003-03-05 05:40:00 UTC"),
            ("weekly Pacific/Auckland", "Mon *-*-* 00:00:00 Pacific/Auckland"),
        ])
    func manPageExamples(_ text: String, _ expected: String) throws {
        #expect(try CalendarExpression.parse(text).normalized == expected)
    }

    /// Each of these is refused by `systemd-analyze calendar` too ("Failed to parse calendar specification");
    /// the expected case, offset and token are the library's contract.
    @Test(
        "errors name the offending token, its offset and what is allowed",
        arguments: [
            ("", CalendarExpressionError.empty),
            ("24:00", .valueOutOfRange(offset: 0, token: "24", field: .hour)),
            ("Mon..Fri 25:00", .valueOutOfRange(offset: 9, token: "25", field: .hour)),
            ("*:70", .valueOutOfRange(offset: 2, token: "70", field: .minute)),
            ("23:59:60", .valueOutOfRange(offset: 6, token: "60", field: .second)),
            ("*-13-1", .valueOutOfRange(offset: 2, token: "13", field: .month)),
            ("*-1-0", .valueOutOfRange(offset: 4, token: "0", field: .day)),
            ("*-*~29", .valueOutOfRange(offset: 4, token: "29", field: .day)),
            ("2200-1-1", .valueOutOfRange(offset: 0, token: "2200", field: .year)),
            ("1969-1-1", .valueOutOfRange(offset: 0, token: "1969", field: .year)),
            ("Fri..Mon", .invalidWeekday(offset: 0, token: "Fri..Mon")),
            ("Mon,Funday 1:00", .invalidWeekday(offset: 4, token: "Funday")),
            ("*:*/5", .invalidValue(offset: 2, token: "*/5", field: .minute)),
            ("0/0:00", .invalidValue(offset: 0, token: "0/0", field: .hour)),
            ("*:50/20", .invalidValue(offset: 2, token: "50/20", field: .minute)),
            ("10..5:00", .invalidValue(offset: 0, token: "10..5", field: .hour)),
            ("1.5:00", .invalidValue(offset: 0, token: "1.5", field: .hour)),
            ("*:*:59..59", .invalidValue(offset: 4, token: "59..59", field: .second)),
            ("*-*~1/1", .invalidValue(offset: 4, token: "1/1", field: .day)),
            ("2026-1", .valueOutOfRange(offset: 0, token: "2026", field: .month)),
            ("*-*-*-*", .invalidDate(offset: 0, token: "*-*-*-*")),
            ("1:2:3:4", .invalidTime(offset: 0, token: "1:2:3:4")),
            ("5:", .invalidValue(offset: 2, token: "", field: .minute)),
            ("1:00 Europe/Pariss", .unknownTimeZone(offset: 5, token: "Europe/Pariss")),
            // Found by the calendar fuzz target (scripts/fuzz calendar): Foundation's TimeZone(identifier:)
            // trapped on these (a minute "digit" below "0"), so parse crashed instead of refusing them.
            ("5:40 UTC-05:\u{14}0", .unknownTimeZone(offset: 5, token: "UTC-05:\u{14}0")),
            ("*-*-* 05:40 UTC-05:-0", .unknownTimeZone(offset: 12, token: "UTC-05:-0")),
            ("*-*-* 05:40 GMT-05:/0", .unknownTimeZone(offset: 12, token: "GMT-05:/0")),
            // The second finding (a 480 s run): no colon, a NUL at index 7 of the zone word.
            ("2-5 GMT+0..\u{0}5", .unknownTimeZone(offset: 4, token: "GMT+0..\u{0}5")),
            ("*-*-* 00:00:00 Europe/Paris UTC", .unexpectedToken(offset: 28, token: "UTC")),
            ("daily 1:00", .unexpectedToken(offset: 6, token: "1:00")),
            ("Mon  1:00", .unexpectedToken(offset: 4, token: " ")),
            ("5", .invalidDate(offset: 0, token: "5")),
            ("UTC", .invalidWeekday(offset: 0, token: "UTC")),
        ])
    func refused(_ text: String, _ expected: CalendarExpressionError) {
        #expect(throws: expected) { try CalendarExpression.parse(text) }
    }

    /// Forms systemd accepts that timerd refused. Expected: `systemd-analyze calendar 'EXPR'
    /// --base-time=@1796000000` on this machine (systemd 252), its "Normalized form" line.
    @Test(
        "systemd's other accepted forms: semi-annually, trailing spaces after weekdays or a date, ~*, @SECONDS",
        arguments: [
            ("semi-annually", "*-01,07-01 00:00:00"),
            ("semi-annually UTC", "*-01,07-01 00:00:00 UTC"),
            ("Mon ", "Mon *-*-* 00:00:00"),
            ("Mon,Tue ", "Mon,Tue *-*-* 00:00:00"),
            ("2026-12-01 ", "2026-12-01 00:00:00"),
            ("*-*~*", "*-*-* 00:00:00"),
            ("*-*~*  ", "*-*-* 00:00:00"),
            ("*-*~* 12:00", "*-*-* 12:00:00"),
            ("Mon *-*~*", "Mon *-*-* 00:00:00"),
            ("*-02~* 3:00", "*-02-* 03:00:00"),
            ("@1796083200", "2026-12-01 00:00:00 UTC"),
            ("@01796083200", "2026-12-01 00:00:00 UTC"),
            ("@1796083200 Europe/Paris", "2026-12-01 00:00:00 UTC"),
            ("@+5", "1970-01-01 00:00:05 UTC"),
            ("@0", "1970-01-01 00:00:00 UTC"),
            ("@7258118399", "2199-12-31 23:59:59 UTC"),
        ])
    func systemdForms(_ text: String, _ expected: String) throws {
        #expect(try CalendarExpression.parse(text).normalized == expected)
    }

    /// `*-*~*` elapses every day and `@SECONDS` once, as `systemd-analyze calendar --iterations=2
    /// --base-time=@1796000000` prints: 2026-12-01 00:00:00 UTC, then 2026-12-02; `@1796083200` at
    /// 2026-12-01 00:00:00 UTC only.
    @Test("~* and @SECONDS elapse as systemd says")
    func systemdFormsElapse() throws {
        let base = Date(timeIntervalSince1970: 1_796_000_000)
        #expect(
            try CalendarExpression.parse("*-*~*").elapses(after: base, defaultZone: .gmt, count: 2)
                == [Date(timeIntervalSince1970: 1_796_083_200), Date(timeIntervalSince1970: 1_796_169_600)])
        #expect(
            try CalendarExpression.parse("@1796083200 Europe/Paris").elapses(after: base, defaultZone: .gmt, count: 2)
                == [Date(timeIntervalSince1970: 1_796_083_200)])
    }

    /// systemd refuses each of these too ("Failed to parse calendar specification"): a trailing space
    /// after a time, a shorthand or a zone; a fraction, a sign or a year past 2199 in `@SECONDS`.
    @Test(
        "systemd's refusals of the same forms are kept",
        arguments: [
            ("07:00 ", CalendarExpressionError.unexpectedToken(offset: 5, token: " ")),
            ("daily ", .unexpectedToken(offset: 5, token: " ")),
            ("07:00 UTC ", .unexpectedToken(offset: 9, token: " ")),
            (" daily", .unexpectedToken(offset: 0, token: " ")),
            ("@1796083200 ", .unexpectedToken(offset: 11, token: " ")),
            ("@1796083200.5", .unexpectedToken(offset: 0, token: "@1796083200.5")),
            ("@-5", .unexpectedToken(offset: 0, token: "@-5")),
            ("@7258118400", .unexpectedToken(offset: 0, token: "@7258118400")),
            ("@1796083200 Europe/Pariss", .unknownTimeZone(offset: 12, token: "Europe/Pariss")),
        ])
    func systemdRefusals(_ text: String, _ expected: CalendarExpressionError) {
        #expect(throws: expected) { try CalendarExpression.parse(text) }
    }

    @Test("an error message says what is allowed")
    func messages() {
        // The texts are the library's own (CalendarExpressionError.description).
        #expect(
            CalendarExpressionError.valueOutOfRange(offset: 9, token: "25", field: .hour).description
                == "hour '25' at offset 9 is out of range; allowed: 0..23")
        #expect(
            CalendarExpressionError.unknownTimeZone(offset: 5, token: "Europe/Pariss").description
                == "unknown time zone 'Europe/Pariss' at offset 5; allowed: UTC or a time-zone identifier such as"
                + " Europe/Paris (see /usr/share/zoneinfo)")
        #expect(CalendarExpressionError.invalidWeekday(offset: 4, token: "Funday").offset == 4)
    }

    @Test("the trailing zone is kept; UTC in any case is UTC")
    func zones() throws {
        let paris = try CalendarExpression.parse("07:00 Europe/Paris")
        #expect(paris.timeZone?.identifier == "Europe/Paris")
        #expect(paris.timeZoneName == "Europe/Paris")
        let utc = try CalendarExpression.parse("07:00 utc")
        #expect(utc.timeZoneName == "UTC")
        #expect(utc.timeZone?.secondsFromGMT() == 0)
        #expect(try CalendarExpression.parse("07:00").timeZone == nil)
    }
}
