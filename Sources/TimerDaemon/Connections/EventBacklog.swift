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
    }

    private(set) var entries: [Entry] = []
    private var head = 0
    /// The bytes of the queued lines.
    private(set) var bytes = 0
    /// How many times a backlog was dropped for being over ``maximumBytes``.
    private(set) var dropCount = 0

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
            bytes += line.count + 1
            return true
        }
        // Every number queued, and this one, becomes one gap at the front.
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
            }
        }
        entries.removeAll(keepingCapacity: true)
        head = 0
        bytes = 0
        dropCount += 1
        if from <= to { entries.append(.lost(from: from, to: to)) }
        return false
    }

    /// Moves queued notifications to `output` while it holds fewer than ``outputLowWater`` bytes.
    ///
    /// - Parameter output: the connection's output queue.
    /// - Returns: whether anything moved.
    @discardableResult
    mutating func drain(into output: inout OutputQueue) -> Bool {
        var moved = false
        while head < entries.count, output.count < Self.outputLowWater {
            switch entries[head] {
            case .line(_, let line):
                output.enqueue(line: line)
                bytes -= line.count + 1
            case .lost(let from, let to):
                output.enqueue(line: TimerService.gapLine(fromSeq: from, toSeq: to, reason: .slow))
            }
            head += 1
            moved = true
        }
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1_024, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return moved
    }
}
