import Foundation
import TestSupport
import Testing

@testable import DatePicking

/// A seeded fuzz over every public API with hostile values: nothing may trap, and every result must be a typed
/// error or a documented clamp (docs/datepicker-rules.md B3, B10, B11, B20; the module's "nothing traps" contract).
@Suite("Hostile inputs: seeded fuzz over every public API")
struct HostileInputFuzzTests {
    static let instants: [Date] = [
        .distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 1e300),
        Date(timeIntervalSinceReferenceDate: -1e300), Date(timeIntervalSinceReferenceDate: .nan),
        Date(timeIntervalSinceReferenceDate: .infinity), Date(timeIntervalSinceReferenceDate: -.infinity),
        Date(timeIntervalSinceReferenceDate: .greatestFiniteMagnitude), Date(timeIntervalSinceReferenceDate: 0),
        Spec.at("2026-03-08T10:30:00Z"), Spec.at("2026-11-01T09:30:00Z"), Spec.at("2011-12-30T10:00:00Z"),
        Spec.at("1582-10-10T12:00:00Z"), Spec.at("2019-04-30T15:00:00Z"),
    ]
    static let integers: [Int] = [
        Int.min, Int.min + 1, -1_000_000_007, -1000, -13, -12, -1, 0, 1, 11, 12, 13, 24, 1000, Int.max - 1, Int.max,
    ]
    static let doubles: [Double] = [
        .nan, -.nan, .infinity, -.infinity, 1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNonzeroMagnitude, -0.0, 0, 59, 60, 86_399, 86_400, -1,
    ]
    static let zones = [
        "America/Los_Angeles", "Europe/London", "Australia/Sydney", "Asia/Tehran", "America/Sao_Paulo",
        "Pacific/Apia", "Australia/Lord_Howe", "Pacific/Kiritimati", "Asia/Kathmandu", "UTC",
    ]
    static let locales = [
        "en_US", "en_GB", "de_DE", "fr_FR", "ja_JP", "zh_CN", "ko_KR", "ar_EG", "he_IL", "fa_IR", "hi_IN", "ru_RU",
        "es_ES", "pt_BR", "th_TH", "zh_TW", "ja_JP@calendar=japanese",
    ]
    static let calendars = [
        "gregorian", "buddhist", "japanese", "hebrew", "islamic", "islamic-umalqura", "persian", "chinese", "coptic",
        "ethiopic", "indian", "roc", "iso8601",
    ]
    static let garbage = [
        "", " ", "\u{0}", "💥", "en_US_POSIX@@@", "../../etc/passwd", String(repeating: "x", count: 4096),
    ]

    static func pick<T>(_ values: [T], _ generator: inout SplitMix64) -> T {
        values[Int(generator.next() % UInt64(values.count))]
    }

    @Test("Seeded fuzz: 4000 random operations with hostile values never trap and keep the invariants")
    func fuzz() throws {
        var generator = SplitMix64(seed: 0xDA7E_9C4E_2026)
        var picker = DatePicker(environment: DatePickerEnvironment(now: Fixtures.now))
        for step in 0..<4000 {
            let operation = generator.next() % 20
            switch operation {
            case 0: picker.date = Self.pick(Self.instants, &generator)
            case 1: picker.minimumDate = Self.pick(Self.instants, &generator)
            case 2: picker.maximumDate = Self.pick(Self.instants, &generator)
            case 3: picker.minuteInterval = Self.pick(Self.integers + [5, 15, 30], &generator)
            case 4: picker.countDownDuration = Self.pick(Self.doubles, &generator)
            case 5: picker.datePickerMode = Self.pick(DatePickerMode.allCases, &generator)
            case 6: try? picker.setTimeZone(identifier: Self.pick(Self.zones + Self.garbage, &generator))
            case 7: try? picker.setLocale(identifier: Self.pick(Self.locales + Self.garbage, &generator))
            case 8: try? picker.setCalendar(identifier: Self.pick(Self.calendars + Self.garbage, &generator))
            case 9: picker.roundsToMinuteInterval.toggle()
            case 10: picker.nonexistentTimePolicy = Self.pick(NonexistentTimePolicy.allCases, &generator)
            case 11: picker.allowsZeroCountDownDuration = generator.next() % 8 == 0
            case 12:
                let value = Self.pick(Self.integers, &generator)
                let kind = Self.pick(WheelKind.allCases, &generator)
                _ = picker.isEnabled(.number(value), in: kind)
                _ = picker.isEnabled(.meridiem(Self.pick(WheelValue.Meridiem.allCases, &generator)), in: kind)
                _ = picker.isEnabled(.day(Self.pick(Self.instants, &generator)), in: kind)
            case 13:
                for wheel in picker.wheels {
                    _ = wheel.value(atRow: Self.pick(Self.integers, &generator))
                    _ = wheel.values
                    _ = wheel.firstValue
                    _ = wheel.lastValue
                }
            case 14: picker.environment.now = Self.pick(Self.instants, &generator)
            case 15: picker.environment.hourCycle = Self.pick([nil, .h12, .h23], &generator)
            default:
                picker.spin(Self.pick(WheelKind.allCases, &generator), by: Self.pick(Self.integers, &generator))
            }
            try Self.checkInvariants(picker, step: step)
        }
    }

    static func checkInvariants(_ picker: DatePicker, step: Int) throws {
        let date = picker.date
        #expect(date.timeIntervalSinceReferenceDate.isFinite, "step \(step)")
        #expect(date >= .distantPast && date <= DatePicker.latestDate, "step \(step)")
        #expect(DatePicker.isValidMinuteInterval(picker.minuteInterval), "step \(step)")
        let duration = picker.countDownDuration
        #expect(duration >= 0 && duration <= 86_340 && duration.truncatingRemainder(dividingBy: 60) == 0)
        if !picker.allowsZeroCountDownDuration { #expect(duration >= 60) }
        for wheel in picker.wheels {
            #expect(wheel.rowCount > 0 && (0..<wheel.rowCount).contains(wheel.selectedRow), "step \(step)")
        }
        _ = picker.visualWheelOrder
        _ = picker.uses12HourClock
        _ = picker.effectiveLocale
        // JSON cannot hold an infinite bound or "now": encoding then throws a typed EncodingError, never traps.
        if let data = try? JSONEncoder().encode(picker) {
            let decoded = try JSONDecoder().decode(DatePicker.self, from: data)
            #expect(decoded.date == picker.date, "step \(step)")
        }
    }

    @Test("Throwing setters give typed errors for hostile values and leave the picker unchanged")
    func typedErrors() {
        var picker = Fixtures.picker(.dateAndTime, zone: "Europe/London")
        let before = picker
        for interval in [Int.min, -1, 0, 7, 31, 60, Int.max] {
            #expect(throws: DatePickingError.invalidMinuteInterval(interval)) { try picker.setMinuteInterval(interval) }
        }
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(throws: DatePickingError.self) { try picker.setDate(Date(timeIntervalSinceReferenceDate: bad)) }
            #expect(throws: DatePickingError.self) { try picker.setCountDownDuration(bad) }
        }
        for text in Self.garbage {
            #expect(throws: DatePickingError.unknownTimeZone(text)) { try picker.setTimeZone(identifier: text) }
            #expect(throws: DatePickingError.unknownCalendar(text)) { try picker.setCalendar(identifier: text) }
            if text != "en_US_POSIX@@@" {  // language "en" is an ISO 639 code: accepted as documented
                #expect(throws: DatePickingError.self) { try DatePicker.locale(identifier: text) }
            }
        }
        #expect(picker == before)
        #expect(throws: DatePickingError.self) {
            try DatePickerEnvironment(
                now: Date(timeIntervalSinceReferenceDate: .nan), localeIdentifier: "en_US", timeZoneIdentifier: "UTC")
        }
    }

    @Test("Extreme instants are clamped to distantPast…latestDate in every calendar and zone")
    func extremeInstantsEverywhere() throws {
        for name in Self.calendars {
            for zone in ["Pacific/Kiritimati", "Pacific/Niue", "Asia/Tehran"] {
                var picker = Fixtures.picker(.date, zone: zone, calendar: name)
                picker.date = Date(timeIntervalSinceReferenceDate: 1e300)
                #expect(picker.date <= DatePicker.latestDate)
                for kind in [WheelKind.day, .month, .year] {
                    picker.spin(kind, by: Int.max)
                    picker.spin(kind, by: Int.min)
                }
                picker.date = Date(timeIntervalSinceReferenceDate: -1e300)
                #expect(picker.date >= .distantPast)
                picker.datePickerMode = .dateAndTime
                picker.spin(.date, by: Int.min)
                picker.spin(.date, by: Int.max)
                _ = picker.wheels
                #expect(picker.date >= .distantPast && picker.date <= DatePicker.latestDate)
            }
        }
    }

    @Test("LocalTimeResolver: garbage text, extreme now and bad intervals give typed errors")
    func resolverHostile() {
        let zone = Fixtures.zone("America/Los_Angeles")
        let calendar = Calendar(identifier: .gregorian)
        for text in Self.garbage + ["24:00", "12:60", "9:30", "0000-01-01T00:00", "2026-02-29T10:00", "１２:３０"] {
            #expect(throws: DatePickingError.self) {
                try LocalTimeResolver.resolve(text, now: Fixtures.now, timeZone: zone, calendar: calendar)
            }
        }
        #expect(throws: DatePickingError.self) {
            try LocalTimeResolver.resolve(
                "10:00", now: Date(timeIntervalSinceReferenceDate: .nan), timeZone: zone, calendar: calendar)
        }
        #expect(throws: DatePickingError.invalidMinuteInterval(0)) {
            try LocalTimeResolver.resolve(
                "10:00", now: Fixtures.now, timeZone: zone, calendar: calendar, minuteInterval: 0)
        }
        for now in [Date.distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 1e300)] {
            _ = try? LocalTimeResolver.resolve("23:59", now: now, timeZone: zone, calendar: calendar)
            _ = try? LocalTimeResolver.resolve(
                LocalTimeResolver.LocalTime(year: Int.max, month: 1, day: 1, hour: 0, minute: 0), now: now,
                timeZone: zone, calendar: calendar)
            _ = try? LocalTimeResolver.resolve(
                LocalTimeResolver.LocalTime(hour: Int.min, minute: Int.max, second: -1), now: now, timeZone: zone,
                calendar: calendar)
        }
    }
}
