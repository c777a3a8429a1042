// libFuzzer target: a client's byte stream as timerd's LineFramer cuts it into request lines
// (scripts/fuzz builds and runs it).
//
// The first byte of the input picks the read sizes (1 to 256 bytes, cycling through a pattern the
// byte seeds), the rest is the stream. Besides "no trap", the target checks the framer's promises
// (docs/protocol.md): no line holds an LF, none is longer than 64 KiB, and the lines plus their
// newlines never hold more bytes than were sent. A broken promise stops the run like a crash.
@testable import TimerDaemon

/// Runs one input; libFuzzer calls it once per input.
///
/// - Parameters:
///   - data: the input's bytes.
///   - size: how many.
/// - Returns: 0 (libFuzzer's "keep going").
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLineFramer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let seed = Int(data[0])
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    var framer = LineFramer()
    var offset = 0
    var step = 0
    var lineBytes = 0
    var now: Int64 = 0
    func check(_ frames: [LineFramer.Frame]) {
        for case .line(let line) in frames {
            precondition(!line.contains(UInt8(ascii: "\n")), "a line holds an LF")
            precondition(line.count <= LineFramer.maximumLineBytes, "a line is over 64 KiB")
            lineBytes += line.count + 1
        }
    }
    while offset < stream.count {
        let chunk = 1 + (seed &* 31 &+ step &* 17) % 256
        let end = min(stream.count, offset + chunk)
        now += 1_000
        check(framer.receive(stream[offset..<end], now: now))
        if step % 7 == 6, seed & 1 == 1 { framer.dropPartialLine() }
        offset = end
        step += 1
    }
    if let last = framer.endOfInput() {
        precondition(!last.contains(UInt8(ascii: "\n")), "the last line holds an LF")
        lineBytes += last.count
    }
    precondition(lineBytes <= stream.count + 1, "the lines hold more bytes than were sent")
    return 0
}
