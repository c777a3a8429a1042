import Testing

@testable import TimerModel

@Suite("DurationParser and DurationFormatter")
struct DurationParserTests {
    struct Accepted: Sendable, CustomStringConvertible {
        var text: String
        var seconds: Double
        var description: String { "\"\(text)\" = \(seconds) s" }
    }

    /// Every accepted form, with the exact number of seconds it stands for.
    static let accepted: [Accepted] = [
        // Spans (systemd.time(7)).
        Accepted(text: "90s", seconds: 90),
        Accepted(text: "25m", seconds: 1_500),
        Accepted(text: "1h30m", seconds: 5_400),
        Accepted(text: "1.5h", seconds: 5_400),
        Accepted(text: "1h 30min", seconds: 5_400),
        Accepted(text: "2d", seconds: 172_800),
        Accepted(text: "500ms", seconds: 0.5),
        Accepted(text: "250us", seconds: 0.000_25),
        Accepted(text: "250µs", seconds: 0.000_25),
        Accepted(text: "250usec", seconds: 0.000_25),
        Accepted(text: "500msec", seconds: 0.5),
        Accepted(text: "90sec", seconds: 90),
        Accepted(text: "1second", seconds: 1),
        Accepted(text: "2seconds", seconds: 2),
        Accepted(text: "1minute", seconds: 60),
        Accepted(text: "2 minutes", seconds: 120),
        Accepted(text: "2hr", seconds: 7_200),
        Accepted(text: "1hour", seconds: 3_600),
        Accepted(text: "2 hours", seconds: 7_200),
        Accepted(text: "1day", seconds: 86_400),
        Accepted(text: "2days", seconds: 172_800),
        Accepted(text: "1w", seconds: 604_800),
        Accepted(text: "1week", seconds: 604_800),
        Accepted(text: "2weeks", seconds: 1_209_600),
        Accepted(text: "1d 2h 3m 4s", seconds: 93_784),
        Accepted(text: ".5s", seconds: 0.5),
        Accepted(text: "  90s\t", seconds: 90),
        Accepted(text: "+5m", seconds: 300),
        Accepted(text: "90", seconds: 90),
        Accepted(text: "1.5", seconds: 1.5),
        Accepted(text: "366d", seconds: 31_622_400),
        // Clock notation.
        Accepted(text: "01:30:00", seconds: 5_400),
        Accepted(text: "0:05", seconds: 300),
        Accepted(text: "1:30", seconds: 5_400),
        Accepted(text: "0:00:30.5", seconds: 30.5),
        Accepted(text: "100:00:00", seconds: 360_000),
        // ISO 8601 durations.
        Accepted(text: "PT1H30M", seconds: 5_400),
        Accepted(text: "P1DT2H", seconds: 93_600),
        Accepted(text: "PT0.5S", seconds: 0.5),
        Accepted(text: "P2W", seconds: 1_209_600),
        Accepted(text: "P1D", seconds: 86_400),
        Accepted(text: "PT90S", seconds: 90),
        Accepted(text: "P1DT1H1M1S", seconds: 90_061),
    ]

    @Test("Accepted forms give their exact number of seconds", arguments: accepted)
    func accepts(_ accepted: Accepted) throws {
        #expect(try DurationParser.seconds(from: accepted.text) == accepted.seconds)
    }

    struct Rejected: Sendable, CustomStringConvertible {
        var text: String
        var error: CountdownError
        var description: String { "\"\(text)\"" }
    }

    static let rejected: [Rejected] = [
        Rejected(text: "-5m", error: .durationOutOfRange("-5m")),
        Rejected(text: "0s", error: .durationOutOfRange("0s")),
        Rejected(text: "0", error: .durationOutOfRange("0")),
        Rejected(text: "PT0S", error: .durationOutOfRange("PT0S")),
        Rejected(text: "0:00", error: .durationOutOfRange("0:00")),
        Rejected(text: "367d", error: .durationOutOfRange("367d")),
        Rejected(text: "366d 1s", error: .durationOutOfRange("366d 1s")),
        Rejected(text: "5x", error: .invalidDuration("5x")),
        Rejected(text: "1h30", error: .invalidDuration("1h30")),
        Rejected(text: "1M", error: .invalidDuration("1M")),
        Rejected(text: "1y", error: .invalidDuration("1y")),
        Rejected(text: "PT", error: .invalidDuration("PT")),
        Rejected(text: "P", error: .invalidDuration("P")),
        Rejected(text: "P1H", error: .invalidDuration("P1H")),
        Rejected(text: "PT1D", error: .invalidDuration("PT1D")),
        Rejected(text: "PT30M1H", error: .invalidDuration("PT30M1H")),
        Rejected(text: "P1DT", error: .invalidDuration("P1DT")),
        Rejected(text: "1:5", error: .invalidDuration("1:5")),
        Rejected(text: "1:60", error: .invalidDuration("1:60")),
        Rejected(text: "1:00:60", error: .invalidDuration("1:00:60")),
        Rejected(text: "1:2:3:4", error: .invalidDuration("1:2:3:4")),
        Rejected(text: ":30", error: .invalidDuration(":30")),
        Rejected(text: "", error: .invalidDuration("")),
        Rejected(text: "   ", error: .invalidDuration("   ")),
        Rejected(text: "-", error: .invalidDuration("-")),
        Rejected(text: "1 2", error: .invalidDuration("1 2")),
        Rejected(text: "1.2.3s", error: .invalidDuration("1.2.3s")),
        Rejected(text: ".s", error: .invalidDuration(".s")),
        Rejected(text: "1e3", error: .invalidDuration("1e3")),
        Rejected(text: "h", error: .invalidDuration("h")),
        Rejected(text: "nan", error: .invalidDuration("nan")),
    ]

