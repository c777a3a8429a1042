import DatePicking
import Foundation
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

    /// The usage line and the help text.
    static let usage =
        "timerctl pick [--mode time|date|date-and-time|countdown] [--minute-interval N] [--min TIME] [--max TIME] "
        + "[--locale ID] [--calendar ID]"

    static let help = """
        Usage: \(usage)

        Shows a date picker in the terminal and prints what you pick on standard output: an ISO 8601 instant with
        its offset (2026-03-29T03:30:00+02:00), or in countdown mode a duration (1h5m). So
        timerctl start --at "$(timerctl pick)" starts a timer that ends at the picked time.

        Keys: Left/Right choose a wheel, Up/Down spin it, PageUp/PageDown spin 10 rows, digits type a value,
        Enter accepts, Esc cancels. The picker follows the date-picker rules (docs/datepicker-rules.md).

        Options:
          --mode MODE            time, date, date-and-time (default) or countdown
          --minute-interval N    minute wheel step: 1, 2, 3, 4, 5, 6, 10, 12, 15, 20 or 30 (default 1)
          --min TIME, --max TIME range: ISO 8601 with Z or an offset, or local HH:MM[:SS] or YYYY-MM-DDTHH:MM[:SS]
          --locale ID            locale such as en_US, de_DE, ja_JP (default: the system's)
          --calendar ID          gregorian, japanese, hebrew, chinese, buddhist, islamic, persian, …
          -h, --help             show this help
          --version              show the version

        The time zone is the system's (TZ). NO_COLOR turns attributes off.
        Exit status: 0 picked, 1 cancelled (Esc), 64 usage error, 69 no terminal, 128+N killed by signal N.

        """

    /// Why the options are wrong.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// Parses the arguments (without the program name). `--x v` and `--x=v` are both accepted.
    ///
    /// - Throws: ``UsageError`` naming the bad argument and what is allowed.
    static func parse(_ arguments: [String]) throws(UsageError) -> PickOptions {
        var options = PickOptions()
        var index = 0
        func value(_ flag: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError(description: "option '\(flag)' needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let flag = argument.hasPrefix("--") ? parts[0] : argument
            let inline = argument.hasPrefix("--") && parts.count == 2 ? parts[1] : nil
            switch flag {
            case "-h", "--help": options.isHelp = true
            case "--version": options.isVersion = true
            case "--mode":
                let text = try value(flag, inline: inline)
                guard let mode = Self.modes[text] else {
                    throw UsageError(
                        description: "unknown mode '\(text)': use time, date, date-and-time or countdown")
                }
                options.mode = mode
            case "--minute-interval":
                let text = try value(flag, inline: inline)
                guard let interval = Int(text), DatePicker.isValidMinuteInterval(interval) else {
                    throw UsageError(
                        description: "--minute-interval must divide 60 and be 1 to 30 "
                            + "(1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30), got \"\(text)\"")
                }
                options.minuteInterval = interval
            case "--min": options.minimum = try value(flag, inline: inline)
            case "--max": options.maximum = try value(flag, inline: inline)
            case "--locale": options.locale = try value(flag, inline: inline)
            case "--calendar": options.calendar = try value(flag, inline: inline)
            default:
                throw UsageError(description: "unknown argument '\(argument)'")
            }
            index += 1
        }
        return options
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
        if let date = iso.date(from: text) { return date }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // The product's one local-time grammar (the same as `timerctl start --at`), then the picker's rules.
        guard let wall = LocalTimeText(parsing: text.trimmingCharacters(in: .whitespaces)), wall.isCalendarDate
        else { throw .invalidLocalTime(text) }
        let local = LocalTimeResolver.LocalTime(
            year: wall.year, month: wall.month, day: wall.day, hour: wall.hour, minute: wall.minute,
            second: wall.second)
        return try LocalTimeResolver.resolve(local, now: now, timeZone: timeZone, calendar: calendar).date
    }
}
