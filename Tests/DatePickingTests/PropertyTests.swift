import Foundation
import TestSupport
import Testing

@testable import DatePicking

/// Seeded random configurations and operations. A failure names its seed; replay one seed with
/// `DATEPICKING_SEED=<seed> swift test --filter PropertyTests`.
@Suite("Properties over random configurations")
struct PropertyTests {
    static let calendars = [
        "gregorian", "buddhist", "japanese", "hebrew", "islamic-umalqura", "islamic-civil", "persian",
    ]
    static let zones = [
        "America/Los_Angeles", "America/New_York", "America/Chicago", "America/Denver", "America/Sao_Paulo",
        "America/Santiago", "America/Havana", "America/St_Johns", "America/Asuncion", "Europe/London",
        "Europe/Berlin", "Europe/Paris", "Europe/Moscow", "Europe/Kiev", "Atlantic/Azores", "Asia/Tehran",
        "Asia/Jerusalem", "Asia/Beirut", "Africa/Cairo", "Australia/Sydney", "Australia/Adelaide",
        "Pacific/Auckland", "Pacific/Chatham", "Pacific/Apia", "UTC",
    ]
    static let locales = [
        "en_US", "en_GB", "de_DE", "fr_FR", "ja_JP", "zh_CN", "zh_TW", "ko_KR", "hi_IN", "ar_EG", "ar_SA", "he_IL",
        "fa_IR", "ur_PK", "es_MX", "da_DK", "th_TH", "ru_RU", "pt_BR", "en_AU",
    ]
    static let seeds: [UInt64] = {
        if let text = ProcessInfo.processInfo.environment["DATEPICKING_SEED"], let seed = UInt64(text) { return [seed] }
        return Array(1...400)
    }()
    static let operationsPerSeed = 60

    /// 1900-01-01T00:00:00Z ... 2100-12-31T23:59:59Z.
    static let dateRange: ClosedRange<Double> = -2_208_988_800...4_133_980_799

    @Test("Results stay in range, aligned, consistent with the wheels, and nothing traps")
    func randomOperations() {
        var operations = 0
        for seed in Self.seeds {
            var generator = SplitMix64(seed: seed)
            var picker = Self.randomPicker(using: &generator)
            for step in 0..<Self.operationsPerSeed {
                let before = picker.valueChangedCount
                let (name, isSpin) = Self.randomOperation(on: &picker, using: &generator)
                operations += 1
                let problems = Self.check(picker) + Self.checkEvents(before, picker.valueChangedCount, isSpin: isSpin)
                for problem in problems {
                    Issue.record("seed \(seed), operation \(step) (\(name)): \(problem); picker: \(picker)")
                }
                if !problems.isEmpty { break }
            }
        }
        #expect(operations >= (Self.seeds.count == 1 ? 1 : 10_000))
    }

    static func randomDate(using generator: inout SplitMix64) -> Date {
        Date(timeIntervalSince1970: Double.random(in: dateRange, using: &generator).rounded())
    }

    static func randomPicker(using generator: inout SplitMix64) -> DatePicker {
        let environment = DatePickerEnvironment(
            now: randomDate(using: &generator),
            locale: Locale(identifier: locales.randomElement(using: &generator) ?? "en_US"),
            timeZone: TimeZone(identifier: zones.randomElement(using: &generator) ?? "UTC") ?? .gmt,
            hourCycle: [nil, HourCycle.h12, .h23].randomElement(using: &generator) ?? nil)
        var picker = DatePicker(environment: environment)
        picker.datePickerMode = DatePickerMode.allCases.randomElement(using: &generator) ?? .date
        picker.calendar = try? DatePicker.calendar(identifier: calendars.randomElement(using: &generator) ?? "")
        picker.locale = Bool.random(using: &generator) ? nil : environment.locale
        picker.timeZone = TimeZone(identifier: zones.randomElement(using: &generator) ?? "UTC")
        picker.minuteInterval = [1, 2, 5, 10, 15, 20, 30].randomElement(using: &generator) ?? 1
        picker.nonexistentTimePolicy = Bool.random(using: &generator) ? .revert : .forward
        picker.date = randomDate(using: &generator)
        randomBounds(&picker, using: &generator)
        return picker
    }

    static func randomBounds(_ picker: inout DatePicker, using generator: inout SplitMix64) {
        let centre = picker.date
        let spreads: [Double] = [3600, 86_400, 40 * 86_400, 800 * 86_400]
        let spread = spreads.randomElement(using: &generator) ?? 86_400
        func bound() -> Date? {
            guard Int.random(in: 0..<3, using: &generator) > 0 else { return nil }
            return centre.addingTimeInterval(Double.random(in: -spread...spread, using: &generator).rounded())
        }
        picker.minimumDate = bound()
        picker.maximumDate = bound()
    }

