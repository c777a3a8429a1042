import TimerModel
import TimerProtocol
import TimerService

/// One client's protocol state with no socket: its line framer, its reply queue, its peer uid and
/// its pending waits. The daemon moves bytes between a descriptor and this value
/// (``receive(_:now:)``, ``OutputQueue/nextBytes(upTo:)``, ``OutputQueue/consume(_:)``) and acts
/// on what it returns; everything else about a connection's life is decided here.
///
/// Life of a connection: lines are answered in order; a half-close (the peer's `shutdown(SHUT_WR)`,
/// as `socat` and `nc -N` do) still counts a last line without its newline, and the connection
/// stays until its pending waits are answered and every reply is written; a client that lets more
/// than 16 MiB of replies pile up is closed.
struct ClientConnection {
    /// What the writer does after a round of writes (``finishWrites()``).
    enum AfterWrites: Equatable {
        /// Everything is written and the connection is done: close it.
        case close
        /// More than 16 MiB are still queued: the client does not read; close it.
        case dropUnread
        /// Keep the connection; `interestChanged` says whether epoll must now watch (or stop
        /// watching) for writability (``wantsWrite``).
        case keep(interestChanged: Bool)
    }

    /// The peer's uid (`SO_PEERCRED`).
    let uid: UInt32
    /// Incoming bytes not yet returned as lines.
    private(set) var framer = LineFramer()
    /// Reply bytes not yet written.
    var output = OutputQueue()
    /// The `timer.wait` requests of this connection that are still pending.
    var waiters: Set<WaiterID> = []
    /// The open `timer.subscribe`s of this connection: like a pending wait, each keeps it open.
    var subscriptions: Set<WaiterID> = []
    /// Notifications not yet moved to ``output`` (bounded; ``EventBacklog``).
    var events = EventBacklog()
    /// Moves notifications from ``events`` to ``output`` while the output is short
    /// (``EventBacklog/drain(into:)``), unless the connection is closing.
    ///
    /// - Returns: whether anything moved.
    mutating func drainEvents() -> Bool {
        guard mayWriteEvents else { return false }
        return events.drain(into: &output)
    }
    /// Whether notifications may be written now: not while the connection is closing, and not
    /// while a listing is being written (its parts are one reply line; a notification between two
    /// parts would land inside it, so notifications wait in ``events`` until the line is ended).
    var mayWriteEvents: Bool { !output.isClosingAfterFlush && !isStreaming }

    /// Writes what `write` takes: the reply queue first, then the notifications as it drains (a run
    /// of the turn's shared lines straight from their buffer, ``EventBacklog/sharedFront``), until
    /// everything is written or `write` takes nothing more. Every byte written is part of whole
    /// lines in order: a reply, a listing's part, or a notification between two lines, never
    /// inside one.
    ///
    /// - Parameter write: writes some of the bytes given and returns how many it took (at most
    ///   their count), or `nil` when the socket takes nothing now (`EAGAIN`).
    /// - Returns: whether any byte was written.
    /// - Throws: what `write` throws; the connection is then to be closed.
    mutating func writeOut(_ write: (ArraySlice<UInt8>) throws -> Int?) rethrows -> Bool {
        var wrote = false
        writing: repeat {
            while !output.isEmpty {
                guard let written = try write(output.nextBytes()) else { break writing }
                output.consume(written)
                wrote = true
            }
            // A run of the turn's shared notification lines goes from the one shared buffer to
            // the socket (no copy per subscriber); a cut line's rest goes to the output queue.
            while mayWriteEvents, let run = events.sharedFront {
                guard let written = try write(run) else { break writing }
                consumeSharedEvents(written)
                wrote = true
                if !output.isEmpty { continue writing }
            }
        } while drainEvents()
        return wrote
    }
    /// Queues line `index` of the turn's shared lines in ``events`` (``EventBacklog/offer(_:line:)``),
    /// in one access to the connection's state.
    ///
    /// - Parameters:
    ///   - lines: the turn's shared lines.
    ///   - index: the line's index in `lines`.
    /// - Returns: whether the backlog was empty before (the connection is then marked for the
    ///   turn's flush), whether it was dropped for a gap (the daemon logs it), and whether the line
    ///   started a run of `lines` here (``EventBacklog/detach(from:)`` after the flush).
    mutating func offerEvent(_ lines: SharedLines, line index: Int) -> (wasEmpty: Bool, dropped: Bool, newRun: Bool) {
        let wasEmpty = events.isEmpty
        let (kept, newRun) = events.offer(lines, line: index)
        return (wasEmpty, !kept, newRun)
    }
    /// Marks `written` bytes of the backlog's shared run (``EventBacklog/sharedFront``) as
    /// written; the rest of a line the write cut goes to ``output``.
    ///
    /// - Parameter written: what the write of the run took.
    mutating func consumeSharedEvents(_ written: Int) {
        events.consumeShared(written, spillingInto: &output)
    }
    /// Whether nothing keeps the connection open for the daemon's sake: no pending wait and no
    /// subscription.
    var hasNothingPending: Bool { waiters.isEmpty && subscriptions.isEmpty }
    /// The peer shut down its sending side: nothing more is read, but pending waits are still
    /// answered before the connection is closed.
    private(set) var isReadClosed = false
    /// Whether epoll watches for writability (replies are queued that the socket did not take).
    private(set) var wantsWrite = false
    /// A long `timer.list` reply being written a part at a time; while it is, lines read are held
    /// (``hold(_:)``) rather than answered, and other replies (a wait's answer) wait in
    /// ``deferredReplies``.
    var listing: TimerListing?
    /// Lines read while the listing is written, not yet answered, in order.
    private(set) var heldFrames: [LineFramer.Frame] = []
    /// The bytes of ``heldFrames``.
    private(set) var heldBytes = 0
    /// Replies queued while a listing is being written, sent after it.
    private(set) var deferredReplies: [[UInt8]] = []
    /// The bytes of ``deferredReplies``.
    private(set) var deferredBytes = 0

