// libFuzzer target: command lines of timerctl and timerd, and timerd's configuration file
// (scripts/fuzz builds and runs it).
//
// The input split at NUL bytes is an argument vector (at most 64 words), read by
// ControlOptions.parse (timerctl's table through the one CommandLineScanner, with every value
// check) and DaemonOptions.parse (timerd's); the whole input as text is also read as a timerd.conf
// (DaemonConfig.parse). Each must answer with a value or a usage/config error, never a trap.
import TimerControl
import TimerDaemon

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommandLines(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let words = bytes.split(separator: 0, omittingEmptySubsequences: false).prefix(64).map {
        String(decoding: $0, as: UTF8.self)
    }
    _ = try? ControlOptions.parse(words)
    _ = try? DaemonOptions.parse(words)
    _ = try? DaemonConfig.parse(String(decoding: bytes, as: UTF8.self), path: "timerd.conf")
    return 0
}
