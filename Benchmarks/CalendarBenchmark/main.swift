// Measures CalendarExpression.nextElapse for typical expressions (docs/performance.md), with one
// Foundation `Calendar.nextDate(after:matching:)` search as a reference.
//
// Usage: swift run -c release CalendarBenchmark [--quick]
// Prints next-elapse computations per second per expression and a final one-line JSON object of them.
import CalendarEvents
import Foundation

let quick = CommandLine.arguments.contains("--quick")
let iterations = quick ? 20_000 : 200_000

/// Calls `body` `count` times after a warm-up and returns calls per second.
func perSecond(_ count: Int, _ body: (Int) -> Int) -> Double {
    var sink = 0
    for index in 0..<Swift.min(count / 10 + 1, 1_000) { sink &+= body(index) }
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<count { sink &+= body(index) }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    if sink == 42 { print("") }  // keeps the work observable
    return Double(count) / (Double(elapsed) / 1e9)
}

// 2026-12-01T06:00:00Z; each call starts 7 minutes 13 seconds after the previous one, so that the bases walk
// across days, months and (over a full run) DST changes.
let origin = 1_796_104_800.0
let step = 433.0

func zone(_ identifier: String) -> TimeZone { TimeZone(identifier: identifier) ?? .gmt }

let cases: [(key: String, text: String, zone: String)] = [
    ("weekdays_0700_paris", "Mon..Fri 07:00", "Europe/Paris"),
    ("every_15min_utc", "*:0/15", "UTC"),
    ("every_2s_utc", "*:*:0/2", "UTC"),
    ("daily_0230_paris", "*-*-* 02:30", "Europe/Paris"),
    ("last_day_0900_new_york", "*-*~01 09:00", "America/New_York"),
    ("weekend_8_18_2_sydney", "Sat,Sun 8..18/2:00 Australia/Sydney", "UTC"),
    ("quarterly_kolkata", "quarterly", "Asia/Kolkata"),
    ("hourly_lord_howe", "hourly", "Australia/Lord_Howe"),
]

print("CalendarEvents benchmark (\(quick ? "quick" : "full"), \(iterations) next-elapse computations per case)")
var figures: [(String, Double)] = []
for item in cases {
    guard let expression = try? CalendarExpression.parse(item.text) else {
        print("cannot parse \(item.text)")
        exit(1)
    }
    let defaultZone = zone(item.zone)
    let rate = perSecond(iterations) { index in
        let base = Date(timeIntervalSince1970: origin + Double(index) * step)
        return Int(expression.nextElapse(after: base, defaultZone: defaultZone)?.timeIntervalSince1970 ?? 0)
    }
    figures.append((item.key, rate))
    print("  \(item.text.padding(toLength: 38, withPad: " ", startingAt: 0)) TZ=\(item.zone): \(Int(rate)) /s")
}

// Reference: Foundation's own search for "07:00 every day" in Paris.
var calendar = Calendar(identifier: .gregorian)
calendar.timeZone = zone("Europe/Paris")
let seven = DateComponents(hour: 7, minute: 0, second: 0)
let foundation = perSecond(iterations / 4) { index in
    let base = Date(timeIntervalSince1970: origin + Double(index) * step)
    let next = calendar.nextDate(after: base, matching: seven, matchingPolicy: .nextTime)
    return Int(next?.timeIntervalSince1970 ?? 0)
}
figures.append(("foundation_nextdate_0700_paris", foundation))
print("  reference: Calendar.nextDate(after:matching:) 07:00 in Europe/Paris: \(Int(foundation)) /s")

print(
    "{\"mode\":\"\(quick ? "quick" : "full")\","
        + figures.map { "\"\($0.0)\":\(Int($0.1))" }.joined(separator: ",") + "}")
