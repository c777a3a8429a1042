// Over 450 lines on purpose: a shared host's stored state (waits, subscriptions, cursors, leases) and
// the loop's turn over it (claims, completions, the outbox, routing); the requests are in
// SharedHost+Requests.swift and +Edits.swift, the wire forms in +WireForm.swift.
import Countdown
import Foundation
import Glibc
import TimerModel
import TimerPostgres
import TimerProtocol
import TimerService
import TimerSystem

/// timerd's shared mode (`--shared` with `--store`, docs/multihost.md "Form 2"): this
/// host is one of several front ends of one set of timers in a PostgreSQL schema, which is the only
/// copy of them. Every request is statements of ``PostgresTimerQueue`` under the requester's uid;
/// every deadline is decided by the database's clock; timers fall due by claims under a lease and a
/// fence; events come from the outbox (`timerd_events`), so a wait or a subscription on this host
/// hears of what another host did.
///
/// The host's own clocks decide nothing about a deadline: the boot-time clock only arms the loop's
/// timerfd for "in s seconds" (s from ``PostgresTimerQueue/secondsUntilNextDue(cap:)``), and the
/// wall clock is used for nothing. `TIMERD_TEST_CLOCK_OFFSET` (seconds, test-only) shifts both
/// as this host reads them, to show that.
final class SharedHost {
    /// A pending `timer.wait`: answered when its timer's `finished` or `stopped` row arrives.
    struct Wait {
        var requestID: RPCID
        var timerID: Int64
        var uid: UInt32
        var connection: UInt64
    }

    /// An open `timer.subscribe`.
    struct Stream {
        var uid: UInt32
        var seesAll: Bool
        var connection: UInt64
        /// One timer, or `nil` for every timer the subscriber may see.
        var timerID: Int64?
        /// The event kinds it wants (wire names), or `nil` for all.
        var kinds: Set<String>?
    }

    /// What the lease of a claim is (seconds, database clock): longer than any batch's completion,
    /// which this host does in the same turn as the claim (MULTIHOST.md: a lease shorter than a
    /// batch repeats effects). A dead host's timers are rescued this long after its claim.
    static let leaseSeconds = 5.0
    /// The longest sleep between two claims (seconds): the poll bound. NOTIFY cuts it short when a
    /// new earliest deadline appears.
    static let pollCapSeconds = 1.0
    /// The most timers one claim takes.
    static let claimBatch = 500
    /// Outbox rows older than this are pruned (seconds), except `finished` rows of timers that still
    /// exist; at most ``outboxMaximumRows`` of the newest stay.
    static let outboxMaximumAgeSeconds = 3_600.0
    /// The most outbox rows kept.
    static let outboxMaximumRows = 1_000_000
    /// How often this host prunes the outbox (boot-time ns).
    static let pruneInterval: Int64 = 60_000_000_000
    /// How often this host prunes ended timers past the history limits, when timers ended since
    /// (boot-time ns).
    static let historyPruneInterval: Int64 = 1_000_000_000
    /// How long an ended timer is kept whatever the history limits (seconds), so that every host
    /// reads the outbox rows of its end (a wait on another host is answered from them) before
    /// they are pruned with it.
    static let historyGraceSeconds = 10.0