    /// Applies one random operation; returns its name and whether it is a user spin.
    static func randomOperation(on picker: inout DatePicker, using generator: inout SplitMix64) -> (String, Bool) {
        switch Int.random(in: 0..<100, using: &generator) {
        case 0..<55:
            let kinds = picker.wheels.map(\.kind)
            let kind = kinds.randomElement(using: &generator) ?? .hour
            let rows =
                Int.random(in: 0..<20, using: &generator) == 0
                ? Int.random(in: -100_000...100_000, using: &generator)
                : Int.random(in: -30...30, using: &generator)
            picker.spin(kind, by: rows)
            return ("spin \(kind) by \(rows)", true)
        case 55..<70:
            let date = randomDate(using: &generator)
            picker.date = date
            return ("date = \(date.timeIntervalSince1970)", false)
        case 70..<78:
            let interval = Int.random(in: -5...65, using: &generator)
            picker.minuteInterval = interval
            return ("minuteInterval = \(interval)", false)
        case 78..<84:
            randomBounds(&picker, using: &generator)
            return ("bounds", false)
        case 84..<88:
            picker.roundsToMinuteInterval.toggle()
            return ("roundsToMinuteInterval = \(picker.roundsToMinuteInterval)", false)
        case 88..<92:
            let mode = DatePickerMode.allCases.randomElement(using: &generator) ?? .time
            picker.datePickerMode = mode
            return ("mode = \(mode)", false)
        case 92..<96:
            let zone = zones.randomElement(using: &generator) ?? "UTC"
            picker.timeZone = TimeZone(identifier: zone)
            return ("timeZone = \(zone)", false)
        default:
            let durations: [Double] = [-10, 0, 59, 61, 3599, 86_399, 1e9, .nan, .infinity]
            let duration = durations.randomElement(using: &generator) ?? 0
            picker.countDownDuration = duration
            return ("countDownDuration = \(duration)", false)
        }
    }

    static func checkEvents(_ before: Int, _ after: Int, isSpin: Bool) -> [String] {
        let allowed = isSpin ? [before, before + 1] : [before]
        return allowed.contains(after) ? [] : ["valueChangedCount went from \(before) to \(after)"]
    }

    static func check(_ picker: DatePicker) -> [String] {
        var problems: [String] = []
        let date = picker.date
        let wheels = picker.wheels
        let interval = picker.minuteInterval
        if picker.datePickerMode == .countDownTimer {
            let duration = picker.countDownDuration
            let hour = wheels.first { $0.kind == .countdownHour }?.selectedValue.number ?? -1
            let minute = wheels.first { $0.kind == .countdownMinute }?.selectedValue.number ?? -1
            if duration != Double(hour * 3600 + minute * 60) {
                problems.append("countdown \(duration) but wheels show \(hour) h \(minute) m")
            }
            if duration < Double(60 * interval) || duration > 86_340
                || duration.truncatingRemainder(dividingBy: 60) != 0
            {
                problems.append("countdown \(duration) outside [60 × interval, 86340] or not whole minutes")
            }
            return problems
        }
        // Range: the result is within [min, max] whenever the range is valid.
        let bounds = picker.validBounds
        if let minimum = bounds.minimum, date < minimum { problems.append("date \(date) before minimum \(minimum)") }
        if let maximum = bounds.maximum, date > maximum { problems.append("date \(date) after maximum \(maximum)") }
        let calendar = picker.effectiveCalendar
        let wall = WallTime(date, in: calendar)
        // Dates are clamped to Date.distantPast...DatePicker.latestDate, which counts as a bound too.
        let atBound =
            date == bounds.minimum || date == bounds.maximum || date == .distantPast || date == DatePicker.latestDate
        // Alignment: with rounding on, the minute is a multiple of the interval unless a bound or a zone
        // transition (a gap the floored wall time fell into, B7 rebuild) prevents it.
        if picker.roundsToMinuteInterval, wall.minute % interval != 0, !atBound {
            let zone = calendar.timeZone
            let nearTransition =
                zone.secondsFromGMT(for: date.addingTimeInterval(-86_400))
                != zone.secondsFromGMT(for: date.addingTimeInterval(86_400))
            if !nearTransition { problems.append("minute \(wall.minute) not aligned to \(interval)") }
        }
        // Round trip: the selected wheel values describe the date's wall time (minute floored).
        var expected = wall
        expected.minute = wall.minute / interval * interval
        var shown = wall
        for wheel in wheels {
            switch (wheel.kind, wheel.selectedValue) {
            case (.hour, .number(let hour)):
                shown.hour = picker.uses12HourClock ? hour % 12 + (wall.hour >= 12 ? 12 : 0) : hour
            case (.ampm, .meridiem(let meridiem)):
                shown.hour = shown.hour % 12 + (meridiem == .pm ? 12 : 0)
            case (.minute, .number(let minute)): shown.minute = minute
            case (.day, .number(let day)): shown.day = day
            case (.month, .number(let month)): shown.month = month
            case (.year, .number(let year)): shown.year = year
            case (.date, .day(let day)): shown = shown.replacing(to: .day, from: WallTime(day, in: calendar))
            default: problems.append("unexpected wheel \(wheel.kind) value \(wheel.selectedValue)")
            }
        }
        let granularity = picker.displayedGranularity
        if wall.year < 1 {
            // Before the calendar's year 1 (the Persian epoch is 622 AD) the year wheel, rows 1...10000, stops at 1.
        } else if !shown.matches(expected, to: granularity) {
            problems.append("wheels show \(shown) but the date is \(expected)")
        } else if granularity == .minute, !atBound, wall.minute % interval == 0,
            date.timeIntervalSince1970.rounded() == date.timeIntervalSince1970,
            let rebuilt = shown.resolved(in: calendar), rebuilt != date,
            calendar.timeZone.secondsFromGMT(for: rebuilt) == calendar.timeZone.secondsFromGMT(for: date)
        {
            problems.append("wheels rebuild \(rebuilt), not \(date)")
        }
        return problems
    }
}
