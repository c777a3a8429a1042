import TimerService

/// A subscriber's notifications not yet handed to its ``OutputQueue``, with no I/O: the bound that
/// keeps one slow subscriber from holding the daemon's memory or time (docs/protocol.md, "Events").
///
/// Notifications wait here and move to the output queue only while it holds less than
/// ``outputLowWater`` bytes, so a client that reads is fed as fast as it reads. One that does not
/// read lets them pile up here; past ``maximumBytes`` (1 MiB, about 1,500 notifications of a plain
/// timer) the whole backlog is dropped and replaced by one `timer.gap` (reason `slow`) naming the
/// numbers lost; later events queue behind it, and further drops before the gap is sent widen
/// the same gap. The loop never waits for a subscriber and never writes more than it reads.
///
/// ```swift
/// var backlog = EventBacklog()
/// backlog.offer(seq: 7, line: line)            // queued
/// backlog.drain(into: &output)                  // moved to the output queue
/// ```
struct EventBacklog {
    /// The most bytes a connection's unsent notifications may take (1 MiB) before they are
    /// dropped for a `timer.gap`.
    static let maximumBytes = 1 << 20
    /// Notifications move to the output queue while it holds fewer bytes than this (64 KiB).
    static let outputLowWater = 64 << 10

    /// One queued line.
    enum Entry: Equatable {
        /// A `timer.event` notification numbered `seq`, or a `timer.gap` from a replay (`seq` nil).
        case line(seq: UInt64?, [UInt8])
        /// Events `from` … `to` were dropped because the subscriber was slow.
        case lost(from: UInt64, to: UInt64)
        /// A run of whole lines of one turn's ``SharedLines``, shared with the other subscribers
        /// and written from there (``sharedFront``, ``consumeShared(_:spillingInto:)``).
        case shared(SharedLines, lines: Range<Int>)
    }

    private(set) var entries: [Entry] = []
    private var head = 0
    /// The bytes of the queued lines.
    private(set) var bytes = 0
    /// How many times a backlog was dropped for being over ``maximumBytes``.
    private(set) var dropCount = 0
    /// The shared lines and end of the last run offered, when that run is still the last entry
    /// (checked before the entry itself is read: most offers extend it).
    private var tailLines: SharedLines?
    private var tailStart = 0
    private var tailEnd = 0

    /// Whether nothing is queued.
    var isEmpty: Bool { head == entries.count }

    /// Queues one notification; drops the backlog into a gap when it would pass ``maximumBytes``.
    ///
    /// - Parameters:
    ///   - seq: the event's number, or `nil` for a `timer.gap` line of a replay.
    ///   - line: the notification, without its newline.
    /// - Returns: `false` when the backlog was dropped (the daemon logs it).
    /// - Complexity: O(1) amortised; O(n) for the n entries dropped.
    @discardableResult
    mutating func offer(seq: UInt64?, line: [UInt8]) -> Bool {
        if bytes + line.count + 1 <= Self.maximumBytes {
            entries.append(.line(seq: seq, line))
            tailLines = nil
            bytes += line.count + 1
            return true
        }
        drop(adding: seq)
        return false
    }

    /// Queues line `index` of `lines`, extending the last entry when it is the run just before it
    /// (a subscriber of every event gets one entry per turn); drops the backlog into a gap when it
    /// would pass ``maximumBytes``, as ``offer(seq:line:)``.
    ///
    /// - Parameters:
    ///   - lines: the turn's shared lines.
    ///   - index: the line's index in `lines`.
    /// - Returns: `kept` `false` when the backlog was dropped (the daemon logs it); `newRun` when
    ///   the line started a run of `lines` here (the connection then holds a reference to them).
    /// - Complexity: O(1) amortised; O(n) for the n lines dropped.
    @discardableResult
    mutating func offer(_ lines: SharedLines, line index: Int) -> (kept: Bool, newRun: Bool) {
        let size = lines.byteCount(of: index..<(index + 1))
        guard bytes + size <= Self.maximumBytes else {
            drop(adding: lines.seqs[index])
            return (false, false)
        }
        bytes += size
        var newRun = false
        if tailLines === lines, tailEnd == index {
            entries[entries.count - 1] = .shared(lines, lines: tailStart..<(index + 1))
        } else {
            entries.append(.shared(lines, lines: index..<(index + 1)))
            tailLines = lines
            tailStart = index
            newRun = true
        }
        tailEnd = index + 1
        return (true, newRun)
    }

    /// Replaces the runs of `lines` still queued (the socket did not take them this turn) by one
    /// copy of their lines of this backlog's own when they are at most half of `lines`, so that a
    /// subscriber that does not read keeps alive at most twice its own lines (at most
    /// ``maximumBytes``), not every line of the turns it missed; when they are more than half, the
    /// runs keep referring to `lines`, shared with the turn's other subscribers (no copy each).
    ///
    /// - Parameter lines: the turn's shared lines.
    /// - Complexity: O(e + n) in the entries and bytes of this turn's runs (they are the last
    ///   entries: what a connection was offered since the turn's fan-out began).
    mutating func detach(from lines: SharedLines) {
        // The turn's runs are the last entries (a drop removed any before it): the scan goes back
        // from the end and stops at the first other entry, so a long backlog costs nothing here.
        var first = entries.count
        while first > head, case .shared(let shared, _) = entries[first - 1], shared === lines { first -= 1 }
        guard first < entries.count else { return }
        var size = 0
        for index in first..<entries.count {
            if case .shared(_, let run) = entries[index] { size += lines.byteCount(of: run) }
        }
        // Most of the turn's lines are this subscriber's (the usual case when many subscribers of
        // one user get the same events): keeping the turn's lines alive costs at most twice its
        // own, and the lines stay shared with the others instead of copied once per subscriber.
        guard size * 2 <= lines.bytes.count else { return }
        let own = SharedLines(capacity: size)
        for index in first..<entries.count {
            guard case .shared(_, let run) = entries[index] else { continue }
            entries[index] = .shared(own, lines: own.append(run, of: lines))
        }
        if tailLines === lines { tailLines = nil }
    }