    let connectionString: String
    let hostID: String
    let log: (String) -> Void
    /// The test-only clock offset in nanoseconds (`TIMERD_TEST_CLOCK_OFFSET`, seconds), 0 normally.
    let clockOffset: Int64
    /// Test-only (`TIMERD_TEST_HOLD_CLAIMS`, seconds, 0 … 2): how long this host sits on each
    /// non-empty batch of claims before completing it, as slow work would, so that a test's
    /// SIGKILL finds it holding claims for another host to rescue. 0 normally.
    let claimHoldMicroseconds: UInt32
    /// Test-only (`TIMERD_TEST_STALL_IN_TRANSACTION`, seconds, 0 … 2): how long this host sits
    /// inside each completion transaction before its `COMMIT`, holding the rows' locks, so that a
    /// test's SIGSTOP finds it stopped inside a transaction. 0 normally.
    let transactionStallMicroseconds: UInt32
    /// The server-side timeouts of each connection (`pg_lock_timeout`, … in timerd.conf).
    let timeouts: PostgresSessionTimeouts
    /// The history limits (`history_limit`, `history_max_age`; the daemon sets them, and again at
    /// a reload): ended timers past them are pruned with their outbox rows.
    var historyLimit = 1_000
    var historyMaximumAge: Double?
    /// When ended timers may be pruned next (boot-time ns); when the history is looked at for its
    /// age limit next, with no timer ending meanwhile.
    var nextHistoryPruneAt: Int64 = 0
    var nextHistoryAgePruneAt: Int64 = 0
    /// When this host last read a timer's end from the outbox (boot-time ns, whichever host ended it).
    var lastEndSeenAt: Int64 = 0
    /// The connection's queue; `nil` while the database cannot be reached.
    private(set) var queue: PostgresTimerQueue?
    /// Why the last attempt to reach the database failed.
    var lastFailure = ""
    /// When the next reconnection may be tried (host boot-time ns, offset applied) and the back-off.
    var reconnectAt: Int64 = 0
    var reconnectBackoff: Int64 = 250_000_000
    /// The outbox position this host followed up to (``PostgresTimerQueue/followEvents(after:afterSeq:)``).
    var cursor: String
    /// The highest `seq` this host has seen.
    var lastSeq: Int64
    /// When the next claim is due (host boot-time ns): now + the database's time to the next deadline.
    var nextTurnAt: Int64 = 0
    var nextPruneAt: Int64 = 0
    var waits: [WaiterID: Wait] = [:]
    var waitsByTimer: [Int64: Set<WaiterID>] = [:]
    var streams: [SubscriptionRegistry.SubscriberID: Stream] = [:]
    /// The most pending waits and subscriptions per connection and per user (the daemon's
    /// ``WaitLimits``, docs/fairness.md), and how many each has now.
    var waitLimits = WaitLimits()
    var waitsPerConnection: [UInt64: Int] = [:]
    var waitsPerUser: [UInt32: Int] = [:]
    /// The store figures of `daemon.stats`.
    var figures = Figures()
    /// Requests of this turn changed something: follow the outbox at the turn's end.
    var changedThisTurn = false
    /// Requests of this turn may have moved the earliest deadline (a start due before every
    /// other, an edit): the next claim is looked at in this turn.
    var deadlineMovedThisTurn = false
    /// The transaction the turn's starts share (SharedHost+StartBatch.swift).
    var startBatch = StartBatch.idle
    /// A statement of ``withStartBatch(_:)`` runs (it stays inside the open transaction).
    var isInStartBatch = false
    /// When the database server this host is connected to started
    /// (``PostgresTimerQueue/serverStartTime()``).
    var serverStartedAt = ""
    /// The host reconnected to a server that started anew: its next read of the outbox also takes
    /// the rows above ``lastSeq`` (``PostgresTimerQueue/followEvents(after:afterSeq:)``).
    var followsNewServer = false
    /// The turn's starts not yet written: one statement writes them all (``flushPendingStarts()``)
    /// before any other statement of the host, or at the turn's end.
    var pendingStarts: [PendingStart] = []
    /// The replies of written pending starts, for the daemon to put in place of their placeholders.
    var deferredReplies: [WaiterID: DeferredReply] = [:]
    /// Pending starts were written in this turn (the turn's commit reports them committed).
    var flushedStartsThisTurn = false
    /// Reads a request's `action` object with the one-host daemon's rules (`TimerService.action`:
    /// only the daemon's own uid may ask; set by the daemon), or `nil` to refuse actions.
    var actionParser: ((JSONValue?, RequestContext) throws -> TimerAction?)?
    /// The most live timers one uid may have (`max_timers_per_user`; the daemon sets it from its
    /// configuration), `nil` for no limit. Counted in the database before the insert, so two hosts
    /// starting at once for one user may pass it by one each.
    var quota: Int?
    /// Reads `on`/`every` of `timer.start` by the one-host rules (`TimerService.recurrenceRequest`),
    /// or `nil` (then they are not read).
    var recurrenceReader: ((JSONMembers) throws -> TimerEngine.RecurrenceRequest?)?
    /// The zone a calendar timer that names none is read in: this host's system zone when it starts it.
    var systemTimeZone = TimeZone(identifier: "UTC") ?? TimeZone.current
    /// Resolves a local `at` (the daemon's `TimerService.localTimeResolver`), or `nil`.
    var localTimeResolver: (@Sendable (String, String, Int, Date) throws -> LocalTimeResolution)?
    /// On-finish runs of timers whose completion (or action claim) this host committed, for the
    /// daemon to start, each with the timer's id and the fence to record the start under.
    var launches: [ActionLaunch] = []
    /// The `timerd_action_runs` rows of the runs this host is running, by timer and kind, oldest first.
    var runSeqs: [String: [Int64]] = [:]
    /// The captured output of runs that ended, until their outcome is recorded.
    var pendingOutputs: [String: CapturedOutput] = [:]
    /// The output of runs this host ran, by their `timerd_action_runs` row, for `timer.runs` (at most
    /// ``maximumKeptOutputs``).
    var runOutputs: [Int64: (bytes: [UInt8], truncated: Bool)] = [:]
    /// Counts the connections made (1 after `init`): the daemon re-adds the socket to epoll when it changes.
    var connectionGeneration = 1

