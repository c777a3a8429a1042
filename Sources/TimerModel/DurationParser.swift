/// Reads the durations people type: systemd time spans, clock notation and ISO 8601.
///
/// Accepted forms (see man systemd.time(7) and ISO 8601-1:2019 §5.5.2):
/// - a span of numbers with units, optionally separated by spaces: `90s`, `25m`, `1h30m`, `1.5h`,
///   `1h 30min`, `2d`, `500ms`. Units: `us`/`usec`, `ms`/`msec`, `s`/`sec`/`second(s)`,
///   `m`/`min`/`minute(s)`, `h`/`hr`/`hour(s)`, `d`/`day(s)`, `w`/`week(s)`. As in systemd, `m` is
///   minutes; months and years are not accepted (their length varies). A bare number is seconds.
/// - clock notation `H:MM` or `H:MM:SS[.fff]`: `01:30:00` is 1 h 30 min, `0:05` is 5 min.
/// - ISO 8601 durations with days, hours, minutes, seconds or weeks: `PT1H30M`, `P1DT2H`, `PT0.5S`, `P2W`.
///
/// The result must be at least 1 µs (``minimumSeconds``, the timers' resolution) and at most 366
/// days (``maximumSeconds``): `"0.0000000001s"`, `"1ns"` or the number `5e-324` is refused rather
/// than started as a timer that ends at once.
public enum DurationParser {
    /// The shortest accepted duration: 1 µs (0.000001 s), the timers' resolution.
    ///
    /// A timer's deadline is a `CLOCK_BOOTTIME` instant in nanoseconds, but a duration below a
    /// microsecond is far under the daemon's wake-up latency (about 35 µs at the median here,
    /// docs/performance.md) and under anything a person or a program can mean by a timer, so it is
    /// a mistake to report, not a value to round. systemd.time(7) spans also stop at `us`.
    public static let minimumSeconds: Double = 1e-6

    /// The longest accepted duration: 366 days, in seconds (31,622,400).
    public static let maximumSeconds: Double = 366 * 86_400

    /// The accepted forms in words, for error messages.
    public static let acceptedForms =
        "use a number with units (90s, 25m, 1h30m, 1.5h, \"1h 30min\"), H:MM[:SS] (01:30:00) or ISO 8601 (PT1H30M)"

    /// Parses `text` and checks the range.
    ///
    /// - Parameter text: the duration as typed, e.g. `"1h 30min"`.
    /// - Returns: the duration in seconds, ≥ 1 µs and ≤ 366 days.
    /// - Throws: ``CountdownError/invalidDuration(_:)`` when the text is in no accepted form;
    ///   ``CountdownError/durationOutOfRange(_:)`` when it is ≤ 0 or longer than 366 days;
    ///   ``CountdownError/durationTooShort(_:)`` when it is > 0 but under 1 µs.
    public static func seconds(from text: String) throws(CountdownError) -> Double {
        guard let value = parse(text) else { throw .invalidDuration(text) }
        try validate(seconds: value, as: text)
        return value
    }

    /// Checks that a duration in seconds is finite, at least 1 µs and at most 366 days.
    ///
    /// - Parameters:
    ///   - seconds: the duration in seconds.
    ///   - text: how to show the value in the error; defaults to the number itself.
    /// - Throws: ``CountdownError/durationOutOfRange(_:)`` when it is ≤ 0, not finite or longer
    ///   than 366 days; ``CountdownError/durationTooShort(_:)`` when it is > 0 but under 1 µs.
    public static func validate(seconds: Double, as text: String? = nil) throws(CountdownError) {
        guard seconds.isFinite, seconds > 0, seconds <= maximumSeconds else {
            throw .durationOutOfRange(text ?? DurationFormatter.number(seconds))
        }
        guard seconds >= minimumSeconds else { throw .durationTooShort(text ?? DurationFormatter.number(seconds)) }
    }

    /// Parses a signed duration, as `timerctl extend` takes it: `5m` adds, `-5m` subtracts.
    ///
    /// - Parameter text: a duration in any accepted form, optionally with a leading `-` (or `+`).
    /// - Returns: the seconds, negative for a leading `-`; the magnitude is > 0 and ≤ 366 days.
    /// - Throws: `CountdownError.invalidDuration(_:)`, `CountdownError.durationOutOfRange(_:)` (zero,
    ///   or a magnitude over 366 days), `CountdownError.durationTooShort(_:)` (under 1 µs).
    public static func signedSeconds(from text: String) throws(CountdownError) -> Double {
        guard let seconds = parse(text) else { throw .invalidDuration(text) }
        try validate(seconds: abs(seconds), as: text)
        return seconds
    }