    /// Whether the client owes more than 16 MiB (``OutputQueue/maximumQueuedBytes``): replies
    /// queued or deferred that it has not read, and requests held behind a streamed listing. A
    /// client that pipelines requests without reading is closed at this point, streamed or not.
    var isOverLimit: Bool { output.count + heldBytes + deferredBytes > OutputQueue.maximumQueuedBytes }

    /// Holds frames read while a listing is written, to answer after it.
    ///
    /// - Parameter frames: the frames, in order.
    mutating func hold(_ frames: some Sequence<LineFramer.Frame>) {
        for frame in frames {
            if case .line(let line) = frame { heldBytes += line.count + 1 }
            heldFrames.append(frame)
        }
    }
    /// Whether a listing is being written.
    var isStreaming: Bool { listing != nil }

    /// When the connection last read or wrote a byte (boot-time nanoseconds), for the idle timeout.
    var lastActivity: Int64 = 0

    /// When this connection becomes idle past `timeout` (boot-time nanoseconds), or `nil` while it
    /// is busy: a pending wait, a queued reply, an incomplete line or a half-close keeps it open.
    ///
    /// - Parameter timeout: the idle timeout in nanoseconds.
    /// - Returns: the instant to close it at.
    func idleDeadline(timeout: Int64) -> Int64? {
        guard hasNothingPending, output.isEmpty, framer.partialSince == nil, !hasUnreadInput, !isReadClosed,
            !isStreaming
        else {
            return nil
        }
        return lastActivity + timeout
    }

    /// A new connection from a peer with `uid`.
    ///
    /// - Parameter uid: the peer's uid, from `SO_PEERCRED`.
    init(uid: UInt32) {
        self.uid = uid
    }

    /// Takes bytes read from the socket.
    ///
    /// - Parameters:
    ///   - bytes: what the read returned.
    ///   - now: the boot-time clock in nanoseconds, read only when an incomplete line starts waiting.
    /// - Returns: the lines to answer and over-long-line refusals, in order; answer a
    ///   ``LineFramer/Frame/tooLong`` with ``refuseTooLongLine()``.
    mutating func receive(_ bytes: ArraySlice<UInt8>, now: @autoclosure () -> Int64) -> [LineFramer.Frame] {
        framer.receive(bytes, now: now())
    }

    /// When the incomplete line began (boot-time nanoseconds), or `nil` when none is buffered or
    /// the daemon left bytes of the client unread (``hasUnreadInput``): the rest of the line may
    /// be among them, so the client is not waited for.
    var partialSince: Int64? { hasUnreadInput ? nil : framer.partialSince }

    /// Whether the daemon stopped reading this client for the turn with bytes left in the socket
    /// (its per-turn read budget), rather than because the socket had nothing more.
    private(set) var hasUnreadInput = false

    /// Records how the turn's reads of this client ended; when the daemon has read everything the
    /// client sent, an incomplete line waits for the client from `now` on.
    ///
    /// - Parameters:
    ///   - leftUnread: bytes were left in the socket for the next turn.
    ///   - now: the boot-time clock in nanoseconds.
    mutating func endReads(leftUnread: Bool, now: Int64) {
        if hasUnreadInput && !leftUnread { framer.restartPartialClock(now: now) }
        hasUnreadInput = leftUnread
    }