    /// Counters for `daemon.stats`.
    struct Figures {
        var claims = 0
        var rescues = 0
        var completions = 0
        var fencesLost = 0
        var startedAt: Int64 = 0
        /// Each recent round trip, nanoseconds.
        var roundTrips = LatenessRecorder(capacity: 4_096)
        /// Claim lateness on the database clock.
        var lateness = LatenessRecorder()
        /// This host's timer starts and stops (its requests) and finishes (its completions of a
        /// timer's last step), for the daemon's metrics.
        var timerCounts = TimerCounts()
    }

    /// Connects, migrates the schema and joins the hosts of its schema.
    ///
    /// - Throws: ``PostgresError`` when the database cannot be reached or a one-host timerd holds
    ///   the schema.
    init(
        connectionString: String, hostID: String, environment: [String: String],
        timeouts: PostgresSessionTimeouts = .standard, log: @escaping (String) -> Void
    ) throws {
        self.connectionString = connectionString
        self.hostID = hostID
        self.log = log
        let offsetSeconds = environment["TIMERD_TEST_CLOCK_OFFSET"].flatMap(Double.init) ?? 0
        clockOffset = offsetSeconds.isFinite ? Int64(max(-1e9, min(1e9, offsetSeconds)) * 1e9) : 0
        let hold = environment["TIMERD_TEST_HOLD_CLAIMS"].flatMap(Double.init) ?? 0
        claimHoldMicroseconds = hold.isFinite ? UInt32(max(0, min(2, hold)) * 1e6) : 0
        let stall = environment["TIMERD_TEST_STALL_IN_TRANSACTION"].flatMap(Double.init) ?? 0
        transactionStallMicroseconds = stall.isFinite ? UInt32(max(0, min(2, stall)) * 1e6) : 0
        self.timeouts = timeouts
        if clockOffset != 0 { log("test clock offset: this host's clocks read \(offsetSeconds) s off") }
        lastEndSeenAt = Syscall.bootTimeNanoseconds() + clockOffset  // a first look at the history
        let queue = try Self.connect(
            connectionString: connectionString, hostID: hostID, timeouts: timeouts, hostLockWaitMilliseconds: 3_000)
        self.queue = queue
        // Runs recorded as running by this host id were cut off when its last process ended.
        try queue.interruptRuns()
        cursor = try queue.eventCursor()
        lastSeq = try queue.lastEventSeq()
        serverStartedAt = try queue.serverStartTime()
        figures.startedAt = Syscall.bootTimeNanoseconds()
    }

