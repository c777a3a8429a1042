import Foundation
import Testing

@testable import timerpick

/// `timerctl calendar`, which execs `timerpick calendar`: the layout of `systemd-analyze calendar`.
@Suite("timerctl calendar")
struct CalendarCommandTests {
    /// Runs the built `timerctl calendar …` with TZ and a fixed "now"; reads both pipes before waiting.
    private func run(_ arguments: [String], zone: String, now: String) throws -> (
        status: Int32, out: String, err: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PseudoTerminal.productsDirectory + "/timerctl")
        process.arguments = ["calendar"] + arguments
        process.environment = ["TZ": zone, "TIMERPICK_NOW": now, "LANG": "C.UTF-8"]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: outData, as: UTF8.self),
            String(decoding: errData, as: UTF8.self)
        )
    }

    /// Expected: `TZ=Europe/Paris systemd-analyze calendar --iterations=2 --base-time=@1774699200 'Mon..Fri
    /// 07:00'` on this machine, with "From now" counted from 2026-03-28T12:00:00Z instead of the real now
    /// (systemd's units: 1 day 17h, 2 days).
    @Test("the text layout is systemd-analyze's")
    func textLayout() throws {
        let result = try run(
            ["--iterations", "2", "--base-time", "@1774699200", "Mon..Fri 07:00"], zone: "Europe/Paris",
            now: "2026-03-28T12:00:00Z")
        #expect(result.status == 0)
        #expect(
            result.out == """
                  Original form: Mon..Fri 07:00
                Normalized form: Mon..Fri *-*-* 07:00:00
                    Next elapse: Mon 2026-03-30 07:00:00 CEST
                       (in UTC): Mon 2026-03-30 05:00:00 UTC
                       From now: 1 day 17h left
                       Iter. #2: Tue 2026-03-31 07:00:00 CEST
                       (in UTC): Tue 2026-03-31 05:00:00 UTC
                       From now: 2 days left

                """)
    }

    /// The gap policy in the JSON form: 02:30 on 2026-03-29 does not exist in Paris and elapses at 03:30 CEST
    /// (01:30Z); systemd skips that day and prints 2026-03-30 00:30:00 UTC first.
    @Test("--json prints the normalized form and ISO 8601 elapses; a trailing zone wins over TZ")
    func json() throws {
        let result = try run(
            ["--json", "--iterations=2", "--base-time=2026-03-28T12:00:00Z", "*-*-* 02:30 Europe/Paris"],
            zone: "America/New_York", now: "2026-03-28T12:00:00Z")
        #expect(result.status == 0)
        #expect(
            result.out
                == "{\"normalized\":\"*-*-* 02:30:00 Europe/Paris\",\"elapses\":[\"2026-03-29T01:30:00.000Z\","
                + "\"2026-03-30T00:30:00.000Z\"]}\n")
    }

    @Test("a bad expression is a usage error naming the token and its offset")
    func badExpression() throws {
        let result = try run(["Mon..Fri 25:00"], zone: "UTC", now: "2026-03-28T12:00:00Z")
        #expect(result.status == 64)
        #expect(result.out.isEmpty)
        #expect(
            result.err == """
                Error: hour '25' at offset 9 is out of range; allowed: 0..23
                See 'timerctl calendar --help'.

                """)
    }

    @Test("UTC prints no (in UTC) line; an expression that never elapses says never")
    func utcAndNever() throws {
        // systemd-analyze with TZ=UTC prints no "(in UTC)" line, and "Next elapse: never" for a past date.
        let result = try run(["--base-time", "@1774612800", "2003-1-1"], zone: "UTC", now: "2026-03-27T12:00:00Z")
        #expect(
            result.out == "  Original form: 2003-1-1\nNormalized form: 2003-01-01 00:00:00\n    Next elapse: never\n")
        let daily = try run(["--base-time", "@1774612800", "daily"], zone: "UTC", now: "2026-03-27T12:00:00Z")
        #expect(
            daily.out == """
                  Original form: daily
                Normalized form: *-*-* 00:00:00
                    Next elapse: Sat 2026-03-28 00:00:00 UTC
                       From now: 12h left

                """)
    }

    /// The units of "From now", observed from `systemd-analyze calendar` (systemd 252) at these distances.
    @Test(
        "From now uses systemd's units",
        arguments: [
            (0.59, "590ms left"), (59.5, "59s left"), (60.5, "1min 0s left"), (299.5, "4min 59s left"),
            (300.5, "5min left"), (3599.5, "59min left"), (3600.5, "1h 0min left"), (21_599.5, "5h 59min left"),
            (21_600.5, "6h left"), (86_459.5, "24h left"), (90_000.5, "1 day 1h left"), (172_799.5, "1 day 23h left"),
            (172_859.5, "2 days left"), (604_859.5, "1 week 0 days left"), (2_716_199.5, "1 month 0 days left"),
            (34_187_399.5, "1 year 0 months left"), (-100.5, "1min 40s ago"), (-200_000.5, "2 days ago"),
        ])
    func relative(_ seconds: Double, _ expected: String) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(CalendarReport.relative(from: now, to: now.addingTimeInterval(seconds)) == expected)
    }
}