    @Test("Rejected texts throw the exact error", arguments: rejected)
    func rejects(_ rejected: Rejected) {
        #expect(throws: rejected.error) { try DurationParser.seconds(from: rejected.text) }
    }

    @Test("The errors' messages say what was wrong and what is allowed")
    func messages() {
        #expect(
            CountdownError.durationOutOfRange("-5m").description == "duration must be > 0 and ≤ 366 days, got \"-5m\"")
        #expect(
            CountdownError.invalidDuration("5x").description
                == "invalid duration \"5x\": use a number with units (90s, 25m, 1h30m, 1.5h, \"1h 30min\"), "
                + "H:MM[:SS] (01:30:00) or ISO 8601 (PT1H30M)")
        #expect(DurationParser.maximumSeconds == 31_622_400)
    }

    @Test("validate accepts (0, 366 days] and names the number otherwise")
    func validate() throws {
        try DurationParser.validate(seconds: 31_622_400)
        // 1 µs is the shortest duration (DurationParser.minimumSeconds); 1e-9 is refused.
        try DurationParser.validate(seconds: 1e-6)
        #expect(throws: CountdownError.durationTooShort("1e-09")) { try DurationParser.validate(seconds: 1e-9) }
        // The smallest subnormal Double, 5e-324.
        #expect(throws: CountdownError.durationTooShort("5e-324")) {
            try DurationParser.validate(seconds: .leastNonzeroMagnitude)
        }
        #expect(throws: CountdownError.durationOutOfRange("0")) { try DurationParser.validate(seconds: 0) }
        #expect(throws: CountdownError.durationOutOfRange("-2")) { try DurationParser.validate(seconds: -2) }
        #expect(throws: CountdownError.durationOutOfRange("1.5e+20")) { try DurationParser.validate(seconds: 1.5e20) }
        #expect(throws: CountdownError.durationOutOfRange("nan")) { try DurationParser.validate(seconds: .nan) }
        #expect(throws: CountdownError.durationOutOfRange("25m")) {
            try DurationParser.validate(seconds: -1_500, as: "25m")
        }
    }

    struct Formatted: Sendable, CustomStringConvertible {
        var seconds: Double
        var text: String
        var description: String { "\(seconds) s → \(text)" }
    }

    static let compact: [Formatted] = [
        Formatted(seconds: 0, text: "0s"),
        Formatted(seconds: 90, text: "1m30s"),
        Formatted(seconds: 1_500, text: "25m"),
        Formatted(seconds: 5_400, text: "1h30m"),
        Formatted(seconds: 93_600, text: "1d2h"),
        Formatted(seconds: 90_061.25, text: "1d1h1m1.25s"),
        Formatted(seconds: 604_800, text: "7d"),
        Formatted(seconds: 31_622_400, text: "366d"),
        Formatted(seconds: 1.5, text: "1.5s"),
        Formatted(seconds: 1.05, text: "1.05s"),
        Formatted(seconds: 61.001, text: "1m1.001s"),
        Formatted(seconds: 0.5, text: "500ms"),
        Formatted(seconds: 0.25, text: "250ms"),
        Formatted(seconds: 0.001, text: "1ms"),
        Formatted(seconds: 0.0001, text: "100us"),
        Formatted(seconds: 1e-7, text: "100ns"),
        Formatted(seconds: 59.9996, text: "1m"),
        Formatted(seconds: -300, text: "-5m"),
        Formatted(seconds: .infinity, text: "inf"),
    ]

    @Test("compact writes spans in the accepted syntax", arguments: compact)
    func compactSpans(_ formatted: Formatted) {
        #expect(DurationFormatter.compact(seconds: formatted.seconds) == formatted.text)
    }

    @Test("compact output of whole milliseconds parses back to the same seconds", arguments: compact.prefix(14))
    func compactRoundTrips(_ formatted: Formatted) throws {
        guard formatted.seconds > 0 else { return }
        #expect(try DurationParser.seconds(from: formatted.text) == formatted.seconds)
    }

    static let clock: [Formatted] = [
        Formatted(seconds: 0, text: "0:00:00"),
        Formatted(seconds: 0.1, text: "0:00:01"),
        Formatted(seconds: 1_498.2, text: "0:24:59"),
        Formatted(seconds: 1_500, text: "0:25:00"),
        Formatted(seconds: 5_400, text: "1:30:00"),
        Formatted(seconds: 360_000, text: "100:00:00"),
        Formatted(seconds: -5, text: "0:00:00"),
        Formatted(seconds: .nan, text: "0:00:00"),
        Formatted(seconds: .infinity, text: "0:00:00"),
    ]

    @Test("clock writes H:MM:SS, rounding seconds up", arguments: clock)
    func clockNotation(_ formatted: Formatted) {
        #expect(DurationFormatter.clock(seconds: formatted.seconds) == formatted.text)
    }

    @Test("number drops a trailing .0")
    func number() {
        #expect(DurationFormatter.number(300) == "300")
        #expect(DurationFormatter.number(-2) == "-2")
        #expect(DurationFormatter.number(1.5) == "1.5")
        #expect(DurationFormatter.number(.nan) == "nan")
    }
}