    /// One connection, migrated, holding the shared side of the schema's writer lock (a one-host
    /// timerd takes it exclusively, so the two forms never run on one schema), listening on
    /// `timerd_wake`, holding its host id (a second live host with the same id is refused), with
    /// the id sequence checked (``PostgresTimerQueue/checkIDs()``).
    static func connect(
        connectionString: String, hostID: String, timeouts: PostgresSessionTimeouts, hostLockWaitMilliseconds: Int
    ) throws(PostgresError) -> PostgresTimerQueue {
        let connection = try PostgresConnection(connectionString: connectionString, timeouts: timeouts)
        try connection.checkSessionIsKept()
        try PostgresSchema.migrate(connection)
        let locked = try connection.query(
            "SELECT pg_try_advisory_lock_shared(hashtext('timerd-writer:' || current_schema()))")
        guard locked.value(0, 0) == "t" else {
            throw .server(
                sqlState: "TD002",
                message: "a one-host timerd (without --shared) serves the timers of this database schema")
        }
        let queue = PostgresTimerQueue(connection: connection, hostID: hostID)
        try queue.lockHostID(waitMilliseconds: hostLockWaitMilliseconds)
        try queue.checkIDs()
        try queue.listenForWakeUps()
        return queue
    }

    /// This host's boot-time clock, with the test offset.
    var now: Int64 { Syscall.bootTimeNanoseconds() + clockOffset }

    /// The connection's socket for epoll, or -1 while down.
    var socket: Int32 { queue.map { $0.connection.isConnected ? $0.connection.socket : -1 } ?? -1 }

    /// Runs `body` on the queue, reconnecting first when the connection is down (at most as often
    /// as the back-off allows); a failure that means the database is gone drops the connection.
    ///
    /// - Throws: ``PostgresError``; `.unavailable` while the database cannot be reached.
    func withQueue<T>(_ body: (PostgresTimerQueue) throws(PostgresError) -> T) throws(PostgresError) -> T {
        // Any other statement reads the turn's starts committed, and runs outside their transaction.
        if !isInStartBatch {
            if !pendingStarts.isEmpty { flushPendingStarts() }
            if case .open = startBatch { settleStartBatch() }
        }
        let queue = try connectedQueue()
        let start = Syscall.bootTimeNanoseconds()
        do {
            let value = try body(queue)
            figures.roundTrips.record(nanoseconds: Syscall.bootTimeNanoseconds() - start)
            return value
        } catch {
            switch error {
            case .unavailable(let message), .readOnly(let message): dropConnection(message)
            case .constraint, .server, .invalidConnectionString: break
            }
            throw error
        }
    }

    /// Forgets a connection the database is gone from (or that became read-only); the next
    /// request reconnects at once, and the loop backs off.
    func dropConnection(_ message: String) {
        lastFailure = message
        queue = nil
        reconnectAt = 0
        log("warning: database unavailable: \(message); reconnecting")
    }

