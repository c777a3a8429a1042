// Measures the DatePicking model against one Calendar.dateComponents + Calendar.date(from:) round trip.
//
// Usage: swift run -c release DatePickingBenchmark [--quick]
// Prints ns/op per operation, the ratio to the Foundation round trip, and a final one-line JSON object.
import DatePicking
import Foundation

let quick = CommandLine.arguments.contains("--quick")
let iterations = quick ? 2_000 : 50_000

/// Runs `body` `count` times after a short warm-up and returns nanoseconds per call.
func measure(_ count: Int, _ body: (Int) -> Int) -> Double {
    var sink = 0
    for index in 0..<Swift.min(count / 10 + 1, 1_000) { sink &+= body(index) }
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<count { sink &+= body(index) }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    if sink == 42 { print("") }  // keeps the work observable
    return Double(elapsed) / Double(count)
}

// 2026-05-10T10:07:00Z, 03:07 PDT in America/Los_Angeles.
let start = Date(timeIntervalSince1970: 1_778_407_620)
let zone = TimeZone(identifier: "America/Los_Angeles") ?? .gmt
var calendar = Calendar(identifier: .gregorian)
calendar.timeZone = zone
let units: Set<Calendar.Component> = [.era, .year, .month, .day, .hour, .minute, .second]

let roundTrip = measure(iterations) { index in
    let parts = calendar.dateComponents(units, from: start.addingTimeInterval(Double(index)))
    return Int(calendar.date(from: parts)?.timeIntervalSince1970 ?? 0)
}

var picker = DatePicker(
    environment: DatePickerEnvironment(now: start, locale: Locale(identifier: "en_US"), timeZone: zone))
picker.minuteInterval = 15
picker.minimumDate = start.addingTimeInterval(-86_400 * 30)
picker.maximumDate = start.addingTimeInterval(86_400 * 30)
picker.date = start

let dateRead = measure(iterations) { _ in Int(picker.date.timeIntervalSince1970) }

let wheelKinds: [WheelKind] = [.hour, .minute, .date, .ampm]
let spin = measure(iterations) { index in
    picker.spin(wheelKinds[index % wheelKinds.count], by: index % 7 - 3)
    return picker.valueChangedCount
}

picker.date = start
let wheels = measure(iterations / 2) { _ in picker.wheels.count }

// Titles: a full minute wheel (60 rows, interval 1), the first screen (selected row and two neighbours on each
// side, as timerpick draws it) of the 10,001-row .dateAndTime date wheel, and one whole terminal frame: a spin,
// new titles, every wheel's five visible rows titled and checked with isEnabled (what timerpick's screen asks).
var titled = picker
titled.minuteInterval = 1
titled.date = start
let titleIterations = Swift.max(iterations / 50, 100)
let minuteWheel = titled.wheels.first { $0.kind == .minute }
let dateWheel = titled.wheels.first { $0.kind == .date }
let minuteTitles = measure(titleIterations) { _ in
    guard let minuteWheel else { return 0 }
    return titled.titles.titles(of: minuteWheel, rows: 0...59).count
}
let dateScreen = measure(titleIterations) { _ in
    guard let dateWheel else { return 0 }
    let row = dateWheel.selectedRow
    return titled.titles.titles(of: dateWheel, rows: (row - 2)...(row + 2)).count
}
let frame = measure(titleIterations) { index in
    titled.spin(.minute, by: index % 2 == 0 ? 1 : -1)
    let titles = titled.titles
    var count = 0
    for wheel in titled.wheels {
        let rows = (wheel.selectedRow - 2)...(wheel.selectedRow + 2)
        count += titles.titles(of: wheel, rows: rows).count
        for row in rows where titled.isEnabled(wheel.value(atRow: row), in: wheel.kind) { count += 1 }
    }
    return count
}

func format(_ value: Double) -> String { String(format: "%.0f", value) }
func ratio(_ value: Double) -> String { String(format: "%.2f", value / roundTrip) }

print("DatePicking benchmark (\(quick ? "quick" : "full"), \(iterations) iterations)")
print("  Calendar round trip : \(format(roundTrip)) ns/op")
print("  date read           : \(format(dateRead)) ns/op  (\(ratio(dateRead))x round trip)")
print("  spin                : \(format(spin)) ns/op  (\(ratio(spin))x round trip)")
print("  wheels              : \(format(wheels)) ns/op  (\(ratio(wheels))x round trip)")
print("  titles, minute wheel (60 rows)  : \(format(minuteTitles)) ns/op  (\(ratio(minuteTitles))x round trip)")
print("  titles, date wheel first screen : \(format(dateScreen)) ns/op  (\(ratio(dateScreen))x round trip)")
let frameMilliseconds = frame / 1_000_000
print(
    "  terminal frame (4 wheels)       : \(format(frame)) ns/op  (\(ratio(frame))x round trip); "
        + String(format: "%.3f", frameMilliseconds) + " ms of the 16.7 ms a frame has at 60 fps: "
        + (frameMilliseconds < 16.7 ? "fits" : "too slow"))
print(
    "{\"mode\":\"\(quick ? "quick" : "full")\",\"iterations\":\(iterations),"
        + "\"calendarRoundTripNs\":\(format(roundTrip)),\"dateReadNs\":\(format(dateRead)),"
        + "\"spinNs\":\(format(spin)),\"wheelsNs\":\(format(wheels)),"
        + "\"dateReadRatio\":\(ratio(dateRead)),\"spinRatio\":\(ratio(spin)),\"wheelsRatio\":\(ratio(wheels)),"
        + "\"minuteWheelTitlesNs\":\(format(minuteTitles)),\"dateWheelScreenTitlesNs\":\(format(dateScreen)),"
        + "\"frameNs\":\(format(frame)),\"minuteWheelTitlesRatio\":\(ratio(minuteTitles)),"
        + "\"dateWheelScreenTitlesRatio\":\(ratio(dateScreen)),\"frameRatio\":\(ratio(frame))}")