    /// Parses without the range check; `nil` when the text is in no accepted form.
    static func parse(_ text: String) -> Double? {
        var scalars = Substring(text).drop(while: { $0 == " " || $0 == "\t" })
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        var sign = 1.0
        if scalars.first == "-" || scalars.first == "+" {
            sign = scalars.first == "-" ? -1 : 1
            scalars = scalars.dropFirst()
        }
        guard let first = scalars.first else { return nil }
        let magnitude: Double?
        if first == "P" {
            magnitude = parseISO8601(scalars.dropFirst())
        } else if scalars.contains(":") {
            magnitude = parseClock(scalars)
        } else {
            magnitude = parseSpan(scalars)
        }
        return magnitude.map { sign * $0 }
    }

    private static let spanUnits: [String: Double] = [
        "ns": 1e-9, "nsec": 1e-9,
        "us": 1e-6, "usec": 1e-6, "µs": 1e-6,
        "ms": 1e-3, "msec": 1e-3,
        "s": 1, "sec": 1, "second": 1, "seconds": 1,
        "m": 60, "min": 60, "minute": 60, "minutes": 60,
        "h": 3_600, "hr": 3_600, "hour": 3_600, "hours": 3_600,
        "d": 86_400, "day": 86_400, "days": 86_400,
        "w": 604_800, "week": 604_800, "weeks": 604_800,
    ]

    /// `1h 30min`, `90s`, `1.5h`, or a bare number of seconds.
    private static func parseSpan(_ text: Substring) -> Double? {
        var rest = text
        var total = 0.0
        var parts = 0
        var sawBareNumber = false
        while !rest.isEmpty {
            rest = rest.drop(while: { $0 == " " })
            guard let (number, afterNumber) = leadingNumber(rest) else { return nil }
            rest = afterNumber.drop(while: { $0 == " " })
            let unit = rest.prefix(while: { $0.isLetter || $0 == "µ" })
            rest = rest.dropFirst(unit.count)
            parts += 1
            if unit.isEmpty {
                sawBareNumber = true
                total += number
            } else {
                guard let scale = spanUnits[String(unit)] else { return nil }
                total += number * scale
            }
        }
        if parts == 0 || (sawBareNumber && parts > 1) { return nil }
        return total
    }

    /// `H:MM` or `H:MM:SS[.fff]`.
    private static func parseClock(_ text: Substring) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2 || fields.count == 3 else { return nil }
        guard fields[0].allSatisfy(\.isASCIIDigit), !fields[0].isEmpty, let hours = Double(fields[0]) else {
            return nil
        }
        guard fields[1].count == 2, fields[1].allSatisfy(\.isASCIIDigit), let minutes = Double(fields[1]),
            minutes < 60
        else { return nil }
        var seconds = 0.0
        if fields.count == 3 {
            guard let (value, rest) = leadingNumber(fields[2]), rest.isEmpty, value < 60,
                fields[2].prefix(while: \.isASCIIDigit).count == 2
            else { return nil }
            seconds = value
        }
        return hours * 3_600 + minutes * 60 + seconds
    }

    /// The part of an ISO 8601 duration after `P`: `T1H30M`, `1DT2H`, `2W`.
    private static func parseISO8601(_ text: Substring) -> Double? {
        var rest = text
        var total = 0.0
        var inTime = false
        var components = 0
        var lastRank = -1
        while !rest.isEmpty {
            if rest.first == "T" {
                guard !inTime else { return nil }
                inTime = true
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
                continue
            }
            guard let (number, afterNumber) = leadingNumber(rest), let designator = afterNumber.first else {
                return nil
            }
            rest = afterNumber.dropFirst()
            let rank: Int
            let scale: Double
            switch (designator, inTime) {
            case ("W", false): (rank, scale) = (0, 604_800)
            case ("D", false): (rank, scale) = (1, 86_400)
            case ("H", true): (rank, scale) = (2, 3_600)
            case ("M", true): (rank, scale) = (3, 60)
            case ("S", true): (rank, scale) = (4, 1)
            default: return nil
            }
            guard rank > lastRank else { return nil }
            lastRank = rank
            total += number * scale
            components += 1
        }
        return components > 0 ? total : nil
    }

    /// A leading unsigned decimal number (`12`, `1.5`, `.5`) and what follows it.
    private static func leadingNumber(_ text: Substring) -> (Double, Substring)? {
        let digits = text.prefix(while: { $0.isASCIIDigit || $0 == "." })
        guard !digits.isEmpty, digits.filter({ $0 == "." }).count <= 1, digits != ".",
            let value = Double(digits)
        else { return nil }
        return (value, text.dropFirst(digits.count))
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