    /// The queue, reconnecting when it is down and the back-off allows.
    func connectedQueue() throws(PostgresError) -> PostgresTimerQueue {
        if let queue, queue.connection.isConnected { return queue }
        guard now >= reconnectAt else { throw .unavailable(lastFailure) }
        do {
            // No wait for the host id here: the loop must not block; a session of this host that the
            // server has not ended yet is retried after the back-off.
            let queue = try Self.connect(
                connectionString: connectionString, hostID: hostID, timeouts: timeouts, hostLockWaitMilliseconds: 0)
            self.queue = queue
            let started = try queue.serverStartTime()
            if started != serverStartedAt { followsNewServer = true }
            serverStartedAt = started
            connectionGeneration += 1
            reconnectBackoff = 250_000_000
            log("database reachable again: reconnected")
            return queue
        } catch {
            self.queue = nil
            lastFailure = "\(error)"
            if case .unavailable(let message) = error { lastFailure = message }
            reconnectAt = now + reconnectBackoff
            // At most one attempt a second: a request after the database is back is served within
            // about a second (with 10 s, requests failed for up to 10 s after the database was back).
            reconnectBackoff = min(reconnectBackoff * 2, 1_000_000_000)
            throw error
        }
    }

    // MARK: - The loop's turn

    /// What one turn produced for the daemon to send.
    struct TurnOutput {
        var wakeups: [(waiter: WaiterID, reply: [UInt8])] = []
        var notifications: [EventNotification] = []
    }

    /// Claims and completes what is due, follows the outbox, prunes it now and then, and sets
    /// ``nextTurnAt``. A database error ends the turn early; the next one retries.
    func turn() -> TurnOutput {
        var output = TurnOutput()
        do {
            _ = try withQueue { queue throws(PostgresError) in _ = try queue.connection.takeNotifications() }
            let fired = try fireDue()
            if fired.accepted > 0 { try announce() }
            // Actions whose host died between its completion and starting them (lease ran out).
            let orphans = try withQueue { queue throws(PostgresError) in
                try queue.claimPendingActions(limit: 100, leaseSeconds: Self.leaseSeconds)
            }
            for orphan in orphans {
                log("timer \(orphan.id): taking over its on-finish action (its host did not start it in time)")
                launch(id: orphan.id, fence: orphan.fence, orphan.finished)
            }
            // Test-only: the window between a committed completion and the start of its action.
            if !launches.isEmpty, claimHoldMicroseconds > 0 { usleep(claimHoldMicroseconds) }
            output = try followEvents()
            if now >= nextPruneAt {
                nextPruneAt = now + Self.pruneInterval
                let pruned = try withQueue { queue throws(PostgresError) in
                    try queue.pruneEvents(
                        maximumAgeSeconds: Self.outboxMaximumAgeSeconds, maximumCount: Self.outboxMaximumRows)
                }
                if pruned > 0 { log("pruned \(pruned) outbox row\(pruned == 1 ? "" : "s")") }
            }
            try pruneHistory()
            let seconds = try withQueue { queue throws(PostgresError) in
                try queue.secondsUntilNextDue(cap: Self.pollCapSeconds)
            }
            // A full batch leaves more due: the next turn comes at once, after the requests that
            // are ready (the loop serves them between batches).
            nextTurnAt = fired.isFull ? now : now + Int64(seconds * 1e9)
        } catch {
            // While the database is away: try again after the back-off (at most 10 s).
            nextTurnAt = now + (queue == nil ? max(reconnectBackoff, 250_000_000) : 250_000_000)
            if queue != nil { log("warning: shared turn failed: \(error)") }
        }
        return output
    }

    /// Tells the other hosts that this one wrote outbox rows or moved a deadline (one
    /// `NOTIFY timerd_wake` per turn, not per row: NOTIFY serialises commits), so that they follow
    /// the outbox and re-read the earliest deadline now rather than at their next poll.
    ///
    /// - Parameter deadlineMoved: whether a deadline may have moved (the others claim what is due
    ///   and re-read the earliest deadline); `false` when only outbox rows were written (a start
    ///   due after the earliest: the others only follow the outbox, payload ``eventsOnlyPrefix``).
    func announce(deadlineMoved: Bool = true) throws(PostgresError) {
        let payload = (deadlineMoved ? "" : Self.eventsOnlyPrefix) + hostID
        _ = try withQueue { queue throws(PostgresError) in
            try queue.connection.queryPrepared(PostgresTimerQueue.notifySQL, [payload])
        }
    }

