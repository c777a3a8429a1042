/// The notification lines of one turn's fan-out, each written once (with its LF) and shared by
/// every subscriber that receives it: a subscriber's backlog refers to a run of these lines
/// (``EventBacklog/Entry/shared(_:lines:)``) and the daemon writes that run from here to its
/// socket, with no copy per subscriber (docs/performance.md, "Why each figure is what it is").
///
/// Lines are only appended; a backlog entry names lines by index, so later appends (which may move
/// the storage) never change what an entry refers to. The object lives as long as an entry does.
///
/// ```swift
/// let lines = SharedLines()
/// let index = lines.append(seq: 7, line: line)   // 0
/// lines.bytes(of: 0..<1)                          // the line and its LF
/// ```
final class SharedLines {
    /// The lines, each followed by its LF.
    private(set) var bytes: [UInt8] = []
    /// Where line `i` starts in ``bytes``; one more entry than lines (the end of the last one).
    private(set) var offsets: [Int] = [0]
    /// The event number of each line; `nil` for a `timer.gap` line of a replay.
    private(set) var seqs: [UInt64?] = []

    /// The number of lines.
    var count: Int { seqs.count }

    /// Creates an empty set of lines.
    ///
    /// - Parameter capacity: bytes to reserve (the turn's expected size), or 0.
    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends one line and its LF.
    ///
    /// - Parameters:
    ///   - seq: the event's number, or `nil` for a gap line.
    ///   - line: the notification, without its newline.
    /// - Returns: the line's index.
    /// - Complexity: O(n) in the line's length (amortised).
    @discardableResult
    func append(seq: UInt64?, line: [UInt8]) -> Int {
        bytes += line
        bytes.append(UInt8(ascii: "\n"))
        offsets.append(bytes.count)
        seqs.append(seq)
        return seqs.count - 1
    }

    /// Appends copies of lines `run` of `other` (with their LFs and numbers).
    ///
    /// - Parameters:
    ///   - run: a range of line indices of `other`.
    ///   - other: the lines to copy from.
    /// - Returns: the indices of the copies here.
    /// - Complexity: O(n) in the bytes and lines copied.
    func append(_ run: Range<Int>, of other: SharedLines) -> Range<Int> {
        let first = seqs.count
        let shift = bytes.count - other.offsets[run.lowerBound]
        bytes += other.bytes(of: run)
        for index in run {
            offsets.append(other.offsets[index + 1] + shift)
            seqs.append(other.seqs[index])
        }
        return first..<seqs.count
    }

    /// The bytes of lines `lines` (with their LFs).
    ///
    /// - Parameter lines: a range of line indices, within ``count``.
    /// - Returns: a view of ``bytes``.
    func bytes(of lines: Range<Int>) -> ArraySlice<UInt8> {
        bytes[offsets[lines.lowerBound]..<offsets[lines.upperBound]]
    }

    /// The byte count of lines `lines` (with their LFs).
    ///
    /// - Parameter lines: a range of line indices, within ``count``.
    func byteCount(of lines: Range<Int>) -> Int {
        offsets[lines.upperBound] - offsets[lines.lowerBound]
    }

    /// Which line holds byte `written` bytes after the start of line `first`: the index of the
    /// first line not completely within those bytes, and how many of its bytes they cover (0 when
    /// they end exactly at a line's end).
    ///
    /// - Parameters:
    ///   - written: bytes written from the start of line `first`; less than the bytes of `first..<end`.
    ///   - first: the first line written.
    ///   - end: the end of the run written from.
    /// - Complexity: O(log n) in the run's lines.
    func position(after written: Int, from first: Int, end: Int) -> (line: Int, into: Int) {
        let target = offsets[first] + written
        // The last line start at or before target.
        var low = first
        var high = end
        while high - low > 1 {
            let middle = (low + high) / 2
            if offsets[middle] <= target { low = middle } else { high = middle }
        }
        return (low, target - offsets[low])
    }
}

extension SharedLines: Equatable {
    /// Identity: two runs are of the same lines only when they are of the same object.
    static func == (lhs: SharedLines, rhs: SharedLines) -> Bool { lhs === rhs }
}
