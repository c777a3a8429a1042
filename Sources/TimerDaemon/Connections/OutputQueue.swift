/// A client's reply bytes waiting to be written, with no I/O: lines go in, the writer asks for the
/// next bytes and says how many the socket took.
///
/// A client that does not read its replies must not make the daemon hold unbounded memory: past
/// ``maximumQueuedBytes`` (16 MiB, docs/protocol.md) ``isOverLimit`` is true and the daemon closes
/// the connection.
///
/// ```swift
/// var queue = OutputQueue()
/// queue.enqueue(line: Array("ok".utf8))   // "ok\n" queued
/// queue.nextBytes(upTo: 2)                // "ok"
/// queue.consume(2)                        // "\n" left
/// ```
struct OutputQueue {
    /// The most unsent bytes a client may have before it is closed (16 MiB).
    static let maximumQueuedBytes = 16 << 20
    /// Written bytes at the front are dropped in one move once there are this many and they are
    /// at least half the buffer, so a steady partial writer costs amortised O(1) per byte.
    private static let compactionThreshold = 1 << 16

    private var bytes: [UInt8] = []
    /// How many bytes at the front of `bytes` are already written.
    private var head = 0
    /// Whether the connection is to be closed once everything queued is written.
    private(set) var isClosingAfterFlush = false

    /// The unsent bytes, in bytes.
    var count: Int { bytes.count - head }
    /// Whether nothing is left to write.
    var isEmpty: Bool { bytes.count == head }
    /// Whether more than ``maximumQueuedBytes`` are unsent: the reader is not keeping up.
    var isOverLimit: Bool { count > Self.maximumQueuedBytes }
    /// Whether everything is written and the connection is to be closed now.
    var isFinished: Bool { isEmpty && isClosingAfterFlush }

    /// Queues `line` and its LF.
    ///
    /// - Parameter line: one reply, without its newline.
    /// - Complexity: O(n) in the line's length (amortised).
    mutating func enqueue(line: [UInt8]) {
        bytes += line
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Queues `part` as it is: a piece of a streamed reply (``TimerService/TimerListing``), whose
    /// last piece ends with the newline.
    ///
    /// - Parameter part: the bytes.
    /// - Complexity: O(n) in the part's length (amortised).
    mutating func enqueue(bytes part: [UInt8]) {
        bytes += part
    }

    /// The next unsent bytes, at most `maximum`; they stay queued until ``consume(_:)``.
    ///
    /// - Parameter maximum: the most bytes wanted (a write's size).
    /// - Returns: a view of the queue's front.
    func nextBytes(upTo maximum: Int = .max) -> ArraySlice<UInt8> {
        bytes[head..<(head + min(maximum, count))]
    }

    /// Marks the first `written` unsent bytes as written (what a possibly partial write took).
    ///
    /// - Parameter written: the count the write returned; at most ``count``.
    mutating func consume(_ written: Int) {
        precondition(written >= 0 && written <= count, "consumed \(written) of \(count) queued bytes")
        head += written
        if head == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= Self.compactionThreshold, head * 2 >= bytes.count {
            bytes.removeFirst(head)
            head = 0
        }
    }

    /// Asks for the connection to be closed once everything queued is written.
    mutating func closeAfterFlush() {
        isClosingAfterFlush = true
    }
}