    /// The payload prefix of a wake-up that asks only to follow the outbox (``announce(deadlineMoved:)``).
    static let eventsOnlyPrefix = "events:"

    /// Takes the wake-ups that arrived and says whether they all ask only to follow the outbox.
    ///
    /// - Returns: `true` when there was at least one and none asked for a claim (another host's
    ///   start due later than the earliest, or its outbox rows alone); `false` otherwise, or when
    ///   the connection cannot be read (the full ``turn()`` deals with that).
    func wakeUpsAskOnlyToFollow() -> Bool {
        guard
            let wakeUps = try? withQueue({ queue throws(PostgresError) in
                try queue.connection.takeNotifications()
            }), !wakeUps.isEmpty
        else { return false }
        return wakeUps.allSatisfy { $0.payload.hasPrefix(Self.eventsOnlyPrefix) }
    }

    /// Follows the outbox only: what another host's requests wrote reaches this host's waits and
    /// subscribers, with no claim (no deadline moved).
    func followOnly() -> TurnOutput {
        do {
            return try followEvents()
        } catch {
            nextTurnAt = min(nextTurnAt, now + 250_000_000)
            return TurnOutput()
        }
    }

    /// Claims one batch of due timers and completes them in one statement, each under its fence
    /// (``PostgresTimerQueue/completeBatch(_:actionLeaseSeconds:)``); a full batch means more may
    /// be due, which the next turn takes after the requests waiting meanwhile.
    ///
    /// - Returns: how many completions were accepted, and whether the batch was full.
    @discardableResult
    func fireDue() throws(PostgresError) -> (accepted: Int, isFull: Bool) {
        let all = try withQueue { queue throws(PostgresError) in
            try queue.claimDue(limit: Self.claimBatch, leaseSeconds: Self.leaseSeconds)
        }
        guard !all.isEmpty else { return (0, false) }
        if claimHoldMicroseconds > 0 { usleep(claimHoldMicroseconds) }
        // Recurring timers fire one transaction each (the next elapse is computed between the lock
        // and the write); the others complete in one statement.
        let recurringAccepted = try fireRecurring(all.filter(\.isRecurring))
        let claims = all.filter { !$0.isRecurring }
        guard !claims.isEmpty else { return (recurringAccepted, all.count >= Self.claimBatch) }
        let stall = transactionStallMicroseconds
        let outcomes = try withQueue { queue throws(PostgresError) in
            guard stall > 0 else { return try queue.completeBatch(claims, actionLeaseSeconds: Self.leaseSeconds) }
            // Test-only: the same statement inside a transaction this host sits in before COMMIT.
            return try queue.connection.transaction { _ throws(PostgresError) in
                let outcomes = try queue.completeBatch(claims, actionLeaseSeconds: Self.leaseSeconds)
                usleep(stall)
                return outcomes
            }
        }
        var accepted = recurringAccepted
        for (claim, outcome) in zip(claims, outcomes) {
            figures.claims += 1
            if claim.isRescue { figures.rescues += 1 }
            figures.lateness.record(nanoseconds: Int64(claim.lateness * 1e9))
            switch outcome.completion {
            case .finished:
                figures.completions += 1
                figures.timerCounts.finished += 1
                accepted += 1
                if let finished = outcome.finished, finished.action != nil {
                    launch(id: claim.id, fence: claim.fence, finished)
                }
                log("timer \(claim.id) finished (fence \(claim.fence)\(claim.isRescue ? ", rescued" : ""))")
            case .nextStep:
                figures.completions += 1
                accepted += 1
            case .fenceLost:
                figures.fencesLost += 1
            }
        }
        return (accepted, all.count >= Self.claimBatch)
    }

