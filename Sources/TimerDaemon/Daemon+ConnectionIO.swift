import TimerModel
import TimerProtocol
import TimerService
import TimerSystem

/// The clients' I/O: the only code that moves bytes between a client socket and its
/// ``ClientConnection`` (framing, the reply queue, half-close and back-pressure are decided there).
extension Daemon {
    /// Accepts every pending client; refuses one past the connection limit, and sheds clients
    /// when out of descriptors (``shedClient()``).
    func acceptClients() {
        while true {
            let accepted: FileDescriptor?
            do {
                switch listener {
                case .some(let listener): accepted = try listener.accept()
                case .none: return
                }
            } catch let error where error.errno.isDescriptorExhaustion {
                if shedClient() { continue }
                return
            } catch {
                log("accept: \(error)")
                return
            }
            guard let socket = accepted else { return }
            isOutOfDescriptors = false
            guard let credentials = try? UnixSocket.peerCredentials(socket.rawValue) else {
                socket.close()
                continue
            }
            let token = nextToken
            nextToken += 1
            if let refusal = admissionRefusal(uid: credentials.uid) {
                let error = RPCError(.tooManyConnections, refusal)
                _ = try? socket.write(ArraySlice(TimerService.errorLine(id: .null, error) + [10]))
                socket.close()
                continue
            }
            do {
                try epoll.add(socket, interest: [.readable, .hangUp], token: token)
            } catch {
                socket.close()
                continue
            }
            let connection = Connection(socket: socket, token: token, uid: credentials.uid)
            connections[token] = connection
            touch(connection)
            connectionsPerUID[credentials.uid, default: 0] += 1
            connections[token]?.state.lastActivity = Syscall.bootTimeNanoseconds()
        }
    }

