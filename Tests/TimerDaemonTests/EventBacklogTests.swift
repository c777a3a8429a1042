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

    // The lines of a turn are written once into SharedLines and a
    // backlog refers to runs of them. The expected bytes are the lines as given plus their LFs
    // (docs/protocol.md: one notification per line); the cut rule is EventBacklog's documentation.
    @Test("Shared lines: consecutive lines make one run; a cut write spills only the rest of its line")
    func sharedRuns() {
        let lines = SharedLines()
        for (seq, text) in [(UInt64(1), "aaaa"), (2, "bb"), (3, "cccccc"), (4, "d")] {
            lines.append(seq: seq, line: Array(text.utf8))
        }
        var backlog = EventBacklog()
        var output = OutputQueue()
        // Lines 0, 1, 2 in a row make one entry; line 3 after a skip would start another, but it
        // follows line 2 here, so still one: "aaaa\nbb\ncccccc\nd\n" is 5 + 3 + 7 + 2 = 17 bytes.
        var kept = 0
        for index in 0..<4 where backlog.offer(lines, line: index).kept { kept += 1 }
        #expect(kept == 4)
        #expect(backlog.entries == [.shared(lines, lines: 0..<4)] && backlog.bytes == 17)
        #expect(String(decoding: backlog.sharedFront ?? [], as: UTF8.self) == "aaaa\nbb\ncccccc\nd\n")
        // drain stops at a shared run: it is written from the shared buffer, not copied.
        #expect(!backlog.drain(into: &output) && output.isEmpty)
        // A write of 10 bytes took "aaaa\nbb\ncc": lines 0 and 1 are done, line 2 is cut after 2
        // bytes; its rest "cccc\n" goes to the output queue and the run keeps line 3 only.
        backlog.consumeShared(10, spillingInto: &output)
        #expect(Self.written(&output) == "cccc\n")
        #expect(backlog.entries == [.shared(lines, lines: 3..<4)] && backlog.bytes == 2)
        // A write that ends exactly at a line's end spills nothing.
        backlog.consumeShared(2, spillingInto: &output)
        #expect(output.isEmpty && backlog.isEmpty && backlog.bytes == 0 && backlog.sharedFront == nil)
        // A skipped line breaks the run: lines 0 and 2 are two entries.
        backlog.offer(lines, line: 0)
        backlog.offer(lines, line: 2)
        #expect(backlog.entries == [.shared(lines, lines: 0..<1), .shared(lines, lines: 2..<3)])
    }

    @Test("A drop over shared runs names their numbers in the slow gap")
    func sharedRunsDropped() {
        let lines = SharedLines()
        // 16 lines of 65,535 bytes + LF fill 1 MiB exactly (as dropsIntoAGap); the 17th overflows.
        for seq in 201...217 { lines.append(seq: UInt64(seq), line: Self.line(65_535)) }
        var backlog = EventBacklog()
        var kept = 0
        for index in 0..<16 where backlog.offer(lines, line: index).kept { kept += 1 }
        #expect(kept == 16 && backlog.bytes == EventBacklog.maximumBytes)
        let overflowed = !backlog.offer(lines, line: 16).kept
        #expect(overflowed)
        #expect(backlog.entries == [.lost(from: 201, to: 217)] && backlog.bytes == 0 && backlog.dropCount == 1)
    }

    // A subscriber that does not read must keep only its own lines alive (docs/fairness.md: at
    // most 1 MiB per connection), not the whole turn's shared lines: after the flush the daemon
    // detaches what is left. Expected bytes: the lines offered, with their LFs.
    @Test("Detaching copies a backlog's runs of a turn's lines and lets the turn's lines go")
    func detachKeepsOnlyOwnLines() {
        var backlog = EventBacklog()
        weak var weakTurn: SharedLines?
        do {
            let lines = SharedLines()
            for seq in 1...6 { lines.append(seq: UInt64(seq), line: Array("line\(seq)".utf8)) }
            weakTurn = lines
            // This subscriber gets lines 1, 2 and 4 (two runs); the others went to other subscribers.
            let first = backlog.offer(lines, line: 1)
            let second = backlog.offer(lines, line: 2)
            let third = backlog.offer(lines, line: 4)
            #expect(first.newRun && !second.newRun && third.newRun)
            backlog.detach(from: lines)
        }
        // The turn's lines are gone: only the backlog's own copy of its three lines is alive.
        #expect(weakTurn == nil)
        // The numbers stay with the copied lines: an overflow now names 2 … 7 (lines 2, 3, 5 and
        // the overflowing 7).
        var overflowing = backlog
        let big = SharedLines()
        big.append(seq: 7, line: Self.line(EventBacklog.maximumBytes))
        let dropped = !overflowing.offer(big, line: 0).kept
        #expect(dropped && overflowing.entries == [.lost(from: 2, to: 7)])
        // The copy is written as the shared lines were: "line2\nline3\n" then "line5\n".
        var output = OutputQueue()
        var sent = ""
        while let run = backlog.sharedFront {
            sent += String(decoding: run, as: UTF8.self)
            backlog.consumeShared(run.count, spillingInto: &output)
        }
        #expect(sent == "line2\nline3\nline5\n" && output.isEmpty && backlog.bytes == 0)
    }

    // Many subscribers of one user get the same lines: a backlog whose runs are more than half of
    // the turn's bytes keeps referring to the turn's lines (shared, at most twice its own bytes
    // alive) instead of copying them, so 250 subscribers that do not read hold one copy, not 250.
    @Test("Detaching leaves a backlog that holds most of the turn's lines sharing them, with no copy")
    func detachSharesMostOfTurn() {
        var backlog = EventBacklog()
        let lines = SharedLines()
        for seq in 1...6 { lines.append(seq: UInt64(seq), line: Array("line\(seq)".utf8)) }
        // Lines 1 … 4 of 6 (24 of 36 bytes): more than half.
        for index in 0..<4 { backlog.offer(lines, line: index) }
        backlog.detach(from: lines)
        guard case .shared(let kept, let run)? = backlog.entries.last else {
            Issue.record("no shared run: \(backlog.entries)")
            return
        }
        #expect(kept === lines && run == 0..<4 && backlog.bytes == 24)
    }

    // The same rule when the flush wrote some of the turn's runs and not the rest (a subscriber of
    // some timers whose socket filled up mid-turn): the written run's entry sits before the
    // backlog's head until the backlog empties (or 1,024 entries are passed), and it must not keep
    // the turn's lines alive. Found by the break5 round: it did, so a subscriber that stalled (or
    // read slowly, one such entry per turn) kept whole turns of every subscriber's lines.
    @Test("A run written before the rest of the turn's runs was left lets the turn's lines go")
    func writtenRunLetsTurnGo() {
        var backlog = EventBacklog()
        var output = OutputQueue()
        weak var weakTurn: SharedLines?
        do {
            let lines = SharedLines()
            for seq in 1...6 { lines.append(seq: UInt64(seq), line: Array("line\(seq)".utf8)) }
            weakTurn = lines
            // Lines 1 and 4: two runs ("line2\n", "line5\n", 6 bytes each).
            backlog.offer(lines, line: 1)
            backlog.offer(lines, line: 4)
            // The socket took the first run whole, then would block.
            #expect(String(decoding: backlog.sharedFront ?? [], as: UTF8.self) == "line2\n")
            backlog.consumeShared(6, spillingInto: &output)
            backlog.detach(from: lines)
        }
        #expect(weakTurn == nil)
        // What is left is the second run, from the backlog's own copy.
        #expect(String(decoding: backlog.sharedFront ?? [], as: UTF8.self) == "line5\n")
        #expect(backlog.bytes == 6 && output.isEmpty)
    }
}