    /// Deletes ended timers past the history limits with their outbox rows: once per
    /// ``historyPruneInterval`` while timers end (until the grace of the last end has passed), else
    /// once per ``pruneInterval`` for the age limit.
    func pruneHistory() throws(PostgresError) {
        let now = self.now
        guard now >= nextHistoryPruneAt else { return }
        let endsPending = now - lastEndSeenAt <= Int64((Self.historyGraceSeconds + 2) * 1e9)
        guard endsPending || now >= nextHistoryAgePruneAt else { return }
        nextHistoryPruneAt = now + Self.historyPruneInterval
        nextHistoryAgePruneAt = now + Self.pruneInterval
        let (limit, age) = (historyLimit, historyMaximumAge)
        let pruned = try withQueue { queue throws(PostgresError) in
            try queue.pruneHistory(limit: limit, maximumAgeSeconds: age, graceSeconds: Self.historyGraceSeconds)
        }
        if pruned.count >= 10_000 { lastEndSeenAt = now }  // a full batch: more to prune next time
    }

    /// Queues the on-finish runs of a timer this host's completion finished, with the idempotency
    /// key `TIMER_IDEMPOTENCY_KEY=ID:FENCE`: a host that dies after starting them and before its
    /// completion commits leaves the claim to be rescued, and the rescuer runs them again under
    /// the next fence (at least once across host death; docs/multihost.md).
    ///
    /// - Parameters:
    ///   - id: the timer.
    ///   - fence: the fence of the completion (or action claim) that gave this host the runs.
    ///   - finished: the timer's owner, name, duration and stored action.
    ///   - trigger: why the runs start (`finished`; a recurring timer's `elapsed` or `missed`).
    ///   - recordsStart: whether the start is recorded (`action_state`), as for an on-finish action
    ///     held pending; a recurring timer's elapse holds none (its firing released the claim).
    func launch(
        id: Int64, fence: Int64, _ finished: PostgresTimerQueue.FinishedTimer, trigger: TimerAction.Trigger = .finished,
        recordsStart: Bool = true
    ) {
        let label = "timer \(id)"
        guard let text = finished.action, let value = JSONValue(parsing: Array(text.utf8)) else { return }
        do {
            // The owner asked for it at the start; the rule (only the daemon's own uid) is checked
            // again here, since the completing host may run as another user.
            guard
                let action = try actionParser?(
                    value, RequestContext(uid: finished.owner, seesAll: false, waiter: 0))
            else { return }
            for kind in action.kinds {
                launches.append(
                    ActionLaunch(
                        timerID: UInt64(id), name: finished.name, duration: Double(finished.totalNanoseconds) / 1e9,
                        kind: kind, trigger: trigger, action: action,
                        extraEnvironment: ["TIMER_IDEMPOTENCY_KEY=\(id):\(fence)"], fence: recordsStart ? fence : nil))
                launches[launches.count - 1].firingFence = fence
            }
        } catch {
            log("warning: \(label): its on-finish action is not run by this host: \(error)")
        }
    }

    /// Records that the action runs of timer `id` under `fence` were started.
    func markActionStarted(id: Int64, fence: Int64) {
        do {
            let recorded = try withQueue { queue throws(PostgresError) in
                try queue.markActionStarted(id: id, fence: fence)
            }
            if !recorded { log("warning: timer \(id): its action was taken over by another host meanwhile") }
        } catch {
            log("warning: timer \(id): could not record its action's start: \(error); another host may run it again")
        }
    }