    /// Queues one reply line (its LF is added).
    ///
    /// - Parameter line: the reply, without its newline.
    mutating func queue(_ line: [UInt8]) {
        if isStreaming {
            deferredReplies.append(line)
            deferredBytes += line.count + 1
        } else {
            output.enqueue(line: line)
        }
    }

    /// Ends the listing once its last part is queued: the replies deferred meanwhile follow it.
    ///
    /// - Returns: the lines held back while it was written, to answer now.
    mutating func finishListing() -> [LineFramer.Frame] {
        listing = nil
        for line in deferredReplies { output.enqueue(line: line) }
        deferredReplies = []
        deferredBytes = 0
        heldBytes = 0
        defer { heldFrames = [] }
        return heldFrames
    }

    /// After the held lines are answered: a half-closed connection with no pending wait closes
    /// once everything is written.
    mutating func settleAfterHeldLines() {
        if isReadClosed && hasNothingPending && !isStreaming && heldFrames.isEmpty { output.closeAfterFlush() }
    }

    /// Queues the error the daemon sends for a line over 64 KiB (JSON-RPC `-32600`, id `null`,
    /// ``TimerService/tooLongMessage``; docs/protocol.md).
    mutating func refuseTooLongLine() {
        queue(TimerService.errorLine(id: .null, RPCError(.invalidRequest, TimerService.tooLongMessage)))
    }

    /// The peer closed its sending side: returns the last line, if one is buffered without its newline.
    ///
    /// Answer that line, then call ``closeReading(isFlushPending:)``.
    /// - Returns: the last line, or `nil`.
    mutating func endOfInput() -> [UInt8]? {
        framer.endOfInput()
    }

    /// Stops reading after a half-close and says whether the connection can be closed at once.
    ///
    /// - Parameter isFlushPending: whether the daemon still has to write this connection's
    ///   replies of this turn.
    /// - Returns: `true` when no wait is pending and nothing is left to write: close now.
    ///   Otherwise the connection stays; with no pending wait it closes after its last write.
    mutating func closeReading(isFlushPending: Bool) -> Bool {
        isReadClosed = true
        if hasNothingPending && output.isEmpty && !isFlushPending && !isStreaming && heldFrames.isEmpty { return true }
        if hasNothingPending && !isStreaming && heldFrames.isEmpty { output.closeAfterFlush() }
        return false
    }

    /// Answers the pending wait `waiter` with `reply`; after a half-close, the last answer lets the
    /// connection close once written.
    ///
    /// - Parameters:
    ///   - waiter: a wait of this connection.
    ///   - reply: its reply line.
    mutating func answer(_ waiter: WaiterID, with reply: [UInt8]) {
        waiters.remove(waiter)
        queue(reply)
        if isReadClosed && hasNothingPending { output.closeAfterFlush() }
    }

    /// Whether the incomplete line has waited `timeout` nanoseconds or more (and the connection
    /// is not already closing): the daemon then answers with a time-out error.
    ///
    /// - Parameters:
    ///   - now: the boot-time clock in nanoseconds.
    ///   - timeout: the request time-out in nanoseconds.
    /// - Returns: whether to call ``expirePartialLine(reply:)``.
    func isPartialLineExpired(now: Int64, timeout: Int64) -> Bool {
        guard let since = partialSince, !output.isClosingAfterFlush, !isStreaming else { return false }
        return now - since >= timeout
    }

    /// Drops the incomplete line, queues `reply` (the time-out error) and closes after writing it.
    ///
    /// - Parameter reply: the error line to send.
    mutating func expirePartialLine(reply: [UInt8]) {
        output.closeAfterFlush()
        framer.dropPartialLine()
        queue(reply)
    }

    /// Decides what happens after a round of writes (each write ``OutputQueue/consume(_:)``d).
    ///
    /// - Returns: ``AfterWrites/close`` when done, ``AfterWrites/dropUnread`` past 16 MiB,
    ///   else ``AfterWrites/keep(interestChanged:)``.
    mutating func finishWrites() -> AfterWrites {
        if output.isFinished && !isStreaming && heldFrames.isEmpty { return .close }
        if output.isOverLimit { return .dropUnread }
        // Notifications left in the backlog with the output empty are a shared run the socket did
        // not take (EventBacklog.sharedFront): epoll must say when it can.
        let wantsWrite = !output.isEmpty || (!events.isEmpty && mayWriteEvents)
        guard wantsWrite != self.wantsWrite else { return .keep(interestChanged: false) }
        self.wantsWrite = wantsWrite
        return .keep(interestChanged: true)
    }
}