    /// Replaces everything queued by one gap at the front naming the numbers dropped, and gives
    /// back the memory: what the daemon does when the subscriber's user holds too much in all
    /// (``Daemon/eventBytesPerUser``).
    ///
    /// - Complexity: O(n) for the n lines dropped.
    mutating func dropForGap() {
        drop(adding: nil)
        // The dropped entries' capacity is not kept: only the gap is left.
        let gap = entries.last
        entries = []
        if let gap { entries.append(gap) }
    }

    /// Replaces everything queued, and the event numbered `seq`, by one gap at the front.
    private mutating func drop(adding seq: UInt64?) {
        var from = seq ?? .max
        var to = seq ?? 0
        for entry in entries[head...] {
            switch entry {
            case .line(let queued?, _):
                from = min(from, queued)
                to = max(to, queued)
            case .line(nil, _): break
            case .lost(let lostFrom, let lostTo):
                from = min(from, lostFrom)
                to = max(to, lostTo)
            case .shared(let lines, let run):
                for queued in lines.seqs[run] {
                    guard let queued else { continue }
                    from = min(from, queued)
                    to = max(to, queued)
                }
            }
        }
        entries.removeAll(keepingCapacity: true)
        tailLines = nil
        head = 0
        bytes = 0
        dropCount += 1
        if from <= to { entries.append(.lost(from: from, to: to)) }
    }

    /// The bytes of the front entry when it is a run of shared lines: what the daemon writes
    /// straight from the shared buffer when the output queue is empty (``drain(into:)`` stops there).
    var sharedFront: ArraySlice<UInt8>? {
        guard head < entries.count, case .shared(let lines, let run) = entries[head] else { return nil }
        return lines.bytes(of: run)
    }

    /// Marks `written` bytes of the front run (``sharedFront``) as written: whole lines leave the
    /// backlog; the rest of a line the write cut goes to `output` (so entries stay whole lines, and
    /// a later drop never cuts one).
    ///
    /// - Parameters:
    ///   - written: what the write took, at most the run's bytes.
    ///   - output: the connection's output queue (empty: the run was written because it was).
    /// - Complexity: O(log n) in the run's lines, plus the bytes of the cut line.
    mutating func consumeShared(_ written: Int, spillingInto output: inout OutputQueue) {
        guard head < entries.count, case .shared(let lines, let run) = entries[head] else { return }
        let total = lines.byteCount(of: run)
        if written >= total {
            bytes -= total
            passWrittenRun()
            compact()
            return
        }
        let (line, into) = lines.position(after: written, from: run.lowerBound, end: run.upperBound)
        var rest = line
        if into > 0 {
            // Line `line` is cut: its unwritten bytes go first in the output queue.
            let cut = lines.bytes(of: line..<(line + 1))
            output.enqueue(bytes: Array(cut[(cut.startIndex + into)...]))
            rest = line + 1
        }
        bytes -= lines.byteCount(of: run.lowerBound..<rest)
        if rest == run.upperBound {
            passWrittenRun()
            compact()
        } else {
            entries[head] = .shared(lines, lines: rest..<run.upperBound)
            if head == entries.count - 1 { tailStart = rest }
        }
    }

    /// Moves queued notifications to `output` while it holds fewer than ``outputLowWater`` bytes,
    /// up to a run of shared lines, which is written from where it is (``sharedFront``).
    ///
    /// - Parameter output: the connection's output queue.
    /// - Returns: whether anything moved.
    @discardableResult
    mutating func drain(into output: inout OutputQueue) -> Bool {
        var moved = false
        loop: while head < entries.count, output.count < Self.outputLowWater {
            switch entries[head] {
            case .line(_, let line):
                output.enqueue(line: line)
                bytes -= line.count + 1
            case .lost(let from, let to):
                output.enqueue(line: TimerService.gapLine(fromSeq: from, toSeq: to, reason: .slow))
            case .shared:
                break loop
            }
            head += 1
            moved = true
        }
        compact()
        return moved
    }

    /// Forgets the entries before ``head`` once they are all of them, or many and half of them.
    /// Steps past the entry at the head, a shared run now written, leaving an empty line in its
    /// place: an entry before the head is never read again, but until ``compact()`` drops it, it
    /// would keep the turn's ``SharedLines`` (every subscriber's lines of that turn) alive for a
    /// subscriber whose later runs wait (``detach(from:)`` copies only those).
    private mutating func passWrittenRun() {
        entries[head] = .line(seq: nil, [])
        head += 1
    }

    private mutating func compact() {
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            tailLines = nil
            head = 0
        } else if head >= 1_024, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }
}
