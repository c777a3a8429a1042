import Countdown
import Foundation
import Glibc
import TimerModel
import TimerProtocol
import TimerService
import TimerStorage
import TimerSystem

/// The event loop and the request handling: what happens on each turn, with no socket I/O
/// (that is in `Daemon+ConnectionIO.swift`).
extension Daemon {
    /// Turns the loop until ``isRunning`` is cleared: waits on epoll, dispatches each ready
    /// descriptor, then commits the turn's changes, sends the replies and does the housekeeping.
    ///
    /// - Returns: 0, or 1 when `epoll_wait` failed.
    func runLoop() -> Int32 {
        // Log lines of one turn go out together at its end (LogLine.flush), and at once after the loop.
        LogLine.setBuffering(true)
        defer { LogLine.setBuffering(false) }
        // Reused from turn to turn (no allocation per turn).
        var events: [(token: UInt64, events: Epoll.Events)] = []
        while isRunning {
            guard turn(&events) else { return 1 }
        }
        return 0
    }

    /// One turn of the loop: waits on epoll (at most `maximumWait` milliseconds when given),
    /// dispatches each ready descriptor, then commits the turn's changes, sends the replies and
    /// does the housekeeping. ``runLoop()`` turns it until the daemon stops; an in-process test
    /// turns it itself.
    ///
    /// - Parameters:
    ///   - events: the ready list, reused from turn to turn.
    ///   - maximumWait: the longest wait for a descriptor, in milliseconds; `nil` for the loop's own
    ///     (until the next deadline or time-out).
    /// - Returns: `false` when `epoll_wait` failed (logged).
    func turn(_ events: inout [(token: UInt64, events: Epoll.Events)], maximumWait: Int32? = nil) -> Bool {
        backend.beginTurn()
        rearmTimer()
        rearmWakeAlarms()
        var timeout = nextWakeTimeout()
        if let maximumWait { timeout = timeout < 0 ? maximumWait : min(timeout, maximumWait) }
        do {
            try epoll.wait(timeoutMilliseconds: timeout, into: &events)
        } catch {
            log("error: \(error)")
            return false
        }
        for (token, ready) in events {
            fireDueBetweenSlices()
            switch token {
            case Self.zoneToken: zoneFileChanged()
            case Self.listenerToken: acceptClients()
            case Self.timerToken: fireTimers()
            case Self.signalToken: handleSignals()
            case Self.wallClockToken: wallClockStepped()
            case Self.backendToken: fireTimers()
            case Self.metricsToken: acceptScrapes()
            case Self.bootAlarmToken, Self.wallAlarmToken: wakeAlarmExpired(token)
            // No action running (the usual case): the token is a client's, with no look-ups.
            default: if runningActions.isEmpty || !handleActionEvent(token) { serve(token, ready) }
            }
        }
        produceListings()
        enforceActionTimeouts()
        for wakeup in backend.endOfTurn() { deliver(wakeup) }
        commit()
        connectionHousekeeping()
        expireScrapes()
        checkIdle()
        systemd.turn(now: Syscall.bootTimeNanoseconds(), status: statusLine)
        LogLine.flush()
        return true
    }

    // MARK: - Events

