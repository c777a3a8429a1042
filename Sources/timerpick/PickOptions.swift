import CommandLineTable
import DatePicking
import Foundation
import TimerControl
import TimerModel
import TimerProtocol

/// The options of `timerctl pick` (and of `timerpick`, which it runs), checked before the terminal is touched.
struct PickOptions: Equatable {
    /// `--mode time|date|date-and-time|countdown`; default date-and-time (rule B1).
    var mode: DatePickerMode = .dateAndTime
    /// `--minute-interval N`: a divisor of 60 from 1 to 30 (rule B3).
    var minuteInterval = 1
    /// `--min TIME` and `--max TIME`, as typed.
    var minimum: String?
    var maximum: String?
    /// `--locale ID` and `--calendar ID`; `nil` follows the system.
    var locale: String?
    var calendar: String?
    var isHelp = false
    var isVersion = false

    /// The usage line and the help text: `timerctl pick`'s, rendered from timerctl's command table.
    static let usage = HelpText.usageLine(.pick)
    static let help = HelpText.forVerb(.pick)

    /// Why the options are wrong.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// Parses the arguments (without the program name) with the one scanner and timerctl's command
    /// table (`pick`'s entry), so that `timerctl pick` and `timerpick` accept exactly the same line:
    /// `--x v` and `--x=v`, `--` ends options.
    ///
    /// - Throws: ``UsageError`` naming the bad argument and what is allowed.
    static func parse(_ arguments: [String]) throws(UsageError) -> PickOptions {
        var options = PickOptions()
        var scanner = CommandLineScanner(table: .timerctl, arguments: ["pick"] + arguments)
        while true {
            let token: CommandLineScanner.Token?
            do {
                token = try scanner.next()
            } catch {
                throw UsageError(description: error.description)
            }
            switch token {
            case nil: return options
            case .command: continue
            case .argument(let argument): throw UsageError(description: "unknown argument '\(argument)'")
            case .option(let option, let value, _): try options.apply(option.longName, value ?? "")
            }
        }
    }

    /// Records one option the scanner accepted (it has checked arity and repetition).
    private mutating func apply(_ longName: String, _ value: String) throws(UsageError) {
        switch longName {
        case "--help": isHelp = true
        case "--version": isVersion = true
        case "--mode":
            guard let mode = Self.modes[value] else {
                throw UsageError(description: "unknown mode '\(value)': use time, date, date-and-time or countdown")
            }
            self.mode = mode
        case "--minute-interval":
            guard let interval = Int(value), DatePicker.isValidMinuteInterval(interval) else {
                throw UsageError(description: "--minute-interval \(MinuteInterval.rule), got \"\(value)\"")
            }
            minuteInterval = interval
        case "--min": minimum = value
        case "--max": maximum = value
        case "--locale": locale = value
        case "--calendar": calendar = value
        default:
            // timerctl's global options (--socket, --json, --no-autostart) mean nothing to the picker.
            throw UsageError(description: "option '\(longName)' is not for 'pick'")
        }
    }

    static let modes: [String: DatePickerMode] = [
        "time": .time, "date": .date, "date-and-time": .dateAndTime, "countdown": .countDownTimer,
    ]

    /// Builds the picker: "now", the system zone and the options.
    ///
    /// - Parameters:
    ///   - now: The current instant (the initial selection and the date wheel's "Today").
    ///   - timeZone: The zone the wheels show.
    ///   - systemLocale: The locale when `--locale` is not given.
    /// - Throws: ``UsageError`` for an unknown locale or calendar or an unreadable `--min`/`--max`.
    func makePicker(now: Date, timeZone: TimeZone, systemLocale: Locale) throws(UsageError) -> DatePicker {
        // The same grammar and the same message as `timerctl start --at`: what it really takes.
        for (option, text) in [("--min", minimum), ("--max", maximum)] {
            guard let text, ISO8601.date(from: ISO8601.completingSeconds(text)) == nil else { continue }
            do throws(OneShotTimeText.ParseError) {
                _ = try OneShotTimeText(parsing: text)
            } catch {
                throw UsageError(
                    description: "invalid \(option) time \"\(text)\": \(error.reason); \(OneShotTimeText.accepted)")
            }
        }
        do throws(DatePickingError) {
            let calendar = try calendar.map { name throws(DatePickingError) in try DatePicker.calendar(identifier: name)
            }
            var picker = DatePicker(
                environment: DatePickerEnvironment(
                    now: now, locale: systemLocale, timeZone: timeZone, calendar: Calendar(identifier: .gregorian)))
            picker.datePickerMode = mode
            try picker.setMinuteInterval(minuteInterval)
            try picker.setLocale(identifier: locale)
            picker.calendar = calendar
            picker.timeZone = timeZone
            picker.minimumDate = try minimum.map { text throws(DatePickingError) in
                try Self.instant(text, now: now, timeZone: timeZone)
            }
            picker.maximumDate = try maximum.map { text throws(DatePickingError) in
                try Self.instant(text, now: now, timeZone: timeZone)
            }
            // The initialiser already selected `now`; setting `date` again in countdown mode would load the
            // time of day as a duration (decision A12), so a countdown starts at one interval instead (B20).
            return picker
        } catch {
            throw UsageError(description: error.description)
        }
    }

    /// An ISO 8601 instant with Z or an offset, or a local time resolved like `timerctl start --at`.
    static func instant(_ text: String, now: Date, timeZone: TimeZone) throws(DatePickingError) -> Date {
        let iso = ISO8601DateFormatter()
        if let date = iso.date(from: ISO8601.completingSeconds(text)) { return date }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // The product's one-shot time grammar (the same as `timerctl start --at`), then the picker's rules.
        guard let parsed = try? OneShotTimeText(parsing: text) else { throw .invalidLocalTime(text) }
        switch parsed {
        case .relative(let seconds):
            return now.addingTimeInterval(seconds)
        case .wall(let wall, let day):
            let local = LocalTimeResolver.LocalTime(
                year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute,
                second: wall.second)
            switch day {
            case .none:
                return try LocalTimeResolver.resolve(local, now: now, timeZone: timeZone, calendar: calendar).date
            case .today:
                return try LocalTimeResolver.resolve(
                    local, on: .today, now: now, timeZone: timeZone, calendar: calendar
                ).date
            case .tomorrow:
                return try LocalTimeResolver.resolve(
                    local, on: .tomorrow, now: now, timeZone: timeZone, calendar: calendar
                ).date
            case .weekday(let weekday):
                return try LocalTimeResolver.resolve(
                    local, on: .weekday(weekday), now: now, timeZone: timeZone, calendar: calendar
                ).date
            case .nextWeekday(let weekday):
                return try LocalTimeResolver.resolve(
                    local, onNextWeekday: weekday, now: now, timeZone: timeZone, calendar: calendar
                ).date
            }
        }
    }
}
