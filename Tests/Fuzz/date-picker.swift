// libFuzzer target: the date picker's operations, as a program driving DatePicking would call them
// with whatever values it got (scripts/fuzz builds and runs it; docs/checking.md).
//
// The input is a little program: the first bytes choose the environment (locale, time zone,
// calendar, hour cycle, "now" from 8 raw bytes, so NaN, infinities and far instants come too), then
// each further byte is an operation with its operands: spin a wheel by any row count, set the date,
// the bounds, the minute interval, the mode, the count-down duration, the rounding and time-gap
// policy, and read every wheel, selected value and row title. At most 64 operations. Every
// operation must give a value or its documented error, never a trap (docs/datepicker-rules.md).
import DatePicking
import Foundation

private let locales = ["en_US", "de_DE", "fr_FR", "ja_JP", "he_IL", "ar_EG", "zh_CN", "ko_KR"]
private let zones = ["UTC", "Europe/Paris", "America/Los_Angeles", "Pacific/Kiritimati", "Australia/Lord_Howe"]
private let calendars: [Calendar.Identifier] = [
    .gregorian, .japanese, .hebrew, .chinese, .islamicUmmAlQura, .buddhist, .persian,
]

/// Reads operands from the input, giving zeros once it runs out.
private struct Operands {
    var bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    /// A double from raw bits half the time (NaN, infinities, subnormals), else seconds within
    /// about ±68 years of 2001 (dates a picker meets every day).
    mutating func double() -> Double {
        let raw = int64()
        return raw & 1 == 0 ? Double(bitPattern: UInt64(bitPattern: raw)) : Double(Int32(truncatingIfNeeded: raw >> 1))
    }
}

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDatePicker(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = Operands(bytes: UnsafeBufferPointer(start: data, count: size))
    let locale = Locale(identifier: locales[Int(input.byte()) % locales.count])
    let zone = TimeZone(identifier: zones[Int(input.byte()) % zones.count]) ?? .gmt
    let calendar = Calendar(identifier: calendars[Int(input.byte()) % calendars.count])
    let cycles: [HourCycle?] = [nil] + HourCycle.allCases
    let cycle = cycles[Int(input.byte()) % cycles.count]
    let now = Date(timeIntervalSinceReferenceDate: input.double())
    var picker = DatePicker(
        environment: DatePickerEnvironment(
            now: now, locale: locale, timeZone: zone, calendar: calendar, hourCycle: cycle))
    var operations = 0
    while !input.isAtEnd && operations < 64 {
        operations += 1
        switch input.byte() % 10 {
        case 0:
            let kinds = WheelKind.allCases
            let kind = kinds[Int(input.byte()) % kinds.count]
            let rows = input.byte() & 1 == 0 ? Int(Int8(bitPattern: input.byte())) : Int(input.int64())
            _ = picker.spin(kind, by: rows)
        case 1: try? picker.setDate(Date(timeIntervalSinceReferenceDate: input.double()))
        case 2: try? picker.setMinuteInterval(Int(Int8(bitPattern: input.byte())))
        case 3: picker.datePickerMode = DatePickerMode.allCases[Int(input.byte()) % DatePickerMode.allCases.count]
        case 4:
            let bound = input.byte() & 1 == 0 ? nil : Date(timeIntervalSinceReferenceDate: input.double())
            if input.byte() & 1 == 0 { picker.minimumDate = bound } else { picker.maximumDate = bound }
        case 5: try? picker.setCountDownDuration(input.double())
        case 6:
            picker.roundsToMinuteInterval.toggle()
            picker.nonexistentTimePolicy = picker.nonexistentTimePolicy == .revert ? .forward : .revert
            picker.allowsZeroCountDownDuration = input.byte() & 1 == 1
        case 7:
            let titles = picker.titles
            for wheel in picker.wheels {
                let low = wheel.selectedRow - 2
                _ = titles.titles(of: wheel, rows: low...(wheel.selectedRow + 2))
            }
        case 8:
            for kind in WheelKind.allCases {
                if let value = picker.selectedValue(of: kind) { _ = picker.isEnabled(value, in: kind) }
            }
        default:
            _ = picker.date
            _ = picker.countDownDuration
            _ = picker.visualWheelOrder
            _ = picker.layoutDirection
        }
    }
    return 0
}
