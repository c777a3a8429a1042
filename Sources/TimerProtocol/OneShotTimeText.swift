import TimerModel

/// The text of a one-shot time in `timer.start`'s `at` and `timerctl start --at`: the richer forms
/// around ``LocalTimeText`` (which stays the grammar of plain wall times), shared by `timerctl`
/// (which checks before sending) and `timerd` (which resolves).
///
/// Forms, case-insensitive, words separated by spaces (docs/time.md has an example of each):
/// - a wall time of ``LocalTimeText``: `14:30`, `14:30:15`, `2026-12-01T09:00`, `2026-12-01 09:00`;
/// - a 24-hour time with a one-digit hour: `9:05`;
/// - a 12-hour time: `2:30pm`, `2:30 pm`, `2pm`, `11:59:30am`; `12am` is 00:00 and `12pm` is 12:00
///   (hours 1–12);
/// - `noon` (12:00) and `midnight` (00:00), as at(1) reads them;
/// - a date alone, `2026-12-31`: its midnight (00:00 local);
/// - a day, then one of the times above (without a date): `today 14:30`, `tomorrow 09:00`, a weekday
///   (`fri 17:00`, `friday 5pm`: its next occurrence after now, today's if still ahead), or `next`
///   and a weekday (`next monday 9:00`: the first such day after today, a week on when it is today);
///   the day may also follow the time (`09:00 tomorrow`, `noon fri`);
/// - a span from now: `+25m`, `now + 25 minutes`, `now+1h30m` (the spans of `DurationParser`:
///   systemd.time(7) units, `H:MM[:SS]`, ISO 8601 `PT25M`).
///
/// Which instant a wall time means (daylight-saving gaps and repeats, the minute interval) is the
/// date picker's rule (`DatePicking.LocalTimeResolver`), applied by `timerd`.
public enum OneShotTimeText: Sendable, Hashable {
    /// A wall time, on an optional day.
    case wall(LocalTimeText, day: Day?)
    /// A span from now, in seconds (> 0, ≤ 366 days).
    case relative(seconds: Double)

    /// The day a wall time is on.
    public enum Day: Sendable, Hashable {
        /// Today's date in the zone.
        case today
        /// Tomorrow's date in the zone.
        case tomorrow
        /// The next such weekday (today's if the time is still ahead): 1 = Sunday … 7 = Saturday, as
        /// Foundation's `Calendar` numbers them.
        case weekday(Int)
        /// `next` and a weekday: the first day with this weekday after today (never today), numbered
        /// as ``weekday(_:)``.
        case nextWeekday(Int)
    }

    /// Why a text is not a one-shot time; ``description`` says what is allowed.
    public struct ParseError: Error, Hashable, CustomStringConvertible {
        /// The text as typed.
        public var text: String
        /// What is wrong with it, e.g. "a day needs a time".
        public var reason: String

        /// `invalid time "fri": a day needs a time (fri 17:00); use …`.
        public var description: String {
            "invalid time \"\(text)\": \(reason); \(OneShotTimeText.accepted)"
        }
    }

    /// The forms in words, for error messages.
    public static let accepted =
        "use HH:MM[:SS], 2:30pm, noon or midnight, with a day before or after it if you like "
        + "(tomorrow 09:00, 09:00 tomorrow, fri 17:00, next monday 9:00); YYYY-MM-DD[THH:MM[:SS]]; "
        + "+25m or now + 25 minutes; or an ISO 8601 date-time with Z or an offset (2026-12-24T18:00+01:00)"

    /// The words that name a day: `today`, `tomorrow`, `next` (before a weekday) and the weekdays.
    static func isDayWord(_ word: String) -> Bool {
        word == "today" || word == "tomorrow" || word == "next" || weekdays[word] != nil
    }

    /// The weekday names and their numbers (1 = Sunday), full and abbreviated.
    static let weekdays: [String: Int] = [
        "sun": 1, "sunday": 1, "mon": 2, "monday": 2, "tue": 3, "tues": 3, "tuesday": 3, "wed": 4,
        "wednesday": 4, "thu": 5, "thur": 5, "thurs": 5, "thursday": 5, "fri": 6, "friday": 6, "sat": 7,
        "saturday": 7,
    ]