    /// Reads the outbox rows since ``cursor`` and turns them into wait replies and notifications.
    func followEvents() throws(PostgresError) -> TurnOutput {
        let cursor = self.cursor
        if waits.isEmpty && streams.isEmpty && !followsNewServer && queue?.connection.isConnected == true {
            // No one here to tell: the position, the last number and whether a timer ended suffice.
            let skimmed = try withQueue { queue throws(PostgresError) in try queue.skimEvents(after: cursor) }
            self.cursor = skimmed.cursor
            if let seq = skimmed.lastSeq { lastSeq = max(lastSeq, seq) }
            if skimmed.sawEnd { lastEndSeenAt = now }
            return TurnOutput()
        }
        // Read inside: taking the connection may be what reconnects to a new server.
        let (events, next) = try withQueue { queue throws(PostgresError) in
            try queue.followEvents(after: cursor, afterSeq: followsNewServer ? lastSeq : nil)
        }
        followsNewServer = false
        self.cursor = next
        var output = TurnOutput()
        for event in events {
            lastSeq = max(lastSeq, event.seq)
            if event.kind == "finished" || event.kind == "stopped" { lastEndSeenAt = now }
            route(event, into: &output)
        }
        return output
    }

    /// Answers the waits `event` ends and queues its notification for each subscription it matches.
    func route(_ event: SharedEventRow, into output: inout TurnOutput) {
        if event.kind == "finished" || event.kind == "stopped",
            let waiting = waitsByTimer.removeValue(forKey: event.timerID)
        {
            for waiter in waiting.sorted() {
                guard let wait = waits.removeValue(forKey: waiter) else { continue }
                release(connection: wait.connection, uid: wait.uid)
                let result: [UInt8]
                if let timer = event.timer, let json = try? Self.json(timer) {
                    result = TimerService.resultLine(id: wait.requestID, resultJSON: json)
                } else {
                    result = TimerService.errorLine(
                        id: wait.requestID, RPCError(CountdownError.timerNotFound(.id(UInt64(event.timerID)))))
                }
                output.wakeups.append((waiter, result))
            }
        }
        guard !streams.isEmpty, let timer = event.timer else { return }
        var line: [UInt8]?
        for (subscriber, stream) in streams.sorted(by: { $0.key < $1.key }) {
            guard stream.seesAll || stream.uid == timer.owner, stream.timerID.map({ $0 == timer.id }) ?? true,
                stream.kinds.map({ $0.contains(event.kind) }) ?? true
            else { continue }
            if line == nil { line = try? Self.notificationLine(event, timer: timer) }
            guard let line else { return }
            output.notifications.append(
                EventNotification(
                    subscriber: subscriber, connection: stream.connection, seq: UInt64(event.seq), line: line))
        }
    }

    /// Forgets the wait of a client that went away.
    func cancelWait(_ waiter: WaiterID) {
        guard let wait = waits.removeValue(forKey: waiter) else { return }
        waitsByTimer[wait.timerID]?.remove(waiter)
        if waitsByTimer[wait.timerID]?.isEmpty == true { waitsByTimer[wait.timerID] = nil }
        release(connection: wait.connection, uid: wait.uid)
    }

    /// Ends a subscription (unsubscribed, or its client went away).
    func cancelSubscription(_ subscriber: SubscriptionRegistry.SubscriberID) {
        guard let stream = streams.removeValue(forKey: subscriber) else { return }
        release(connection: stream.connection, uid: stream.uid)
    }

    /// Refuses one more wait or subscription past ``waitLimits`` (the one-host daemon's rule and
    /// messages, `-32004`), else counts it.
    func admit(_ context: RequestContext) throws {
        if let refusal = waitLimits.refusal(
            connectionWaits: waitsPerConnection[context.connection, default: 0],
            userWaits: waitsPerUser[context.uid, default: 0], context: context)
        {
            throw refusal
        }
        waitsPerConnection[context.connection, default: 0] += 1
        waitsPerUser[context.uid, default: 0] += 1
    }

    /// Uncounts a wait or subscription that ended.
    func release(connection: UInt64, uid: UInt32) {
        let onConnection = waitsPerConnection[connection, default: 1] - 1
        waitsPerConnection[connection] = onConnection > 0 ? onConnection : nil
        let ofUser = waitsPerUser[uid, default: 1] - 1
        waitsPerUser[uid] = ofUser > 0 ? ofUser : nil
    }
}
