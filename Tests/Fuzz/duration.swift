// libFuzzer target: duration text as `timerctl start <duration>` and `timer.start`'s "duration"
// carry it (scripts/fuzz builds and runs it).
//
// Besides "no trap", a duration the grammar accepts must be finite and within the documented
// range (DurationParser.minimumSeconds, 1 µs, to maximumSeconds, 366 days), and
// formatting it must not trap either.
import TimerModel

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDuration(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let seconds = try? DurationParser.seconds(from: text) else { return 0 }
    precondition(seconds.isFinite && seconds > 0, "accepted a duration that is not a positive number")
    precondition(
        seconds >= DurationParser.minimumSeconds && seconds <= DurationParser.maximumSeconds,
        "accepted a duration outside \(DurationParser.minimumSeconds)...\(DurationParser.maximumSeconds) s")
    _ = DurationFormatter.clock(seconds: seconds)
    _ = DurationFormatter.compact(seconds: seconds)
    return 0
}