    /// Reads a one-shot time.
    ///
    /// - Parameter text: the text as typed.
    /// - Throws: ``ParseError`` naming what is wrong.
    public init(parsing text: String) throws(ParseError) {
        var words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let joined = words.joined(separator: " ")
        func fail(_ reason: String) -> ParseError { ParseError(text: text, reason: reason) }
        guard !words.isEmpty else { throw fail("it is empty") }
        if joined.hasPrefix("+") || joined.hasPrefix("now") {
            var rest = Substring(joined)
            if rest.hasPrefix("now") { rest = rest.dropFirst(3) }
            rest = rest.drop(while: { $0 == " " })
            guard rest.hasPrefix("+") else {
                throw fail(rest.isEmpty ? "\"now\" has passed: add a span (now + 25 minutes)" : "expected + after now")
            }
            let span = String(rest.dropFirst()).trimmingSpaces()
            do {
                self = .relative(seconds: try DurationParser.seconds(from: span))
            } catch {
                throw fail("the span \"\(span)\" is not a duration (\(error))")
            }
            return
        }
        if let wall = LocalTimeText(parsing: joined.uppercased()) {
            guard wall.isCalendarDate else { throw fail("that date does not exist") }
            self = .wall(wall, day: nil)
            return
        }
        // A date alone (`2026-12-31`) is its midnight.
        if joined.utf8.count == 10, let wall = LocalTimeText(parsing: joined + "T00:00") {
            guard wall.isCalendarDate else { throw fail("that date does not exist") }
            self = .wall(wall, day: nil)
            return
        }
        // A day after the time (`09:00 tomorrow`, `noon next fri`) reads as the day before it.
        if let index = words.firstIndex(where: Self.isDayWord), index > 0 {
            words = Array(words[index...] + words[..<index])
        }
        var day: Day?
        var timeWords = words[...]
        if let first = words.first {
            if first == "today" { day = .today }
            if first == "tomorrow" { day = .tomorrow }
            if let weekday = Self.weekdays[first] { day = .weekday(weekday) }
            if first == "next" {
                guard words.count > 1, let weekday = Self.weekdays[words[1]] else {
                    throw fail("\"next\" needs a weekday (next monday 9:00)")
                }
                day = .nextWeekday(weekday)
                timeWords = words.dropFirst()
            }
            if day != nil {
                timeWords = timeWords.dropFirst()
                let dayText = words[..<(words.count - timeWords.count)].joined(separator: " ")
                guard !timeWords.isEmpty else { throw fail("a day needs a time (\(dayText) 17:00)") }
            }
        }
        guard let time = Self.timeOfDay(timeWords.joined()) else {
            throw fail(day == nil ? "not a time" : "\"\(timeWords.joined(separator: " "))\" is not a time of day")
        }
        self = .wall(time, day: day)
    }

    /// `14:30`, `9:05`, `2:30pm`, `2pm`, `11:59:30am`, `noon`, `midnight` (spaces already removed,
    /// lowercase).
    static func timeOfDay(_ text: String) -> LocalTimeText? {
        if text == "noon" { return LocalTimeText(parsing: "12:00") }
        if text == "midnight" { return LocalTimeText(parsing: "00:00") }
        var body = Substring(text)
        var meridiem: String?
        for suffix in ["am", "pm"] where body.hasSuffix(suffix) {
            meridiem = suffix
            body = body.dropLast(2)
        }
        let fields = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count),
            fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy({ $0.isASCII && $0.isNumber }) }),
            fields[0].count <= 2, fields.dropFirst().allSatisfy({ $0.count == 2 })
        else { return nil }
        let numbers = fields.compactMap { Int($0) }
        guard numbers.count == fields.count, numbers.allSatisfy({ $0 >= 0 }) else { return nil }
        var hour = numbers[0]
        let minute = numbers.count > 1 ? numbers[1] : 0
        let second = numbers.count > 2 ? numbers[2] : 0
        guard minute < 60, second < 60 else { return nil }
        if let meridiem {
            guard (1...12).contains(hour) else { return nil }
            hour = hour % 12 + (meridiem == "pm" ? 12 : 0)
        } else {
            // Without am/pm a bare hour (`14`) is refused: it reads as well as a duration.
            guard numbers.count >= 2, hour < 24 else { return nil }
        }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return LocalTimeText(parsing: "\(two(hour)):\(two(minute)):\(two(second))")
    }
}

extension String {
    /// The text without leading and trailing spaces.
    fileprivate func trimmingSpaces() -> String {
        String(self.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
