// libFuzzer target: the time grammars behind `timerctl start --at` and `timer.start`'s "at"
// (scripts/fuzz builds and runs it).
//
// The input is the time text; its length picks one of a few zones and minute intervals. It goes
// through ISO8601.date(from:), the one local-time grammar (LocalTimeText), timerctl's --at check
// (AbsoluteTime.parse) and timerd's resolver (LocalTimes.resolver, DatePicking's rules). A resolved
// local time must be a finite instant.
import Foundation
import TimerModel
import TimerProtocol

@testable import TimerControl
@testable import TimerDaemon

/// Zones with and without daylight saving, and one far from UTC.
private let zones = ["UTC", "Europe/Paris", "America/Los_Angeles", "Pacific/Kiritimati", "Australia/Lord_Howe"]
/// Valid and invalid minute intervals.
private let intervals = [1, 5, 15, 30, 7, 0, -1, 60]
/// "Now" for the resolver: 2026-11-29T15:17:33Z (the suites' fixed instant).
private let now = Date(timeIntervalSince1970: 1_795_965_453)

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = ISO8601.date(from: text)
    _ = LocalTimeText(parsing: text)
    let interval = intervals[size % intervals.count]
    _ = try? AbsoluteTime.parse(text, minuteInterval: size % 3 == 0 ? nil : interval)
    if let resolved = try? LocalTimes.resolver(text, zones[size % zones.count], interval, now) {
        precondition(resolved.date.timeIntervalSince1970.isFinite, "a local time resolved to a non-finite instant")
    }
    return 0
}
