import Testing
import TimerService

@testable import TimerDaemon

/// The bounded queue of a subscriber's notifications, with no socket: lines go in, the output
/// queue takes them while it is short, and a reader that does not keep up gets a `timer.gap`.
@Suite("EventBacklog: a slow subscriber's bound")
struct EventBacklogTests {
    /// A notification line of `size` bytes (without its newline).
    private static func line(_ size: Int) -> [UInt8] { [UInt8](repeating: UInt8(ascii: "x"), count: size) }

    /// Everything queued in `output`, as text, consumed.
    private static func written(_ output: inout OutputQueue) -> String {
        let text = String(decoding: output.nextBytes(), as: UTF8.self)
        output.consume(output.count)
        return text
    }

    @Test("Lines move to the output queue only while it holds less than 64 KiB")
    func feedsAsTheReaderReads() {
        var backlog = EventBacklog()
        var output = OutputQueue()
        // 40 lines of 4,095 bytes + LF = 4 KiB each: the 16th is moved while 60 KiB are queued, and
        // then the queue holds 64 KiB, no longer less than the low-water mark: 16 move, 24 wait.
        var accepted = 0
        for seq in 1...40 where backlog.offer(seq: UInt64(seq), line: Self.line(4_095)) { accepted += 1 }
        #expect(accepted == 40)
        var moved = backlog.drain(into: &output)
        #expect(moved && output.count == 16 * 4_096 && backlog.bytes == 24 * 4_096)
        moved = backlog.drain(into: &output)
        #expect(!moved)  // nothing moves until the reader reads
        output.consume(output.count)
        moved = backlog.drain(into: &output)
        #expect(moved && output.count == 16 * 4_096)
        output.consume(output.count)
        moved = backlog.drain(into: &output)
        #expect(moved && output.count == 8 * 4_096 && backlog.isEmpty)
    }

    @Test("Past 1 MiB the backlog is dropped for one slow gap; later drops widen it; later events follow it")
    func dropsIntoAGap() {
        var backlog = EventBacklog()
        var output = OutputQueue()
        // 1 MiB / 64 KiB = 16 lines of 65,535 bytes + LF fill the backlog exactly; the 17th overflows.
        var accepted = 0
        for seq in 1...16 where backlog.offer(seq: UInt64(100 + seq), line: Self.line(65_535)) { accepted += 1 }
        #expect(accepted == 16 && backlog.bytes == EventBacklog.maximumBytes)
        var kept = backlog.offer(seq: 117, line: Self.line(10))
        #expect(!kept)
        #expect(backlog.bytes == 0 && backlog.dropCount == 1 && backlog.entries == [.lost(from: 101, to: 117)])
        // A second overflow before the gap was sent widens the same gap.
        for seq in 118...133 { backlog.offer(seq: UInt64(seq), line: Self.line(65_535)) }
        kept = backlog.offer(seq: 134, line: Self.line(10))
        #expect(!kept && backlog.entries == [.lost(from: 101, to: 134)])
        kept = backlog.offer(seq: 135, line: Array("next".utf8))
        #expect(kept)
        backlog.drain(into: &output)
        // The gap line (TimerService.gapLine; docs/protocol.md, Events), then the next event.
        #expect(
            Self.written(&output)
                == #"{"jsonrpc":"2.0","method":"timer.gap","params":{"fromSeq":101,"reason":"slow","toSeq":134}}"#
                + "\nnext\n")
    }

    @Test("A replay's ring gap queued without a number is dropped into the slow gap's range")
    func replayGapDropped() {
        var backlog = EventBacklog()
        backlog.offer(seq: nil, line: Self.line(100))
        for seq in 5...20 { backlog.offer(seq: UInt64(seq), line: Self.line(65_535)) }
        // 100 + 1 + 16 × 65,536 > 1 MiB: the 16th line (seq 20) overflowed.
        #expect(backlog.entries == [.lost(from: 5, to: 20)])
    }
}
