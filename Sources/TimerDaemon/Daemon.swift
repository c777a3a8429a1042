import CLinux
import Countdown
import Foundation
import Glibc
import TimerModel
import TimerProtocol
import TimerService
import TimerSystem

/// The daemon: one event loop on one thread that owns the engine, the sockets and the state file.
///
/// Everything happens on `epoll`: the listening socket, the clients, one `timerfd` on
/// `CLOCK_BOOTTIME` armed for the earliest deadline (no periodic tick), and a self-pipe for
/// signals. Each turn of the loop reads every ready client, runs every complete request line,
/// saves the state once if any request changed it (so concurrent requests share one `fsync`),
/// and only then sends the replies: a change is durable before it is acknowledged.
/// A slow or silent client blocks nobody: sockets are non-blocking and each has its own buffers.
public final class Daemon {
    private static let listenerToken: UInt64 = 0
    private static let timerToken: UInt64 = 1
    private static let signalToken: UInt64 = 2
    private static let wallClockToken: UInt64 = 3

    private let options: DaemonOptions
    private let socketPath: String
    private let store: DurableStore
    private let bootID: String?
    private let log: (String) -> Void
    private var service: TimerService
    private let epoll: Epoll
    private let bootTimer: BootTimer
    /// Held for the daemon's life: no second daemon may use the same state directory.
    private let stateLock: StateLock
    private let wallClock: WallClockWatch
    private let signals: SignalPipe
    private var listenerFD: Int32 = -1
    private var connections: [UInt64: Connection] = [:]
    private var waiterConnections: [WaiterID: UInt64] = [:]
    private var nextToken: UInt64 = 16
    private var nextWaiter: WaiterID = 1
    private var armedDeadline: Int64?
    private var idleSince: Int64
    private var isRunning = true
    private var stateIsDirty = false
    /// A request of this turn changed the state: its reply waits for an `fsync`.
    private var syncIsNeeded = false
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)
    private var config: DaemonConfig
    private let configPath: String?
    private let systemd: SystemdLink
    /// Whether timerd bound the socket itself (an inherited one is never unlinked).
    private let ownsSocketFile: Bool
    private let reserve: DescriptorReserve
    private var isOutOfDescriptors = false

    /// Prepares the daemon: loads the state, binds the socket, installs signal handlers.
    ///
    /// - Parameters:
    ///   - options: the parsed command line.
    ///   - log: where event lines go (stderr in production).
    /// - Throws: the error that prevents starting (socket in use, unusable directories …);
    ///   ``DaemonConfig/ConfigError`` for a bad configuration file.
    public init(options: DaemonOptions, log: @escaping (String) -> Void) throws {
        self.options = options
        self.log = log
        let environment = ProcessEnvironment.current()
        (config, configPath) = try DaemonConfig.resolve(options: options, uid: getuid(), environment: environment)
        systemd = SystemdLink(notifier: try SystemdNotifier(environment: environment, pid: getpid()), log: log)
        let inherited = try SocketActivation.adoptControlSocket(environment: environment, pid: getpid())
        ownsSocketFile = inherited == nil
        let stateDirectory = try options.stateDirectory ?? RuntimePaths.defaultStateDirectory()
        try RuntimePaths.ensurePrivateDirectory(stateDirectory)
        stateLock = try StateLock(directory: stateDirectory)
        bootID = BootID.current()
        store = DurableStore(
            directory: stateDirectory, bootID: bootID, journalMaximumRecords: options.journalMaximumRecords)
        if let path = options.socketPath {
            socketPath = path
        } else if let inherited {
            socketPath = "the socket passed as fd \(inherited)"
        } else {
            socketPath = RuntimePaths.defaultSocketPath()
            try RuntimePaths.ensurePrivateDirectory(RuntimePaths.defaultRuntimeDirectory())
        }
        reserve = DescriptorReserve(wanted: config.maximumConnections + 64)
        signals = try SignalPipe(catching: [SIGTERM, SIGINT, SIGHUP])
        epoll = try Epoll()
        bootTimer = try BootTimer()
        wallClock = try WallClockWatch()
        var engine = TimerEngine(
            clock: SystemClock(), historyLimit: config.historyLimit, historyMaximumAge: config.historyMaxAgeSeconds)
        let saved = try store.load(log: log)
        let missed = engine.restore(saved.snapshot, sameBoot: saved.isSameBoot)
        try store.open(restoring: engine.takeChanges(), snapshot: { engine.snapshot })
        service = TimerService(engine: engine, quota: config.maximumTimersPerUser, pid: getpid())
        service.localTimeResolver = LocalTimes.resolver
        idleSince = Syscall.bootTimeNanoseconds()
        let live = service.engine.liveCount
        log("loaded \(live) live timer\(live == 1 ? "" : "s") from \(stateDirectory)")
        for ending in missed {
            log(
                "timer \(ending.timer.label) finished while timerd was not running (ended \(ending.timer.endedAt.map { ISO8601.string(from: $0) } ?? "?"))"
            )
        }
        if let inherited {
            listenerFD = inherited
        } else {
            let (fd, removedStale) = try UnixSocket.listen(
                socketPath, mode: mode_t(options.socketMode), backlog: 1_024)
            listenerFD = fd
            if removedStale { log("removed a stale socket left at \(socketPath)") }
        }
        try epoll.add(listenerFD, interest: .readable, token: Self.listenerToken)
        try epoll.add(bootTimer.fd, interest: .readable, token: Self.timerToken)
        try epoll.add(signals.readEnd, interest: .readable, token: Self.signalToken)
        try epoll.add(wallClock.fd, interest: .readable, token: Self.wallClockToken)
    }

    /// Runs until SIGTERM or SIGINT (or the idle time-out), then removes the socket and saves the state.
    ///
    /// - Returns: the exit status: 0 after a clean stop, 1 when the state could not be saved.
    public func run() -> Int32 {
        log("listening on \(socketPath) (pid \(getpid()), version \(ServiceVersion.version))")
        systemd.ready(now: Syscall.bootTimeNanoseconds(), status: statusLine())
        var status: Int32 = 0
        while isRunning {
            rearmTimer()
            let events: [(token: UInt64, events: Epoll.Events)]
            do {
                events = try epoll.wait(timeoutMilliseconds: nextWakeTimeout())
            } catch {
                log("error: \(error)")
                status = 1
                break
            }
            for (token, ready) in events {
                switch token {
                case Self.listenerToken: acceptClients()
                case Self.timerToken: fireTimers()
                case Self.signalToken: handleSignals()
                case Self.wallClockToken: wallClockStepped()
                default: serve(token, ready)
                }
            }
            commit()
            expirePartialLines()
            checkIdle()
            systemd.turn(now: Syscall.bootTimeNanoseconds(), status: statusLine)
        }
        for connection in connections.values { close(connection) }
        if ownsSocketFile { unlink(socketPath) }
        Syscall.close(listenerFD)
        do {
            try store.compact(service.engine.snapshot)
        } catch {
            log("error: could not save state to \(store.snapshotPath): \(error)")
            status = 1
        }
        log("stopped")
        return status
    }

    // MARK: - Events

    private func acceptClients() {
        while true {
            let fd = accept4(listenerFD, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if fd < 0 {
                if errno == EINTR { continue }
                if DescriptorReserve.isExhaustion(errno) {
                    if shedClient() { continue }
                    return
                }
                if errno != EAGAIN && errno != EWOULDBLOCK { log("accept: \(SystemError("accept", errno: errno))") }
                return
            }
            isOutOfDescriptors = false
            guard let credentials = try? UnixSocket.peerCredentials(fd) else {
                Syscall.close(fd)
                continue
            }
            let token = nextToken
            nextToken += 1
            let connection = Connection(fd: fd, token: token, uid: credentials.uid)
            if connections.count >= config.maximumConnections {
                let error = RPCError(
                    .tooManyConnections,
                    "timerd has \(config.maximumConnections) connections, its limit; try again later")
                _ = try? Syscall.write(fd, ArraySlice(TimerService.errorLine(id: .null, error) + [10]))
                Syscall.close(fd)
                continue
            }
            do {
                try epoll.add(fd, interest: [.readable, .hangUp], token: token)
            } catch {
                Syscall.close(fd)
                continue
            }
            connections[token] = connection
        }
    }

    /// Out of descriptors: refuses one pending client with -32006 (logged once per episode).
    private func shedClient() -> Bool {
        if !isOutOfDescriptors {
            isOutOfDescriptors = true
            log(
                "accept: out of file descriptors (limit \(DescriptorReserve.openFileLimit)) with \(connections.count) clients; refusing new ones"
            )
        }
        return reserve.shed(listenerFD) { fd in
            let error = RPCError(
                .tooManyConnections,
                "timerd has run out of file descriptors (\(connections.count) connections); try again later")
            _ = try? Syscall.write(fd, ArraySlice(TimerService.errorLine(id: .null, error) + [10]))
        }
    }

    private func serve(_ token: UInt64, _ ready: Epoll.Events) {
        guard let connection = connections[token] else { return }
        if ready.contains(.writable) { flush(connection) }
        if connection.isReadClosed {
            if !ready.intersection(.hangUp).isEmpty, connections[token] != nil { close(connection) }
            return
        }
        if !ready.intersection([.readable, .hangUp]).isEmpty { readRequests(connection) }
    }

    /// The most reply bytes queued for one client; past it the client is closed (docs/protocol.md).
    private static let maximumQueuedReplyBytes = 16 << 20
    /// Reads of `readBuffer` per client per turn: a client that writes without pause must not keep
    /// the loop from serving the others (epoll is level-triggered, so the rest is read next turn).
    private static let readsPerTurn = 4

    private func readRequests(_ connection: Connection) {
        var reads = 0
        while connections[connection.token] != nil, reads < Self.readsPerTurn {
            reads += 1
            let count = Glibc.read(connection.fd, &readBuffer, readBuffer.count)
            if count == 0 {
                endOfInput(connection)
                return
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { close(connection) }
                return
            }
            connection.input += readBuffer[0..<count]
            consumeLines(connection)
            if count < readBuffer.count { return }
        }
    }

    /// The peer closed its sending side: a last line without its newline still counts, and the
    /// connection stays open until its pending waits are answered and its replies sent.
    private func endOfInput(_ connection: Connection) {
        if !connection.input.isEmpty, !connection.isDiscarding {
            var line = connection.input
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            connection.input.removeAll()
            handle(line, from: connection)
        }
        connection.input.removeAll()
        connection.scanned = 0
        connection.partialSince = nil
        connection.isReadClosed = true
        guard connections[connection.token] != nil else { return }
        if connection.waiters.isEmpty && connection.output.isEmpty && !pendingFlush.contains(connection.token) {
            close(connection)
            return
        }
        if connection.waiters.isEmpty { connection.closeAfterFlush = true }
        updateInterest(connection)
    }

    private func consumeLines(_ connection: Connection) {
        var start = 0
        var index = connection.scanned
        let newline = UInt8(ascii: "\n")
        while index < connection.input.count {
            if connection.input[index] == newline {
                if connection.isDiscarding {
                    connection.isDiscarding = false
                } else {
                    var end = index
                    if end > start, connection.input[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    handle(Array(connection.input[start..<end]), from: connection)
                    if connection.output.count > Self.maximumQueuedReplyBytes {
                        dropUnreadReplies(connection)
                        return
                    }
                }
                start = index + 1
            }
            index += 1
        }
        connection.input.removeFirst(start)
        connection.scanned = connection.input.count
        if connection.input.count > TimerService.maximumLineBytes {
            if !connection.isDiscarding {
                queue(
                    TimerService.errorLine(id: .null, RPCError(.invalidRequest, TimerService.tooLongMessage)),
                    to: connection)
                log("client \(connection.token): request line over 64 KiB refused")
            }
            connection.isDiscarding = true
            connection.input.removeAll(keepingCapacity: false)
            connection.scanned = 0
        }
        if connection.input.isEmpty {
            connection.partialSince = nil
        } else if connection.partialSince == nil {
            connection.partialSince = Syscall.bootTimeNanoseconds()
        }
    }

    private func handle(_ line: [UInt8], from connection: Connection) {
        if line.allSatisfy({ $0 == 32 || $0 == 9 }) { return }
        let waiter = nextWaiter
        nextWaiter += 1
        let context = RequestContext(uid: connection.uid, waiter: waiter)
        let outcome = service.handle(line: line, context: context)
        if outcome.changedState { stateIsDirty = true }
        if outcome.requiresDurability { syncIsNeeded = true }
        if let reply = outcome.reply {
            queue(reply, to: connection)
        } else if service.isWaiting(waiter) {
            connection.waiters.insert(waiter)
            waiterConnections[waiter] = connection.token
        }
        for wakeup in outcome.wakeups { deliver(wakeup) }
        for ending in outcome.endings { log("timer \(ending.timer.label) finished") }
        if let event = outcome.event { log("\(event) (uid \(connection.uid))") }
        if let request = outcome.reloadRequest {
            let result: Result<ReloadResult, RPCError>
            if connection.uid == 0 || connection.uid == getuid() {
                result = reload(requestedBy: "uid \(connection.uid)")
            } else {
                result = .failure(RPCError(.permissionDenied, "only root or uid \(getuid()) may reload timerd"))
            }
            if let reply = TimerService.reloadReply(id: request.id, result) { queue(reply, to: connection) }
        }
    }

    private func fireTimers() {
        bootTimer.drain()
        armedDeadline = nil
        let (endings, wakeups) = service.fireDueTimers()
        if !endings.isEmpty { stateIsDirty = true }
        for ending in endings { log("timer \(ending.timer.label) finished") }
        for wakeup in wakeups { deliver(wakeup) }
    }

    /// The wall clock was set (or the machine resumed): timers with an absolute end move with it.
    private func wallClockStepped() {
        guard wallClock.acknowledge() else { return }
        let moved = service.engine.wallClockChanged()
        if moved > 0 {
            stateIsDirty = true
            log("wall clock changed: rescheduled \(moved) timer\(moved == 1 ? "" : "s") with an end time")
        }
        fireTimers()
    }

    private func handleSignals() {
        for signal in signals.drain() {
            switch signal {
            case SIGHUP:
                _ = reload(requestedBy: "SIGHUP")
            default:
                if isRunning { systemd.stopping() }
                log("signal \(signal): stopping")
                isRunning = false
            }
        }
    }

    private func deliver(_ wakeup: (waiter: WaiterID, reply: [UInt8])) {
        guard let token = waiterConnections.removeValue(forKey: wakeup.waiter), let connection = connections[token]
        else { return }
        connection.waiters.remove(wakeup.waiter)
        queue(wakeup.reply, to: connection)
        if connection.isReadClosed && connection.waiters.isEmpty { connection.closeAfterFlush = true }
    }

    // MARK: - Reload

    /// Re-reads the configuration file between `RELOADING=1` and `READY=1`; a bad file keeps the
    /// old configuration. The reply to `daemon.reload` is sent only after this returns.
    private func reload(requestedBy requester: String) -> Result<ReloadResult, RPCError> {
        systemd.reloading()
        defer { systemd.ready(now: Syscall.bootTimeNanoseconds(), status: statusLine()) }
        do {
            let path = options.configPath ?? configPath
            let file = try path.flatMap { path throws(DaemonConfig.ConfigError) in try DaemonConfig.load(path: path) }
            config = (file ?? DaemonConfig()).overridden(by: options)
            service.engine.historyLimit = config.historyLimit
            service.engine.historyMaximumAge = config.historyMaxAgeSeconds
            service.quota = config.maximumTimersPerUser
            log("reloaded (\(requester)): \(path.map { file == nil ? "no \($0), defaults" : $0 } ?? "defaults")")
            return .success(ReloadResult(config: path, found: file != nil))
        } catch {
            log("reload (\(requester)) failed, keeping the old configuration: \(error)")
            return .failure(RPCError(.reloadFailed, "\(error); the old configuration stays in force"))
        }
    }

    private func statusLine() -> String {
        SystemdLink.statusLine(service.engine.list())
    }

    // MARK: - Output and durability

    private var pendingFlush: Set<UInt64> = []

    private func queue(_ line: [UInt8], to connection: Connection) {
        connection.output += line
        connection.output.append(UInt8(ascii: "\n"))
        pendingFlush.insert(connection.token)
    }

    /// Journals this turn's changes (one fsync for every request of the turn; none when timers only
    /// finished on their own, see ``DurableStore/commit(_:sync:snapshot:)``), then sends replies;
    /// compacts the journal afterwards if it has grown past its limit. When the journal cannot be
    /// written, this turn's replies are not sent (their connections are closed): nothing is
    /// acknowledged that is not durable, and the next turn writes a whole snapshot instead.
    private func commit() {
        let isQuiet = pendingFlush.isEmpty && isFreeOfDeadlines()
        if stateIsDirty, options.savePolicy == .atExit {
            _ = service.engine.takeChanges()  // nothing is journaled; do not let the change list grow
            stateIsDirty = false
            syncIsNeeded = false
        }
        if stateIsDirty, options.savePolicy == .everyChange {
            do {
                try store.commit(
                    service.engine.takeChanges(), sync: syncIsNeeded, snapshot: { service.engine.snapshot })
                stateIsDirty = false
                syncIsNeeded = false
            } catch {
                log("error: could not write \(store.journalPath): \(error); dropping this turn's replies")
                for token in pendingFlush {
                    if let connection = connections[token] { close(connection) }
                }
                pendingFlush.removeAll()
            }
        }
        let tokens = pendingFlush
        pendingFlush.removeAll()
        for token in tokens {
            if let connection = connections[token] { flush(connection) }
        }
        do {
            try store.compactIfDue(isQuiet: isQuiet, snapshot: { service.engine.snapshot })
        } catch {
            log("error: could not compact \(store.journalPath): \(error); retrying after the next change")
        }
    }

    /// Whether no timer is due within the next 100 ms: a compaction now would delay none.
    private func isFreeOfDeadlines() -> Bool {
        guard let deadline = service.engine.nextDeadline else { return true }
        return deadline.nanoseconds - Syscall.bootTimeNanoseconds() > 100_000_000
    }

    private func flush(_ connection: Connection) {
        var written = 0
        while written < connection.output.count {
            let count = connection.output[written...].withUnsafeBytes {
                Glibc.write(connection.fd, $0.baseAddress, $0.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                close(connection)
                return
            }
            written += count
        }
        connection.output.removeFirst(written)
        if connection.output.isEmpty && connection.closeAfterFlush {
            close(connection)
            return
        }
        if connection.output.count > Self.maximumQueuedReplyBytes {
            dropUnreadReplies(connection)
            return
        }
        let wantsWrite = !connection.output.isEmpty
        if wantsWrite != connection.wantsWrite {
            connection.wantsWrite = wantsWrite
            updateInterest(connection)
        }
    }

    private func dropUnreadReplies(_ connection: Connection) {
        log("client \(connection.token): does not read its replies (over 16 MiB queued); closing it")
        close(connection)
    }

    /// What epoll watches a connection for: input until the peer shut its sending side, output
    /// while replies are queued.
    private func updateInterest(_ connection: Connection) {
        var interest: Epoll.Events = connection.isReadClosed ? [] : [.readable, .hangUp]
        if connection.wantsWrite { interest.insert(.writable) }
        try? epoll.modify(connection.fd, interest: interest, token: connection.token)
    }

    private func close(_ connection: Connection) {
        guard connections.removeValue(forKey: connection.token) != nil else { return }
        for waiter in connection.waiters {
            service.cancelWait(waiter)
            waiterConnections[waiter] = nil
        }
        epoll.remove(connection.fd)
        Syscall.close(connection.fd)
        if connections.isEmpty { idleSince = Syscall.bootTimeNanoseconds() }
    }

    // MARK: - Time

    private func rearmTimer() {
        let deadline = service.engine.nextDeadline?.nanoseconds
        guard deadline != armedDeadline else { return }
        do {
            try bootTimer.arm(atNanoseconds: deadline)
            armedDeadline = deadline
        } catch {
            log("error: \(error)")
        }
    }

    /// Milliseconds until the next coarse deadline (partial-line time-outs, idle exit), or -1.
    private func nextWakeTimeout() -> Int32 {
        let now = Syscall.bootTimeNanoseconds()
        var next: Int64?
        let requestTimeout = Int64(options.requestTimeoutSeconds * 1e9)
        for connection in connections.values {
            if let since = connection.partialSince { next = min(next ?? .max, since + requestTimeout) }
        }
        if let idle = options.exitWhenIdleSeconds, connections.isEmpty, service.engine.liveCount == 0 {
            next = min(next ?? .max, idleSince + Int64(idle * 1e9))
        }
        if store.isCompactionDue { next = min(next ?? .max, now + 100_000_000) }  // retry when quiet
        let systemdDue = systemd.millisecondsUntilDue(now: now, hasLiveTimers: service.engine.liveCount > 0)
        guard let next else { return systemdDue ?? -1 }
        return min(Int32(clamping: max(0, (next - now) / 1_000_000 + 1)), systemdDue ?? .max)
    }

    private func expirePartialLines() {
        let now = Syscall.bootTimeNanoseconds()
        let requestTimeout = Int64(options.requestTimeoutSeconds * 1e9)
        for connection in connections.values {
            guard let since = connection.partialSince, now - since >= requestTimeout, !connection.closeAfterFlush
            else { continue }
            let seconds = DurationFormatter.number(options.requestTimeoutSeconds)
            let error = RPCError(
                .requestTimeout, "request line not completed within \(seconds) s; closing the connection")
            connection.closeAfterFlush = true
            connection.input.removeAll()
            connection.partialSince = nil
            queue(TimerService.errorLine(id: .null, error), to: connection)
            log("client \(connection.token): incomplete request line for \(seconds) s; dropped")
            flush(connection)
        }
    }

    private func checkIdle() {
        guard let idle = options.exitWhenIdleSeconds else { return }
        let now = Syscall.bootTimeNanoseconds()
        if !connections.isEmpty || service.engine.liveCount > 0 {
            idleSince = now
            return
        }
        if now - idleSince >= Int64(idle * 1e9) {
            log("idle for \(DurationFormatter.number(idle)) s with no live timers and no clients: exiting")
            isRunning = false
        }
    }
}
