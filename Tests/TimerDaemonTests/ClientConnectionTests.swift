import Testing
import TimerService

@testable import TimerDaemon

/// Drives ``ClientConnection`` the way the daemon's `Daemon+ConnectionIO.swift` does, with no
/// socket and no clock: bytes are fed as a socket would deliver them, lines are answered by a
/// stand-in for the request handler, and writes are simulated by a socket that takes a given
/// number of bytes per call (`nil`: `EAGAIN`).
@Suite("Client connections: framing, the 64 KiB limit, half-close and back-pressure, in-process")
struct ClientConnectionTests {
    /// The error line timerd sends for a request line over 64 KiB, byte for byte: JSON-RPC -32600
    /// with id null (docs/protocol.md, error table and the shape of its -32600 example, keys in
    /// the writer's sorted order) and the text of `TimerService.tooLongMessage`.
    static let tooLongReply = Array(
        (#"{"error":{"code":-32600,"message":"request line exceeds 65536 bytes; send one JSON object per line, "#
            + #"at most 64 KiB"},"id":null,"jsonrpc":"2.0"}"# + "\n").utf8)

    /// A stand-in for the request handler: `wait` registers a pending wait, a blank line is
    /// ignored (as `Daemon.handle` does), anything else is answered `ok <line>`.
    struct Peer {
        var connection = ClientConnection(uid: 1_000)
        var nextWaiter: WaiterID = 1
        var handled: [String] = []

        /// Feeds bytes as one read, answering every frame as the daemon's `consumeLines` does.
        mutating func read(_ text: String, now: Int64 = 0) {
            read(Array(text.utf8), now: now)
        }

        mutating func read(_ bytes: [UInt8], now: Int64 = 0) {
            for frame in connection.receive(bytes[...], now: now) {
                switch frame {
                case .line(let line): handle(line)
                case .tooLong: connection.refuseTooLongLine()
                }
            }
        }

        mutating func handle(_ line: [UInt8]) {
            if line.allSatisfy({ $0 == 32 || $0 == 9 }) { return }
            let text = String(decoding: line, as: UTF8.self)
            handled.append(text)
            if text == "wait" {
                connection.waiters.insert(nextWaiter)
                nextWaiter += 1
            } else {
                connection.queue(Array("ok \(text)".utf8))
            }
        }

        /// Writes as the daemon's `flush` does; each element is what one write call takes.
        ///
        /// - Returns: the bytes "sent" and what the connection says to do next.
        mutating func write(accepting takes: [Int?]) -> (sent: String, next: ClientConnection.AfterWrites) {
            var sent: [UInt8] = []
            var takes = takes[...]
            while !connection.output.isEmpty, let take = takes.popFirst() {
                guard let take else { break }
                let bytes = connection.output.nextBytes(upTo: take)
                sent += bytes
                connection.output.consume(bytes.count)
            }
            return (String(decoding: sent, as: UTF8.self), connection.finishWrites())
        }
    }

    @Test("A request split across reads, CR-LF, and a partial line's start time")
    func fragments() {
        var framer = LineFramer()
        #expect(framer.receive(Array(#"{"a""#.utf8)[...], now: 100) == [])
        #expect(framer.partialSince == 100)
        #expect(framer.receive(Array(":1}\r\n{".utf8)[...], now: 200) == [.line(Array(#"{"a":1}"#.utf8))])
        // The next line began in this read: its time-out counts from now ("request line not
        // completed within N s" is per line; a client streaming requests that every read cuts
        // mid-line is not waited for since its first cut).
        #expect(framer.partialSince == 200)
        #expect(framer.receive(Array(#""b":2}"#.utf8)[...], now: 300) == [])
        #expect(framer.receive(Array("\n".utf8)[...], now: 400) == [.line(Array(#"{"b":2}"#.utf8))])
        #expect(framer.partialSince == nil)
        // A CR and its LF in different reads; a CR inside a line stays; an empty line is a line.
        #expect(framer.receive(Array("x\r".utf8)[...], now: 500) == [])
        #expect(
            framer.receive(Array("\na\rb\n\nlast\n".utf8)[...], now: 600) == [
                .line(Array("x".utf8)), .line(Array("a\rb".utf8)), .line([]), .line(Array("last".utf8)),
            ])
        #expect(framer.buffered.isEmpty)
    }

    @Test("64 KiB without a newline is still waited for; one byte more is refused once")
    func lineLimitBoundary() {
        // The limit is TimerService.maximumLineBytes (65,536): an incomplete line of exactly that
        // many bytes is kept; more is refused (Daemon.consumeLines compared with `>`).
        var framer = LineFramer()
        #expect(framer.receive(Array(repeating: UInt8(ascii: "a"), count: 65_536)[...], now: 0) == [])
        #expect(framer.buffered.count == 65_536)
        #expect(framer.receive([UInt8(ascii: "a")][...], now: 0) == [.tooLong])
        #expect(framer.isDiscarding)
        #expect(framer.receive([UInt8(ascii: "a")][...], now: 0) == [])
        #expect(framer.receive(Array("tail\nnext\n".utf8)[...], now: 0) == [.line(Array("next".utf8))])
        #expect(!framer.isDiscarding)
    }

    @Test("A line of exactly 64 KiB ended by CR-LF is served whether or not a read splits the CR from its LF")
    func lineLimitWithCRLFSplit() {
        // docs/protocol.md: "A line may be at most 65,536 bytes without its newline", and a CR
        // before the LF is part of the newline (the framer drops it; TimerService checks the line
        // without it). Found by the break5 round: sent byte by byte, a 65,536-byte line's CR
        // arrived alone at the end of a read, the incomplete line counted 65,537 bytes and timerd
        // answered -32600 "request line exceeds 65536 bytes" for a line it serves when the CR and
        // LF come in one read.
        let line = [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
        var together = LineFramer()
        #expect(together.receive((line + Array("\r\n".utf8))[...], now: 0) == [.line(line)])
        var split = LineFramer()
        #expect(split.receive((line + [UInt8(ascii: "\r")])[...], now: 0) == [])
        #expect(!split.isDiscarding)
        #expect(split.receive(Array("\n".utf8)[...], now: 0) == [.line(line)])
        // A CR that is not followed by the LF is a byte of the line: one more byte is over the limit.
        #expect(split.receive((line + [UInt8(ascii: "\r")])[...], now: 0) == [])
        #expect(split.receive(Array("x".utf8)[...], now: 0) == [.tooLong])
        #expect(split.isDiscarding)
    }

    @Test("A line over 64 KiB whose newline comes in the next read is refused by the framer, not handed on")
    func overLongLineEndedInNextRead() {
        // LineFramer's promise (its doc and Tests/Fuzz/line-framer.swift: no line it returns is
        // longer than 65,536 bytes). Found by the break5 round: 65,536 bytes without a newline are
        // kept (the boundary above), and when the next read brought one more byte and the LF, the
        // framer returned a 65,537-byte line; only TimerService's own length check refused it. A
        // 64 KiB read (the daemon's read size) ending a line of 65,600 bytes did the same.
        var framer = LineFramer()
        let full = [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)
        #expect(framer.receive(full[...], now: 0) == [])
        #expect(framer.receive(Array("b\nnext\n".utf8)[...], now: 0) == [.tooLong, .line(Array("next".utf8))])
        #expect(framer.buffered.isEmpty)
        #expect(!framer.isDiscarding)
        // Whole in one read: the same refusal (the read's size does not matter).
        #expect(framer.receive((full + Array("bb\r\n".utf8))[...], now: 0) == [.tooLong])
        // And through a connection: the exact error line once (tooLongReply), then the next request.
        var peer = Peer()
        peer.read(full)
        peer.read("b\nping\n")
        #expect(peer.handled == ["ping"])
        let (sent, _) = peer.write(accepting: [.max])
        #expect(Array(sent.utf8) == Self.tooLongReply + Array("ok ping\n".utf8))
    }

    @Test("A 1 MiB line read 64 KiB at a time: the exact error once, then the next line is served")
    func oneMebibyteLine() {
        var peer = Peer()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 65_536)  // the daemon's read size
        for _ in 0..<16 { peer.read(chunk) }  // 16 × 64 KiB = 1 MiB, no newline yet
        #expect(peer.connection.output.count == Self.tooLongReply.count)
        #expect(peer.connection.framer.buffered.isEmpty)  // nothing of the long line is kept
        peer.read("\nping\n")
        #expect(peer.handled == ["ping"])
        let (sent, next) = peer.write(accepting: [.max])
        #expect(Array(sent.utf8) == Self.tooLongReply + Array("ok ping\n".utf8))
        #expect(next == .keep(interestChanged: false))
    }

    @Test("Half-close: the last line without a newline counts; the connection waits for its waits")
    func halfClose() {
        var peer = Peer()
        peer.read("wait\nping\r\nlast\r", now: 10)
        #expect(peer.handled == ["wait", "ping"])
        #expect(peer.connection.partialSince == 10)
        // The peer shuts its sending side: "last" (its CR dropped) is answered like any line.
        if let line = peer.connection.endOfInput() { peer.handle(line) }
        #expect(peer.handled == ["wait", "ping", "last"])
        #expect(peer.connection.partialSince == nil)
        // A wait is pending: the connection stays, and is not even closing after its replies.
        #expect(peer.connection.closeReading(isFlushPending: true) == false)
        #expect(peer.connection.isReadClosed)
        let first = peer.write(accepting: [.max])
        #expect(first.sent == "ok ping\nok last\n")
        #expect(first.next == .keep(interestChanged: false))
        // The wait is answered: its reply is the last thing written, then the connection closes.
        peer.connection.answer(1, with: Array("finished".utf8))
        #expect(peer.connection.waiters.isEmpty)
        let second = peer.write(accepting: [.max])
        #expect(second.sent == "finished\n")
        #expect(second.next == .close)
    }

    @Test("Half-close with nothing pending closes at once; with replies unwritten, after them")
    func halfCloseWithoutWaits() {
        var idle = Peer()
        #expect(idle.connection.endOfInput() == nil)
        #expect(idle.connection.closeReading(isFlushPending: false) == true)

        var busy = Peer()
        busy.read("ping")
        if let line = busy.connection.endOfInput() { busy.handle(line) }
        #expect(busy.connection.closeReading(isFlushPending: true) == false)
        let result = busy.write(accepting: [3, nil])
        #expect(result.sent == "ok ")
        #expect(result.next == .keep(interestChanged: true))
        #expect(busy.connection.wantsWrite)
        let rest = busy.write(accepting: [.max])
        #expect(rest.sent == "ping\n")
        #expect(rest.next == .close)

        // The rest of an over-long line is not a last line.
        var discarding = Peer()
        discarding.read([UInt8](repeating: UInt8(ascii: "a"), count: 65_537))
        #expect(discarding.connection.endOfInput() == nil)
    }

    // A subscriber's notifications may wait in its backlog as a run of
    // shared lines with its output queue empty; epoll must then still watch for writability, or
    // the run would never be written (ClientConnection.finishWrites's rule).
    @Test("A shared run the socket did not take keeps write interest on with the output queue empty")
    func sharedRunKeepsWriteInterest() {
        var peer = Peer()
        let lines = SharedLines()
        lines.append(seq: 1, line: Array("event".utf8))
        peer.connection.events.offer(lines, line: 0)
        #expect(peer.connection.output.isEmpty)
        #expect(peer.connection.finishWrites() == .keep(interestChanged: true))
        #expect(peer.connection.wantsWrite)
        // The socket took all of it: interest goes off again.
        peer.connection.consumeSharedEvents(6)
        #expect(peer.connection.events.isEmpty)
        #expect(peer.connection.finishWrites() == .keep(interestChanged: true))
        #expect(!peer.connection.wantsWrite)
    }

    @Test("Partial writes send every byte once, in order, and switch write interest on and off")
    func partialWrites() {
        var peer = Peer()
        peer.read("hello\nworld\n")
        let first = peer.write(accepting: [5, nil])
        #expect(first.sent == "ok he")  // the replies are "ok hello\nok world\n"
        #expect(first.next == .keep(interestChanged: true))
        #expect(peer.connection.wantsWrite)
        let second = peer.write(accepting: [4, nil])
        #expect(second.sent == "llo\n")
        #expect(second.next == .keep(interestChanged: false))
        let third = peer.write(accepting: [1, 1, .max])
        #expect(third.sent == "ok world\n")
        #expect(third.next == .keep(interestChanged: true))
        #expect(!peer.connection.wantsWrite)
    }

    @Test("Bytes left after a compaction of the written front are the right ones")
    func compaction() {
        var queue = OutputQueue()
        let line = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        queue.enqueue(line: line)
        queue.consume(70_000)  // past 64 KiB and more than half: the front is dropped
        #expect(queue.count == 30_001)
        #expect(Array(queue.nextBytes()) == Array(line[70_000...]) + [10])
        queue.enqueue(line: [1, 2])
        queue.consume(30_001)
        #expect(Array(queue.nextBytes()) == [1, 2, 10])
    }

    @Test("Back-pressure: more than 16 MiB unread closes the client, exactly past the limit")
    func backPressure() {
        // 16 MiB (docs/protocol.md): 16 MiB queued is allowed, one byte more is not.
        var peer = Peer()
        peer.connection.queue([UInt8](repeating: UInt8(ascii: "x"), count: (16 << 20) - 1))
        #expect(peer.connection.output.count == 16 << 20)
        #expect(!peer.connection.output.isOverLimit)
        let partly = peer.write(accepting: [1_000, nil])
        #expect(partly.sent.utf8.count == 1_000)
        #expect(partly.next == .keep(interestChanged: true))
        peer.read("a\nb\n")  // two replies of 5 bytes: 16 MiB - 1,000 + 10, still within
        #expect(!peer.connection.output.isOverLimit)
        peer.connection.queue([UInt8](repeating: UInt8(ascii: "y"), count: 990))  // 991 more: 1 over
        #expect(peer.connection.output.count == (16 << 20) + 1)
        #expect(peer.connection.output.isOverLimit)
        #expect(peer.write(accepting: [nil]).next == .dropUnread)
    }

    @Test("A request line left incomplete past the time-out is answered with the error and closed")
    func partialLineTimeout() {
        var peer = Peer()
        let timeout: Int64 = 10_000_000_000  // 10 s, timerd's default --request-timeout
        peer.read(#"{"a""#, now: 1_000)
        #expect(!peer.connection.isPartialLineExpired(now: 1_000 + timeout - 1, timeout: timeout))
        #expect(peer.connection.isPartialLineExpired(now: 1_000 + timeout, timeout: timeout))
        peer.connection.expirePartialLine(reply: Array("timed out".utf8))
        #expect(peer.connection.partialSince == nil)
        #expect(!peer.connection.isPartialLineExpired(now: 1_000 + 2 * timeout, timeout: timeout))
        let result = peer.write(accepting: [.max])
        #expect(result.sent == "timed out\n")
        #expect(result.next == .close)
    }

    @Test("An incomplete line is not timed out while timerd left the client's bytes unread; after, from then on")
    func partialLineBehindUnreadInput() {
        var peer = Peer()
        let timeout: Int64 = 10_000_000_000
        peer.read(#"{"a""#, now: 1_000)
        // The loop's read budget ran out with the socket's buffer full: the rest may be in it.
        peer.connection.endReads(leftUnread: true, now: 1_000)
        #expect(peer.connection.partialSince == nil)
        #expect(!peer.connection.isPartialLineExpired(now: 1_000 + 5 * timeout, timeout: timeout))
        #expect(peer.connection.idleDeadline(timeout: timeout) == nil)
        // A later turn read all there was, and the line is still incomplete: the client is waited
        // for from that turn.
        let drained = 1_000 + 5 * timeout
        peer.connection.endReads(leftUnread: false, now: drained)
        #expect(peer.connection.partialSince == drained)
        #expect(!peer.connection.isPartialLineExpired(now: drained + timeout - 1, timeout: timeout))
        #expect(peer.connection.isPartialLineExpired(now: drained + timeout, timeout: timeout))
    }

    @Test("One connection through fragments, a 1 MiB line, back-pressure and half-close")
    func wholeLife() {
        var peer = Peer()
        peer.read(#"{"a""#, now: 1)
        peer.read(":1}\r\n{", now: 2)
        #expect(peer.handled == [#"{"a":1}"#])
        for _ in 0..<16 { peer.read([UInt8](repeating: UInt8(ascii: "b"), count: 65_536)) }
        peer.read("\nwait\n")
        #expect(peer.handled == [#"{"a":1}"#, "wait"])
        let blocked = peer.write(accepting: [4, nil])
        #expect(blocked.sent == #"ok {"#)
        #expect(blocked.next == .keep(interestChanged: true))
        peer.read("final")
        if let line = peer.connection.endOfInput() { peer.handle(line) }
        #expect(peer.connection.closeReading(isFlushPending: false) == false)  // the wait is pending
        let drained = peer.write(accepting: [.max])
        #expect(
            Array(drained.sent.utf8) == Array(#""a":1}"#.utf8) + [10] + Self.tooLongReply + Array("ok final\n".utf8))
        #expect(drained.next == .keep(interestChanged: true))
        peer.connection.answer(1, with: Array("done".utf8))
        let last = peer.write(accepting: [.max])
        #expect(last.sent == "done\n")
        #expect(last.next == .close)
    }
}

@Suite("Client connections while a listing is streamed")
struct ClientConnectionStreamingTests {
    /// Replies queued while a listing is written (a wait's answer) follow it; held lines come back
    /// in order; a half-closed connection is not closed between two parts, and closes after the
    /// held lines are answered.
    @Test("Deferred replies follow the listing; a half-close waits for its end")
    func deferredReplies() {
        var connection = ClientConnection(uid: 1_000)
        connection.listing = TimerListing(id: .number(1), ids: [1, 2])
        connection.hold([.line(Array("next".utf8))])
        #expect(connection.heldBytes == 5)  // "next" and its newline count towards the 16 MiB
        connection.output.enqueue(bytes: Array("[part 1".utf8))
        connection.queue(Array("wait answer".utf8))
        let closesNow = connection.closeReading(isFlushPending: false)
        #expect(!closesNow)
        connection.output.consume(connection.output.count)
        let afterFirstPart = connection.finishWrites()
        #expect(afterFirstPart == .keep(interestChanged: false))  // empty, but streaming
        connection.output.enqueue(bytes: Array(" part 2]\n".utf8))
        let held = connection.finishListing()
        #expect(held == [.line(Array("next".utf8))])
        connection.settleAfterHeldLines()  // "next" is answered here in the daemon; no wait pending
        #expect(String(decoding: connection.output.nextBytes(), as: UTF8.self) == " part 2]\nwait answer\n")
        connection.output.consume(connection.output.count)
        let afterAll = connection.finishWrites()
        #expect(afterAll == .close)
    }
}

extension ClientConnectionStreamingTests {
    /// Held requests count towards the 16 MiB a client may owe: a client that pipelines requests
    /// behind a listing it does not read is closed as one that does not read its replies.
    @Test("Held requests count towards the 16 MiB limit")
    func heldRequestsCount() {
        var connection = ClientConnection(uid: 1_000)
        connection.listing = TimerListing(id: .number(1), ids: [1])
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 65_535)  // 64 KiB with its newline
        connection.hold(Array(repeating: LineFramer.Frame.line(line), count: 256))  // exactly 16 MiB
        #expect(!connection.isOverLimit)
        connection.hold([.line([])])  // one byte more
        #expect(connection.isOverLimit)
    }

    @Test("Random streams cut at random points give the lines of the whole stream split at LF")
    func randomSplits() {
        // The expected lines come from the definition (docs/protocol.md: a line ends at LF, a CR
        // just before it is dropped), applied to the whole stream at once; the framer sees the
        // same stream in reads of 1 to 64 bytes. Seeded (11), so a failure repeats.
        var state: UInt64 = 11
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let alphabet = Array("ab{}\":1 \r".utf8)
        for _ in 0..<300 {
            var stream: [UInt8] = []
            for _ in 0..<next(12) {
                for _ in 0..<next(40) { stream.append(alphabet[next(alphabet.count)]) }
                stream.append(UInt8(ascii: "\n"))
            }
            for _ in 0..<next(5) { stream.append(alphabet[next(alphabet.count)]) }  // an unfinished last line
            var expected = stream.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
                Array($0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0)
            }
            let unfinished = expected.removeLast()
            var framer = LineFramer()
            var lines: [[UInt8]] = []
            var offset = 0
            while offset < stream.count {
                let end = min(stream.count, offset + 1 + next(64))
                for frame in framer.receive(stream[offset..<end], now: Int64(end)) {
                    guard case .line(let line) = frame else {
                        Issue.record("unexpected \(frame)")
                        continue
                    }
                    lines.append(line)
                }
                // Something waits exactly when the bytes read so far do not end with LF.
                #expect((framer.partialSince == nil) == (stream[end - 1] == UInt8(ascii: "\n")))
                offset = end
            }
            #expect(lines == expected)
            let last = framer.endOfInput()
            if stream.last == UInt8(ascii: "\n") || stream.isEmpty {
                #expect(last == nil)
            } else {
                #expect(last == unfinished)
            }
        }
    }
}
