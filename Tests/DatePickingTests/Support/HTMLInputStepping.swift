import Foundation

/// The WHATWG HTML `stepUp()`/`stepDown()` algorithm for `<input type=time|date|datetime-local|number>`.
///
/// Test support only: the vectors' `htmlStep` operations are an analog (rule B30 of docs/datepicker-rules.md) that says
/// nothing about UIKit, so this lives beside the tests rather than in the `DatePicking` library.
/// Source: https://html.spec.whatwg.org/multipage/input.html#dom-input-stepup and WPT `input-stepup.html`.
struct HTMLInputStepping {
    enum InputType: String {
        case time
        case date
        case datetimeLocal = "datetime-local"
        case number
    }

    enum Method: String {
        case stepUp
        case stepDown
        case none
    }

    struct InvalidStateError: Error {}

    var type: InputType
    /// The value content attribute and the current value (already assigned).
    var value: String
    var min: String?
    var max: String?
    var step: String?

    /// The value after sanitisation: an invalid string becomes "" and a valid one its normalised form.
    var sanitizedValue: String {
        guard let number = parse(value) else { return "" }
        return type == .datetimeLocal || type == .time ? serialize(number) : value
    }

    /// Runs `method` with argument `n` and returns the resulting value string.
    func run(_ method: Method, n: Int) throws -> String {
        let current = sanitizedValue
        guard method != .none else { return current }
        // Step 1: step="any" has no allowed value step.
        if step?.lowercased() == "any" { throw InvalidStateError() }
        let minimum = min.flatMap(parse)
        let maximum = max.flatMap(parse)
        // Step 2: a reversed range does nothing (except a time range crossing midnight).
        if let minimum, let maximum, minimum > maximum, type != .time { return current }
        let stepValue = allowedStep
        let base = stepBase
        var number = parse(current) ?? 0
        let original = number
        let offset = (number - base) / stepValue
        if offset.rounded() != offset {
            // Off-step: snap in the direction of travel.
            number = base + (method == .stepDown ? offset.rounded(.down) : offset.rounded(.up)) * stepValue
        } else {
            number += stepValue * Double(n) * (method == .stepDown ? -1 : 1)
        }
        if let minimum, number < minimum {
            number = base + ((minimum - base) / stepValue).rounded(.up) * stepValue
        }
        if let maximum, number > maximum {
            number = base + ((maximum - base) / stepValue).rounded(.down) * stepValue
        }
        if method == .stepDown, number > original { return current }
        if method == .stepUp, number < original { return current }
        return serialize(number)
    }

    /// The step in the type's units (milliseconds for times and dates).
    var allowedStep: Double {
        let (defaultStep, scale): (Double, Double)
        switch type {
        case .time, .datetimeLocal: (defaultStep, scale) = (60, 1000)
        case .date: (defaultStep, scale) = (1, 86_400_000)
        case .number: (defaultStep, scale) = (1, 1)
        }
        guard let step, let parsed = Double(step), parsed.isFinite, parsed > 0 else { return defaultStep * scale }
        return parsed * scale
    }

    /// `min`, else the value attribute, else 0.
    var stepBase: Double {
        if let min, let parsed = parse(min) { return parsed }
        if let parsed = parse(value) { return parsed }
        return 0
    }

    func parse(_ text: String) -> Double? {
        switch type {
        case .number:
            guard let number = Double(text), number.isFinite else { return nil }
            return number
        case .time:
            return Self.parseTime(text)
        case .date:
            return Self.parseDate(text).map { $0 * 86_400_000 }
        case .datetimeLocal:
            guard let separator = text.firstIndex(where: { $0 == "T" || $0 == " " }),
                let day = Self.parseDate(String(text[..<separator])),
                let time = Self.parseTime(String(text[text.index(after: separator)...]))
            else { return nil }
            return day * 86_400_000 + time
        }
    }

    func serialize(_ number: Double) -> String {
        switch type {
        case .number:
            return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .time:
            return Self.formatTime(Self.modulo(number, 86_400_000))
        case .date:
            return Self.formatDate(Int((number / 86_400_000).rounded(.down)))
        case .datetimeLocal:
            let days = (number / 86_400_000).rounded(.down)
            return Self.formatDate(Int(days)) + "T" + Self.formatTime(number - days * 86_400_000)
        }
    }

    static func modulo(_ value: Double, _ divisor: Double) -> Double {
        let remainder = value.truncatingRemainder(dividingBy: divisor)
        return remainder < 0 ? remainder + divisor : remainder
    }

    /// `hh:mm[:ss[.s{1,3}]]` → milliseconds since midnight.
    static func parseTime(_ text: String) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3,
            parts[0].count == 2, parts[1].count == 2,
            let hour = Int(parts[0]), let minute = Int(parts[1]),
            parts[0].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isASCII),
            (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        var milliseconds = Double(hour * 3_600_000 + minute * 60_000)
        if parts.count == 3 {
            let secondParts = parts[2].split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard secondParts[0].count == 2, let second = Int(secondParts[0]), (0...59).contains(second),
                secondParts.count <= 2
            else { return nil }
            milliseconds += Double(second * 1000)
            if secondParts.count == 2 {
                let fraction = secondParts[1]
                guard (1...3).contains(fraction.count), fraction.allSatisfy(\.isNumber),
                    let value = Int(fraction)
                else { return nil }
                milliseconds += Double(value) * pow(10, Double(3 - fraction.count))
            }
        }
        return milliseconds
    }

    static func formatTime(_ milliseconds: Double) -> String {
        let total = Int(milliseconds.rounded())
        let hour = total / 3_600_000
        let minute = total / 60_000 % 60
        let second = total / 1000 % 60
        let fraction = total % 1000
        var text = pad(hour, 2) + ":" + pad(minute, 2)
        if second != 0 || fraction != 0 { text += ":" + pad(second, 2) }
        if fraction != 0 {
            var digits = pad(fraction, 3)
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }

    /// `yyyy-mm-dd` → days since 1970-01-01 (proleptic Gregorian).
    static func parseDate(_ text: String) -> Double? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0].count >= 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
            year >= 1, (1...12).contains(month), day >= 1, day <= daysInMonth(year, month)
        else { return nil }
        return Double(daysFromCivil(year, month, day))
    }

    static func formatDate(_ days: Int) -> String {
        let (year, month, day) = civilFromDays(days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    static func daysInMonth(_ year: Int, _ month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: Swift.max(0, width - text.count)) + text
    }
}
