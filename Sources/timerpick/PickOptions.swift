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
    /// `--locale ID` and `--calendar ID`; `nil` follows the system's locale and that locale's calendar.
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
    /// The wheels open at `now` cut to the whole minute. When a minimum is given and that is before it, they
    /// open at the first step of the minute interval at or after the minimum instead, so that Enter at once
    /// picks a time in range: with `--min now` (what `timerctl start --pick` passes) at 16:07:20 and an
    /// interval of 5, at 16:10. A reversed range (minimum after maximum) applies neither bound (rule B10), so
    /// the wheels then open at `now`.
    ///
    /// The calendar is `--calendar`, else the locale's own (`--locale`, else the system's): `th_TH` and
    /// `th_TH@calendar=buddhist` count Buddhist years, `ja_JP@calendar=japanese` Japanese eras.
    ///
    /// - Parameters:
    ///   - now: The current instant, with its seconds: `now` in `--min`/`--max`, the base of `+25m`; cut to the
    ///     minute, the initial selection and the date wheel's "Today".
    ///   - timeZone: The zone the wheels show.
    ///   - systemLocale: The locale when `--locale` is not given.
    /// - Throws: ``UsageError`` for an unknown locale or calendar or an unreadable `--min`/`--max`.
    func makePicker(now: Date, timeZone: TimeZone, systemLocale: Locale) throws(UsageError) -> DatePicker {
        // The same grammar and the same message as `timerctl start --at`: what it really takes.
        for (option, text) in [("--min", minimum), ("--max", maximum)] {
            guard let text, text.lowercased() != "now", ISO8601.date(from: ISO8601.completingSeconds(text)) == nil
            else { continue }
            do throws(OneShotTimeText.ParseError) {
                _ = try OneShotTimeText(parsing: text)
            } catch {
                throw UsageError(
                    description: "invalid \(option) time \"\(text)\": \(error.reason); \(OneShotTimeText.accepted)")
            }
        }
        do throws(DatePickingError) {
            let shown = Date(
                timeIntervalSinceReferenceDate: (now.timeIntervalSinceReferenceDate / 60).rounded(.down) * 60)
            var picker = DatePicker(
                environment: DatePickerEnvironment(
                    now: shown, locale: systemLocale, timeZone: timeZone, calendar: Calendar(identifier: .gregorian)))
            picker.datePickerMode = mode
            try picker.setMinuteInterval(minuteInterval)
            try picker.setLocale(identifier: locale)
            if let calendar {
                try picker.setCalendar(identifier: calendar)
            } else {
                picker.calendar = Self.calendar(of: picker.locale ?? systemLocale)
            }
            picker.timeZone = timeZone
            picker.minimumDate = try minimum.map { text throws(DatePickingError) in
                try Self.instant(text, now: now, timeZone: timeZone)
            }
            picker.maximumDate = try maximum.map { text throws(DatePickingError) in
                try Self.instant(text, now: now, timeZone: timeZone)
            }
            // The initialiser already selected `shown`; setting `date` again in countdown mode would load the
            // time of day as a duration (decision A12), so a countdown starts at one interval instead (B20).
            if mode != .countDownTimer, let minimum = picker.minimumDate, shown < minimum,
                picker.maximumDate.map({ minimum <= $0 }) ?? true
            {
                picker.date = Self.firstStep(atOrAfter: minimum, interval: picker.minuteInterval, timeZone: timeZone)
            }
            return picker
        } catch {
            throw UsageError(description: error.description)
        }
    }

    /// The locale's own calendar (its `calendar` keyword, else its region's default: Buddhist for th_TH), in
    /// GMT and `en_US_POSIX` like ``DatePicking/DatePicker/calendar(identifier:)``, so nothing of the machine
    /// leaks in; the picker shows it in its own zone.
    static func calendar(of locale: Locale) -> Calendar {
        var calendar = Calendar(identifier: locale.calendar.identifier)
        calendar.timeZone = .gmt
        calendar.locale = Locale(identifier: "en_US_POSIX")
        return calendar
    }

    /// The first instant at or after `date` whose local minute in `timeZone` is a multiple of `interval` and
    /// whose seconds are 0: 16:07:20 with interval 5 gives 16:10:00, 16:10:00 gives itself.
    ///
    /// - Parameters:
    ///   - date: The instant.
    ///   - interval: Minutes, 1 to 30 (a divisor of 60).
    ///   - timeZone: The zone whose wall minutes make the grid (Asia/Kathmandu, +05:45, has its own).
    /// - Returns: The step.
    static func firstStep(atOrAfter date: Date, interval: Int, timeZone: TimeZone) -> Date {
        let minute = Date(timeIntervalSinceReferenceDate: (date.timeIntervalSinceReferenceDate / 60).rounded(.up) * 60)
        let offset = timeZone.secondsFromGMT(for: minute)
        let localMinutes = Int(((minute.timeIntervalSinceReferenceDate + Double(offset)) / 60).rounded(.down))
        let step = max(interval, 1)
        let remainder = ((localMinutes % step) + step) % step
        return remainder == 0 ? minute : minute.addingTimeInterval(Double((step - remainder) * 60))
    }

    /// `now` (the present instant, seconds included), an ISO 8601 instant with Z or an offset, or a local time
    /// resolved like `timerctl start --at`.
    static func instant(_ text: String, now: Date, timeZone: TimeZone) throws(DatePickingError) -> Date {
        if text.lowercased() == "now" { return now }
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