    func handle(_ line: [UInt8], from connection: Connection) {
        if line.allSatisfy({ $0 == 32 || $0 == 9 }) { return }
        fireDueBetweenSlices()
        let waiter = nextWaiter
        nextWaiter += 1
        let context = RequestContext(uid: connection.uid, waiter: waiter, connection: connection.token)
        let started = Syscall.bootTimeNanoseconds()
        let outcome = backend.handle(line, context: context)
        if let method = outcome.method {
            metrics.recordRequest(method, nanoseconds: Syscall.bootTimeNanoseconds() - started)
        }
        watchBackendDescriptor()  // a request may have reconnected to the database
        // A change re-arms the alarm clocks before its reply can go out (O(1) without wake timers).
        if outcome.changedState { rearmWakeAlarms() }
        if let reply = outcome.reply {
            hold(
                reply, to: connection, id: outcome.requestID, isChange: outcome.requiresDurability,
                deferredWaiter: outcome.isReplyDeferred ? waiter : nil)
        } else if let listing = outcome.listing {
            connection.state.listing = listing
            streamingTokens.insert(connection.token)
        } else if backend.isWaiting(waiter) {
            connection.state.waiters.insert(waiter)
            waiterConnections[waiter] = connection.token
        }
        trackSubscriptions(outcome, on: connection)
        for wakeup in outcome.wakeups { deliver(wakeup) }
        for ending in outcome.endings { log(Self.endingLine(ending)) }
        if let event = outcome.event { log(Self.eventLine(event, uid: connection.uid)) }
        if let request = outcome.reloadRequest {
            let result: Result<ReloadResult, RPCError>
            if connection.uid == 0 || connection.uid == getuid() {
                result = reload(requestedBy: "uid \(connection.uid)")
            } else {
                result = .failure(RPCError(.permissionDenied, "only root or uid \(getuid()) may reload timerd"))
            }
            if let reply = TimerService.reloadReply(id: request.id, result) { queue(reply, to: connection) }
        }
        if let request = outcome.metricsRequest { answerMetrics(request, on: connection) }
    }

    /// The log line of a timer that ended: `timer 3 ("tea") finished`, or for an alarm whose ringing
    /// gave up, `timer 3 ("tea") finished: unanswered after 20 rings`.
    ///
    /// - Parameter ending: the timer that ended.
    /// - Returns: the line, without a newline.
    static func endingLine(_ ending: TimerEnding) -> String {
        guard let alarm = ending.timer.alarm, alarm.outcome == .unanswered else {
            return "timer \(ending.timer.label) finished"
        }
        return "timer \(ending.timer.label) finished: unanswered after \(alarm.ringCount) "
            + (alarm.ringCount == 1 ? "ring" : "rings")
    }

    /// `"\(event) (uid \(uid))"`, the log line of a request's event, written as UTF-8 bytes and
    /// made a String once (an interpolation builds and copies pieces on every pipelined start).
    ///
    /// - Parameters:
    ///   - event: what the request did (`ServiceOutcome.event`).
    ///   - uid: the requester's uid.
    /// - Returns: the line, without a newline.
    static func eventLine(_ event: String, uid: UInt32) -> String {
        var line: [UInt8] = []
        line.reserveCapacity(event.utf8.count + 18)
        line.append(contentsOf: event.utf8)
        line.append(contentsOf: " (uid ".utf8)
        line.append(contentsOf: String(uid).utf8)
        line.append(UInt8(ascii: ")"))
        return String(decoding: line, as: UTF8.self)
    }

    /// The loop's timer (or the backend's descriptor) fired: the backend fires what is due.
    func fireTimers() {
        bootTimer.drain()
        armedDeadline = nil
        let firing = backend.fireDue()
        for ending in firing.endings { log(Self.endingLine(ending)) }
        for wakeup in firing.wakeups { deliver(wakeup) }
        // Runs the backend made durable itself (a shared completion) start now; the others at the commit.
        startCommittedActions()
        watchBackendDescriptor()
    }

    /// Fires the timers due now in the middle of a turn, between two slices of its work (one ready
    /// descriptor, one request, a slice of ``deliverNotifications()``, one connection's flush), so
    /// that a firing waits for at most one slice rather than for the whole turn (with 100
    /// subscribers, one turn's fan-out takes milliseconds). The firing instant is the one the
    /// engine records (`daemon.stats` lateness).
    ///
    /// What the firings produce goes where a firing at the top of the next turn would put it:
    /// their engine changes into the next commit, their notifications into
    /// the service's notifications (sent after that commit), and the replies of the `timer.wait`s they
    /// end into ``deferredWakeups`` (queued at that commit), so nothing about them is written
    /// before the commit that records them. Costs one read of the boot-time clock (vDSO) and a look
    /// at the deadline queue's head when nothing is due. Only for a backend with a
    /// ``TimerBackend/sliceDeadline`` (the shared one claims in turns of its own).
    func fireDueBetweenSlices() {
        guard let due = backend.sliceDeadline, due <= Syscall.bootTimeNanoseconds() else { return }
        // The boot timer may still be armed for a deadline fired here: it is re-armed for the next
        // one at the top of the next turn (a wake-up that finds nothing due fires nothing).
        armedDeadline = nil
        let firing = backend.fireDue()
        for ending in firing.endings { log(Self.endingLine(ending)) }
        if !firing.wakeups.isEmpty { deferredWakeups += firing.wakeups }
    }

