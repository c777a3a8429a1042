import Foundation

/// The ordered wheel kinds of one mode in one locale, derived from the locale's own date pattern.
///
/// Patterns come from `DateFormatter.dateFormat(fromTemplate:options:locale:)` (rule B14 of docs/datepicker-rules.md)
/// and are cached, because ICU's pattern generator is slow to create.
struct WheelLayout: Sendable, Hashable {
    /// Wheel kinds in the order their fields appear in the pattern (logical order).
    var logical: [WheelKind]
    /// Whether the locale's language is written right to left.
    var isRightToLeft: Bool
    /// The hour field of the locale's time pattern (`h`, `hh`, `H`, `HH`, `K` or `k`), which row titles use so
    /// that the hour is padded the way the locale writes it; `HH` when the mode shows no hour.
    var hourField = "HH"

    var hasMeridiem: Bool { logical.contains(.ampm) }

    /// Wheel kinds from left to right on screen.
    ///
    /// For a right-to-left language, UIKit swaps the hour and minute entries and then reverses the columns,
    /// so the time still reads hour-before-minute from left to right (`fixUpElementsForRTL`).
    var visual: [WheelKind] {
        guard isRightToLeft else { return logical }
        var swapped = logical
        Self.swap(.hour, .minute, in: &swapped)
        Self.swap(.countdownHour, .countdownMinute, in: &swapped)
        return swapped.reversed()
    }

    private static func swap(_ first: WheelKind, _ second: WheelKind, in kinds: inout [WheelKind]) {
        if let a = kinds.firstIndex(of: first), let b = kinds.firstIndex(of: second) { kinds.swapAt(a, b) }
    }

    static func make(mode: DatePickerMode, locale: Locale, hourCycle: HourCycle?) -> WheelLayout {
        let isRightToLeft = locale.language.characterDirection == .rightToLeft
        let hourField: String
        switch hourCycle {
        case .h12: hourField = "h"
        case .h23: hourField = "H"
        case nil: hourField = "j"
        }
        let kinds: [WheelKind]
        var shownHour = "HH"
        switch mode {
        case .countDownTimer:
            kinds = [.countdownHour, .countdownMinute]
        case .time:
            let timePattern = pattern(template: "\(hourField):m", locale: locale)
            kinds = wheelKinds(pattern: timePattern, mergeDate: false)
            shownHour = Self.hourField(in: timePattern)
        case .date:
            kinds = wheelKinds(pattern: pattern(template: "dMMMMy", locale: locale), mergeDate: false)
        case .dateAndTime:
            let dateTimePattern = pattern(template: "EEE, d MMM y \(hourField):m", locale: locale)
            kinds = wheelKinds(pattern: dateTimePattern, mergeDate: true)
            shownHour = Self.hourField(in: dateTimePattern)
        }
        return WheelLayout(logical: kinds, isRightToLeft: isRightToLeft, hourField: shownHour)
    }

    /// The first run of an hour letter outside quotes: `h` in `h:mm a`, `HH` in `HH:mm`; `HH` if none.
    static func hourField(in pattern: String) -> String {
        var inQuote = false
        var field = ""
        for character in pattern {
            if character == "'" {
                inQuote.toggle()
            } else if !inQuote, "hHkK".contains(character), field.isEmpty || field.last == character {
                field.append(character)
                continue
            }
            if !field.isEmpty { break }
        }
        return field.isEmpty ? "HH" : field
    }

    /// Falls back to a fixed order when the pattern lacks a field the mode needs.
    private static func completed(_ kinds: [WheelKind], mergeDate: Bool) -> [WheelKind] {
        var result = kinds
        let required: [WheelKind]
        if mergeDate {
            required = [.date, .hour, .minute]
        } else if result.contains(.hour) || result.contains(.minute) || result.contains(.ampm) {
            required = [.hour, .minute]
        } else {
            required = [.day, .month, .year]
        }
        for kind in required where !result.contains(kind) { result.append(kind) }
        return result
    }

    /// Reads the fields of an ICU pattern in order, skipping quoted literals.
    static func wheelKinds(pattern: String, mergeDate: Bool) -> [WheelKind] {
        var kinds: [WheelKind] = []
        var inQuote = false
        for character in pattern {
            if character == "'" {
                inQuote.toggle()
                continue
            }
            if inQuote { continue }
            var kind: WheelKind?
            switch character {
            case "h", "H", "k", "K": kind = .hour
            case "m": kind = .minute
            case "a", "b", "B": kind = .ampm
            case "d": kind = mergeDate ? .date : .day
            case "M", "L": kind = mergeDate ? .date : .month
            case "E", "c": kind = mergeDate ? .date : nil
            case "y", "Y", "u", "r", "G": kind = mergeDate ? nil : .year
            default: kind = nil
            }
            if let kind, !kinds.contains(kind) { kinds.append(kind) }
        }
        return completed(kinds, mergeDate: mergeDate)
    }

    static func pattern(template: String, locale: Locale) -> String {
        let key = "\(locale.identifier)|\(template)"
        if let cached = PatternCache.shared.value(for: key) { return cached }
        let pattern = DateFormatter.dateFormat(fromTemplate: template, options: 0, locale: locale) ?? template
        PatternCache.shared.store(pattern, for: key)
        return pattern
    }
}
