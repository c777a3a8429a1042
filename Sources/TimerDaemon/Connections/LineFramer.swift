import Glibc

/// Splits a client's byte stream into request lines (docs/protocol.md: one JSON object per line,
/// at most 64 KiB), with no I/O: bytes go in, lines come out.
///
/// A line ends at LF; a CR just before the LF is dropped (CR-LF, as `nc -C` and `socat crlf`
/// send). A line whose first 64 KiB (``maximumLineBytes``) arrive without their newline yields
/// ``Frame/tooLong`` once, and the rest of it is discarded up to its newline; so does a complete
/// line longer than that (it came in more than one read, or whole in one), and a CR at the end of
/// a read is not counted until the next byte shows whether the LF follows. No ``Frame/line(_:)``
/// is longer than ``maximumLineBytes``; the next line is served as usual. While a line is incomplete, ``partialSince`` says since when, for the
/// request time-out.
///
/// ```swift
/// var framer = LineFramer()
/// framer.receive(Array(#"{"a""#.utf8)[...], now: 0)       // []
/// framer.receive(Array(":1}\r\n{".utf8)[...], now: 5)     // [.line(Array(#"{"a":1}"#.utf8))]
/// ```
struct LineFramer {
    /// What ``receive(_:now:)`` found, in the order of the stream.
    enum Frame: Equatable {
        /// A complete line, without its LF and without a CR just before it.
        case line([UInt8])
        /// A line grew past ``maximumLineBytes``: without a newline yet (the rest of it is being
        /// discarded), or complete.
        case tooLong

        /// Whether this is a line of nothing but spaces and tabs, which the daemon ignores (and
        /// which does not count as activity for the idle timeout).
        var isBlankLine: Bool {
            guard case .line(let line) = self else { return false }
            return line.allSatisfy { $0 == 32 || $0 == 9 }
        }
    }

    /// The longest incomplete line kept, in bytes (64 KiB, `TimerService.maximumLineBytes`).
    static let maximumLineBytes = 65_536

    /// Bytes received and not yet returned as lines: the start of an incomplete line, so never
    /// a newline (``receive(_:now:)`` searches only the bytes it is given).
    private(set) var buffered: [UInt8] = []
    /// Whether the rest of an over-long line is being skipped (up to its newline).
    private(set) var isDiscarding = false
    /// When the incomplete line in `buffered` began, on the caller's clock (nanoseconds); `nil`
    /// when nothing incomplete is buffered.
    private(set) var partialSince: Int64?

    /// Takes the next bytes of the stream.
    ///
    /// A line that arrives whole in `bytes` is copied once, from `bytes` into its frame; only an
    /// incomplete line's bytes are kept in ``buffered`` (rather than copying every request
    /// into the buffer, scanning it there byte by byte and copying it out again).
    ///
    /// - Parameters:
    ///   - bytes: the bytes just read (any split: a line may arrive in many pieces, many lines in one).
    ///   - now: the time, read only when an incomplete line starts waiting.
    /// - Returns: the complete lines and over-long-line refusals, in stream order.
    /// - Complexity: O(n) in the bytes received: each byte is searched once.
    mutating func receive(_ bytes: ArraySlice<UInt8>, now: @autoclosure () -> Int64) -> [Frame] {
        var frames: [Frame] = []
        var rest = bytes
        // A line ended in these bytes: a line still incomplete after them began with them.
        var endedALine = false
        while let index = Self.firstNewline(in: rest) {
            endedALine = true
            if isDiscarding {
                isDiscarding = false
                buffered.removeAll(keepingCapacity: true)
            } else {
                var line: [UInt8] = []
                if buffered.isEmpty {
                    line = Array(rest[..<index])
                } else {
                    swap(&line, &buffered)
                    line.append(contentsOf: rest[..<index])
                }
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                // Up to 65,536 bytes may wait for the rest of their line: a line completed by a
                // later read can be longer than the limit, and is refused here like one cut off.
                frames.append(line.count > Self.maximumLineBytes ? .tooLong : .line(line))
            }
            rest = rest[(index + 1)...]
        }
        if !rest.isEmpty { buffered += rest }
        // A final CR may be the first half of the line's CR-LF, which is not part of the line
        // (docs/protocol.md: at most 65,536 bytes without its newline): it is not counted until
        // the next byte shows whether it is.
        let pending = buffered.last == UInt8(ascii: "\r") ? buffered.count - 1 : buffered.count
        if pending > Self.maximumLineBytes {
            if !isDiscarding { frames.append(.tooLong) }
            isDiscarding = true
            buffered.removeAll(keepingCapacity: false)
        }
        if buffered.isEmpty {
            partialSince = nil
        } else if partialSince == nil || endedALine {
            partialSince = now()
        }
        return frames
    }

    /// The index of the first LF in `bytes`, found with memchr(3) (a byte-by-byte search over the
    /// slice costs many times more per byte).
    static func firstNewline(in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, let hit = memchr(base, 0x0A, buffer.count) else { return nil }
            return bytes.startIndex + (UnsafeRawPointer(hit) - UnsafeRawPointer(base))
        }
    }

    /// The peer closed its sending side: what is buffered is the last line, even without its newline.
    ///
    /// - Returns: that line (a final CR dropped), or `nil` when nothing is buffered or the rest of
    ///   an over-long line was being discarded.
    mutating func endOfInput() -> [UInt8]? {
        var last: [UInt8]?
        if !buffered.isEmpty, !isDiscarding {
            var line = buffered
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            last = line
        }
        dropPartialLine()
        return last
    }

    /// Starts the incomplete line's wait again at `now`: the daemon had left the rest of the
    /// client's bytes unread (its per-turn read budget), so the wait so far was not the client's.
    ///
    /// - Parameter now: the caller's clock, nanoseconds.
    mutating func restartPartialClock(now: Int64) {
        if partialSince != nil { partialSince = now }
    }

    /// Forgets the incomplete line (after its time-out was answered).
    mutating func dropPartialLine() {
        buffered.removeAll()
        partialSince = nil
    }
}