    /// At the stop, once the socket file is removed: the clients still queued on a listener this
    /// timerd bound itself are accepted, told `-32603` "timerd is stopping" and closed after what
    /// they sent is read. Closing the listener would reset them (about one connection in three
    /// made right after SIGTERM, measured), and closing a socket with unread input resets its
    /// peer. An inherited (systemd) listener is left as it is: its queue waits for the
    /// next timerd.
    func refuseQueuedClients() {
        guard socketClaim != nil else { return }
        let line = Self.stoppingLine
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let accepted: FileDescriptor?
            switch listener {
            case .some(let listener): accepted = try? listener.accept()
            case .none: return
            }
            guard let socket = accepted else { return }
            _ = try? socket.write(line)
            var reads = 0
            while reads < 16, let count = try? socket.read(into: &buffer), count > 0 { reads += 1 }
            socket.close()
        }
    }

    /// The error a client gets when timerd stops before answering it: `-32603`, id `null`.
    static var stoppingLine: ArraySlice<UInt8> {
        ArraySlice(
            TimerService.errorLine(
                id: .null, RPCError(.internalError, "timerd is stopping; connect again in a moment")) + [10])
    }

    /// Closes a connection when timerd stops: what is queued for it is written as far as the socket
    /// takes it, and what it sent is read (a socket closed with unread input resets its peer); a
    /// client whose request was not answered gets the stopping error (``stoppingLine``) instead.
    func closeAtStop(_ connection: Connection) {
        flush(connection)
        guard connections[connection.token] != nil else { return }
        var unanswered = connection.state.partialSince != nil
        var reads = 0
        while reads < 16, let count = try? connection.socket.read(into: &readBuffer), count > 0 {
            reads += 1
            unanswered = true
        }
        if unanswered, connection.state.output.isEmpty { _ = try? connection.socket.write(Self.stoppingLine) }
        close(connection)
    }

    /// Out of descriptors: refuses one pending client with -32006 (logged once per episode).
    func shedClient() -> Bool {
        if !isOutOfDescriptors {
            isOutOfDescriptors = true
            log(
                "accept: out of file descriptors (limit \(DescriptorReserve.openFileLimit)) with \(connections.count) clients; refusing new ones"
            )
        }
        switch listener {
        case .some(let listener):
            return reserve.shed(listener) { socket in
                let error = RPCError(
                    .tooManyConnections,
                    "timerd has run out of file descriptors (\(connections.count) connections); try again later")
                _ = try? socket.write(ArraySlice(TimerService.errorLine(id: .null, error) + [10]))
            }
        case .none:
            return false
        }
    }

    func serve(_ token: UInt64, _ ready: Epoll.Events) {
        guard let connection = connections[token] else {
            if !scrapes.isEmpty { serveScrape(token, ready) }
            return
        }
        touch(connection)
        if ready.contains(.writable) { flush(connection) }
        if connection.state.isReadClosed {
            if !ready.intersection(.hangUp).isEmpty, connections[token] != nil { close(connection) }
            return
        }
        if !ready.intersection([.readable, .hangUp]).isEmpty { readRequests(connection) }
    }

    /// Reads of `readBuffer` per client per turn: a client that writes without pause must not keep
    /// the loop from serving the others (epoll is level-triggered, so the rest is read next turn).
    static let readsPerTurn = 4

    func readRequests(_ connection: Connection) {
        // A connection closing after its time-out reply reads nothing more.
        guard !connection.state.output.isClosingAfterFlush else { return }
        var reads = 0
        while connections[connection.token] != nil, reads < Self.readsPerTurn {
            reads += 1
            let count: Int
            do {
                guard let read = try connection.socket.read(into: &readBuffer) else {
                    connection.state.endReads(leftUnread: false, now: Syscall.bootTimeNanoseconds())
                    return
                }
                count = read
            } catch {
                close(connection)
                return
            }
            if count == 0 {
                connection.state.lastActivity = Syscall.bootTimeNanoseconds()
                endOfInput(connection)
                return
            }
            let frames = connection.state.receive(readBuffer[0..<count], now: Syscall.bootTimeNanoseconds())
            // Blank lines are not requests: only a request line counts as activity for the idle
            // timeout (an incomplete line is bounded by the request time-out instead).
            if frames.contains(where: { !$0.isBlankLine }) {
                connection.state.lastActivity = Syscall.bootTimeNanoseconds()
            }
            consumeLines(frames, from: connection)
            if count < readBuffer.count {
                connection.state.endReads(leftUnread: false, now: Syscall.bootTimeNanoseconds())
                return
            }
        }
        // The read budget ran out with the buffer full: more may wait in the socket.
        connection.state.endReads(leftUnread: true, now: Syscall.bootTimeNanoseconds())
    }

    /// The peer closed its sending side: a last line without its newline still counts, and the
    /// connection stays open until its pending waits are answered and its replies sent.
    func endOfInput(_ connection: Connection) {
        if let line = connection.state.endOfInput() {
            if connection.state.isStreaming {
                connection.state.hold([.line(line)])
            } else {
                handle(line, from: connection)
            }
        }
        guard connections[connection.token] != nil else { return }
        if connection.state.closeReading(isFlushPending: connection.isFlushPending) {
            close(connection)
            return
        }
        updateInterest(connection)
    }

    /// Answers the lines of one read in order; stops when the client lets its replies pile up.
    func consumeLines(_ frames: [LineFramer.Frame], from connection: Connection) {
        if connection.state.isStreaming {
            // Answered in order once the listing is written; a client that piles them up is closed.
            connection.state.hold(frames)
            if connection.state.isOverLimit { dropUnreadReplies(connection) }
            return
        }
        for (index, frame) in frames.enumerated() {
            switch frame {
            case .line(let line):
                handle(line, from: connection)
                if connection.state.isOverLimit {
                    dropUnreadReplies(connection)
                    return
                }
                if connection.state.isStreaming {
                    // Answered in order: the rest waits until the listing is written.
                    connection.state.hold(frames[(index + 1)...])
                    return
                }
            case .tooLong:
                connection.state.refuseTooLongLine()
                markForFlush(connection)
                log("client \(connection.token): request line over 64 KiB refused")
            }
        }
    }

    /// Marks `connection` to be written after this turn's commit (once, however many replies).
    func markForFlush(_ connection: Connection) {
        guard !connection.isFlushPending else { return }
        connection.isFlushPending = true
        pendingFlush.append(connection.token)
    }

    func queue(_ line: [UInt8], to connection: Connection) {
        connection.state.queue(line)
        markForFlush(connection)
    }

    /// Writes what the socket takes now; then closes, drops, or watches for writability as
    /// ``ClientConnection/finishWrites()`` says.
    func flush(_ connection: Connection) {
        touch(connection)
        // Notifications move to the output queue as it drains (EventBacklog), so a subscriber
        // that reads is fed in the same call; none is written inside a streamed listing.
        let eventBytes = connection.state.events.bytes
        do {
            if try connection.state.writeOut({ try connection.socket.write($0) }) {
                connection.state.lastActivity = Syscall.bootTimeNanoseconds()
            }
        } catch {
            settleEventBytes(of: connection, from: eventBytes)
            close(connection)
            return
        }
        settleEventBytes(of: connection, from: eventBytes)
        switch connection.state.finishWrites() {
        case .close: close(connection)
        case .dropUnread: dropUnreadReplies(connection)
        case .keep(let interestChanged): if interestChanged { updateInterest(connection) }
        }
    }

    func dropUnreadReplies(_ connection: Connection) {
        log("client \(connection.token): does not read its replies (over 16 MiB queued); closing it")
        close(connection)
    }

    /// What epoll watches a connection for: input until the peer shut its sending side, output
    /// while replies are queued.
    func updateInterest(_ connection: Connection) {
        var interest: Epoll.Events =
            connection.state.isReadClosed || connection.state.output.isClosingAfterFlush ? [] : [.readable, .hangUp]
        if connection.state.wantsWrite { interest.insert(.writable) }
        try? epoll.modify(connection.socket, interest: interest, token: connection.token)
    }

    /// Forgets a connection: cancels its waits and stops watching it; its socket is closed as the
    /// last reference to it goes (at the latest when the current event's handler returns).
    func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.token) != nil else { return }
        let left = connectionsPerUID[connection.uid, default: 1] - 1
        connectionsPerUID[connection.uid] = left > 0 ? left : nil
        for waiter in connection.state.waiters {
            backend.cancelWait(waiter)
            waiterConnections[waiter] = nil
        }
        cancelSubscriptions(of: connection)
        let held = connection.state.events.bytes
        if held > 0 {
            let total = eventBytesPerUID[connection.uid, default: 0] - held
            eventBytesPerUID[connection.uid] = total > 0 ? total : nil
        }
        releasedSinceTrim += held + connection.state.output.count
        epoll.remove(connection.socket)
        if connections.isEmpty { idleSince = Syscall.bootTimeNanoseconds() }
    }

    func expirePartialLines() {
        let now = Syscall.bootTimeNanoseconds()
        let requestTimeout = Int64(options.requestTimeoutSeconds * 1e9)
        for connection in connections.values {
            guard connection.state.isPartialLineExpired(now: now, timeout: requestTimeout) else { continue }
            let seconds = DurationFormatter.number(options.requestTimeoutSeconds)
            let error = RPCError(
                .requestTimeout, "request line not completed within \(seconds) s; closing the connection")
            connection.state.expirePartialLine(reply: TimerService.errorLine(id: .null, error))
            markForFlush(connection)
            log("client \(connection.token): incomplete request line for \(seconds) s; dropped")
            flush(connection)
            // Closing: epoll stops reporting its input (read no more) until the reply is written.
            if connections[connection.token] != nil { updateInterest(connection) }
        }
    }
}