    /// The wall clock was set (or the machine resumed): timers with an absolute end move with it,
    /// countdowns are re-anchored (and re-derived on the first step after a boot; docs/time.md).
    func wallClockStepped() {
        guard wallClock.acknowledge() else { return }
        let moved = backend.wallClockChanged()
        if moved > 0 {
            log("wall clock changed: rescheduled \(moved) timer\(moved == 1 ? "" : "s") with an end time")
        }
        fireTimers()
    }

    func handleSignals() {
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

    func deliver(_ wakeup: (waiter: WaiterID, reply: [UInt8])) {
        guard let token = waiterConnections.removeValue(forKey: wakeup.waiter), let connection = connections[token]
        else { return }
        connection.state.answer(wakeup.waiter, with: wakeup.reply)
        markForFlush(connection)
    }

    // MARK: - Reload

    /// Re-reads the configuration file between `RELOADING=1` and `READY=1`; a bad file keeps the
    /// old configuration. The reply to `daemon.reload` is sent only after this returns.
    func reload(requestedBy requester: String) -> Result<ReloadResult, RPCError> {
        systemd.reloading()
        defer { systemd.ready(now: Syscall.bootTimeNanoseconds(), status: statusLine()) }
        do {
            let path = options.configPath ?? configPath
            let file = try path.flatMap { path throws(DaemonConfig.ConfigError) in
                try DaemonConfig.load(path: path, mustExist: options.configPath != nil)
            }
            config = (file ?? DaemonConfig()).overridden(by: options)
            backend.configure(config)
            LogLine.level = config.logLevel
            connectionDeadline = Syscall.bootTimeNanoseconds()  // time-outs may have changed: re-read all
            log("reloaded (\(requester)): \(path.map { file == nil ? "no \($0), defaults" : $0 } ?? "defaults")")
            return .success(ReloadResult(config: path, found: file != nil))
        } catch {
            log("warning: reload (\(requester)) failed, keeping the old configuration: \(error)")
            return .failure(RPCError(.reloadFailed, "\(error); the old configuration stays in force"))
        }
    }

    func statusLine() -> String { backend.statusLine }

    // MARK: - Durability

    /// Commits this turn's changes through the backend (one fsync for every request of the turn),
    /// then sends replies; lets the store compact afterwards when it is due. When the store
    /// refuses the commit (a full disk), the backend has undone the turn's changes and each
    /// request that made one is answered `-32603` with the reason; other replies go out as they
    /// are, and the connections stay open. The backend retries with a back-off until it succeeds
    /// (docs/durability.md).
    func commit() {
        // Timers due now are finished before the commit, so that they are in it (and not behind
        // its fsync).
        fireDueBetweenSlices()
        let isQuiet = pendingFlush.isEmpty && heldReplies.isEmpty && isFreeOfDeadlines()
        let now = Syscall.bootTimeNanoseconds()
        let verdict = backend.commit(hasWaitingReplies: !heldReplies.isEmpty, now: now)
        placeDeferredReplies()
        switch verdict {
        case .nothing: break
        case .committed:
            metrics.recordCommit(nanoseconds: Syscall.bootTimeNanoseconds() - now)
            startCommittedActions()
        case .refused(let message): refuseHeldChanges(message)
        case .lost: closeHeldConnections()
        }
        // The alarm clocks follow the committed state before any reply acknowledges it: a client
        // told that a wake timer started or stopped finds the alarm armed or disarmed.
        rearmWakeAlarms()
        if !deferredWakeups.isEmpty {
            let wakeups = deferredWakeups
            deferredWakeups.removeAll()
            for wakeup in wakeups { deliver(wakeup) }
        }
        // The log lines of the acknowledged changes go out before their replies: a client that
        // was told a change is done finds its line in the log, even when timerd is killed next.
        if !heldReplies.isEmpty { LogLine.flush() }
        releaseHeldReplies()
        // Timers that came due during the fsync are finished while the fan-out and the flush run
        // (their slices): what they produce waits for the next commit.
        let turn = deliverNotifications()
        if !pendingFlush.isEmpty {
            // Tokens that a flush adds to pendingFlush meanwhile are written next turn, as before.
            swap(&pendingFlush, &flushingTokens)
            for token in flushingTokens {
                // A firing between two connections' writes waits for one write, not for all of them.
                fireDueBetweenSlices()
                // Cleared before the write: a connection marked again meanwhile is written next turn.
                if let connection = connections[token] {
                    connection.isFlushPending = false
                    flush(connection)
                }
            }
            flushingTokens.removeAll(keepingCapacity: true)
        }
        detachSharedLines(turn)
        backend.compactIfDue(isQuiet: isQuiet)
    }

    /// Whether no timer is due within the next 100 ms: a compaction now would delay none.
    func isFreeOfDeadlines() -> Bool {
        guard let deadline = backend.sliceDeadline else { return true }
        return deadline - Syscall.bootTimeNanoseconds() > 100_000_000
    }

    // MARK: - Time

    func rearmTimer() {
        let deadline = backend.nextWake
        guard deadline != armedDeadline else { return }
        do {
            try bootTimer.arm(atNanoseconds: deadline)
            armedDeadline = deadline
        } catch {
            log("error: \(error)")
        }
    }

    /// Milliseconds until the next coarse deadline (partial-line time-outs, idle exit), or -1.
    func nextWakeTimeout() -> Int32 {
        // Timers fired between slices of the last turn left work for a turn of its own: their
        // commit, notifications and wait replies go out now, not at the next wake-up.
        if backend.hasPendingNotifications || !deferredWakeups.isEmpty || backend.hasChangesToCommit {
            return 0
        }
        let now = Syscall.bootTimeNanoseconds()
        var next: Int64?
        for token in streamingTokens {
            guard let connection = connections[token], connection.state.isStreaming else { continue }
            if connection.state.output.count < Self.listingLowWater { return 0 }
        }
        // Per-connection time-outs: the bound kept by connectionHousekeeping(), not a walk of them all.
        if let due = connectionDeadline { next = min(next ?? .max, due) }
        if !scrapes.isEmpty, let due = scrapeDeadline { next = min(next ?? .max, due) }
        if let idle = options.exitWhenIdleSeconds, backend.canTellIdle, connections.isEmpty, backend.liveCount == 0 {
            next = min(next ?? .max, idleSince + Int64(idle * 1e9))
        }
        if let wake = backend.storeWake(now: now) { next = min(next ?? .max, wake) }  // e.g. a put-off compaction
        if let retry = backend.commitRetryAt { next = min(next ?? .max, retry) }
        if let action = nextActionDeadline() { next = min(next ?? .max, action) }
        let systemdDue = systemd.millisecondsUntilDue(now: now, hasLiveTimers: backend.liveCount > 0)
        guard let next else { return systemdDue ?? -1 }
        return min(Int32(clamping: max(0, (next - now) / 1_000_000 + 1)), systemdDue ?? .max)
    }

    func checkIdle() {
        // A backend that cannot tell that no timer is live (the shared one) stays.
        guard let idle = options.exitWhenIdleSeconds, backend.canTellIdle else { return }
        let now = Syscall.bootTimeNanoseconds()
        if !connections.isEmpty || backend.liveCount > 0 || !runningActions.isEmpty {
            idleSince = now
            return
        }
        if now - idleSince >= Int64(idle * 1e9) {
            log("idle for \(DurationFormatter.number(idle)) s with no live timers and no clients: exiting")
            isRunning = false
        }
    }
}
