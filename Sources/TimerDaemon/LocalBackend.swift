import Countdown
import Foundation
import TimerService
import TimerStorage
import TimerSystem

/// The timers of one timerd: the engine in memory, behind ``TimerService``'s router, saved by a
/// `TimerStore` (the state file, memory, or a PostgreSQL schema this timerd alone writes).
///
/// A request changes the engine at once; the loop's ``commit(hasWaitingReplies:now:)`` saves the
/// turn's changes (one `fsync` for every request of the turn) before any reply acknowledging them
/// goes out. A refused commit (a full disk) rebuilds the engine from the store's durable state.
final class LocalBackend: TimerBackend {
    /// The router and the engine.
    var service: TimerService
    let store: any TimerStore
    let log: (String) -> Void
    /// The engine changed since the last commit.
    var stateIsDirty = false
    /// A request of this turn changed the state: its reply waits for an `fsync`.
    var syncIsNeeded = false
    /// After a refused commit: when to try again (boot-time ns) and the wait after a next failure.
    var commitRetry: (at: Int64, backoff: Int64)?
    /// On-finish runs recorded as running, started once that record is durable.
    var actionsAwaitingCommit: [TimerEngine.DueAction] = []
    /// On-finish runs whose record is durable, for the action runner.
    var startableActions: [TimerEngine.DueAction] = []
    /// The wake-marked timers, for the alarm timers (``wakeDeadlines()``).
    var wakeBook: WakeAlarmBook

    /// The first wait before retrying a refused commit, in nanoseconds (250 ms); it doubles after
    /// each further refusal up to 10 s.
    static let commitFirstBackoff: Int64 = 250_000_000
    /// The longest wait between retries of a refused commit: 10 s.
    static let commitMaximumBackoff: Int64 = 10_000_000_000

    /// Loads the store's timers into an engine and commits what the restore changed (timers that
    /// ended while no timerd ran) synchronously.
    ///
    /// - Parameters:
    ///   - store: where the timers are kept.
    ///   - clock: the engine's clocks; `nil` for the store's deadline clock or the system's
    ///     (tests pass a `ManualClock`).
    ///   - config: history limits and the quota.
    ///   - systemZone: the zone calendar timers follow when they name none.
    ///   - log: where log lines go.
    ///   - configureService: sets the service's resolvers and uids before the first request.
    /// - Returns: the backend and the timers that ended while timerd was down.
    /// - Throws: the store's error when it cannot be loaded or the restore cannot be saved.
    static func open(
        store: any TimerStore, clock: (any CountdownClock)? = nil, config: DaemonConfig, systemZone: TimeZone,
        log: @escaping (String) -> Void, configureService: (inout TimerService) -> Void
    ) throws -> (LocalBackend, missed: [TimerEnding]) {
        let saved = try store.load()
        var engine = TimerEngine(
            clock: clock ?? store.deadlineClock ?? SystemClock(), historyLimit: config.historyLimit,
            historyMaximumAge: config.historyMaxAgeSeconds)
        for note in saved.notes { log(note) }
        // Timers that ended while no timerd ran become the first `missed` events (seq 1, 2 …),
        // which a subscriber with afterSeq 0 replays (docs/protocol.md, "Events").
        engine.eventRecording = .buffered
        // Calendar timers that follow the system zone read it from here (re-timed at the restore
        // when it changed while timerd was down, and when the file changes; docs/calendar.md).
        engine.systemTimeZone = systemZone
        let missed = engine.restore(saved.snapshot, sameBoot: saved.isSameBoot)
        // A run recorded as started by a daemon that then stopped is not run again (at most once).
        for (id, kind) in engine.interruptUnfinishedActionRuns() {
            log(
                "warning: the \(kind.rawValue) action of timer \(id) was due when timerd stopped and its result is not known (it may have run); not run again"
            )
        }
        // Runs of timers missed while down are recorded by this synchronous commit, then started
        // by the daemon's first turn.
        let due = engine.takeDueActions()
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        var service = TimerService(engine: engine, quota: config.maximumTimersPerUser, pid: getpid())
        configureService(&service)
        let backend = LocalBackend(service: service, store: store, log: log)
        backend.startableActions = due
        return (backend, missed)
    }

    init(service: TimerService, store: any TimerStore, log: @escaping (String) -> Void) {
        self.service = service
        self.store = store
        self.log = log
        self.wakeBook = WakeAlarmBook(engine: service.engine)
    }

    // MARK: Requests

    func handle(_ line: [UInt8], context: RequestContext) -> ServiceOutcome {
        let outcome = service.handle(line: line, context: context)
        if outcome.changedState { stateIsDirty = true }
        if outcome.requiresDurability { syncIsNeeded = true }
        return outcome
    }

    func isWaiting(_ waiter: WaiterID) -> Bool { service.isWaiting(waiter) }

    func hasSubscription(_ subscriber: SubscriptionRegistry.SubscriberID) -> Bool {
        service.hasSubscription(subscriber)
    }

    func cancelWait(_ waiter: WaiterID) { service.cancelWait(waiter) }

    func cancelSubscription(_ subscriber: SubscriptionRegistry.SubscriberID) {
        service.cancelSubscription(subscriber)
    }

    func writeListing(_ listing: inout TimerListing, into bytes: inout [UInt8], upTo budget: Int) {
        service.writeListing(&listing, into: &bytes, upTo: budget)
    }

    // MARK: Events

    var hasPendingNotifications: Bool { service.hasPendingNotifications }

    func takeNotifications() -> [EventNotification] { service.takeNotifications() }

    // MARK: Firing

    var nextWake: Int64? { service.engine.nextDeadline?.nanoseconds }

    var sliceDeadline: Int64? { service.engine.nextDeadline?.nanoseconds }

    func beginTurn() { service.beginTurn() }

    func wakeDeadlines() -> WakeAlarmBook.Deadlines { wakeBook.deadlines(in: service.engine) }

    func fireDue() -> BackendFiring {
        let (endings, wakeups) = service.fireDueTimers()
        // A recurring timer's elapse changes its record (count, last elapse, next elapse) without
        // ending it: saved too, so that a restart neither rings that elapse again nor loses the count.
        if !endings.isEmpty || service.engine.hasChanges { stateIsDirty = true }
        collectDueActions()
        return BackendFiring(endings: endings, wakeups: wakeups)
    }

    func endOfTurn() -> [(waiter: WaiterID, reply: [UInt8])] { [] }

    var watchedDescriptor: (socket: Int32, generation: Int)? { nil }

    // MARK: Durability

    var hasChangesToCommit: Bool { stateIsDirty && commitRetry == nil }

    var commitRetryAt: Int64? { stateIsDirty ? commitRetry?.at : nil }

    /// Moves the engine's due runs to ``actionsAwaitingCommit``; the next commit is then synchronous.
    private func collectDueActions() {
        let due = service.engine.takeDueActions()
        guard !due.isEmpty else { return }
        actionsAwaitingCommit += due
        stateIsDirty = true
        syncIsNeeded = true
    }

    /// Commits the turn's changes (one fsync for every request of the turn; none when timers only
    /// finished on their own: ``CommitDurability/mayBatch``). When the store refuses (a full disk),
    /// the engine is rebuilt from the store's durable state (``rollBack(after:now:)``) and the
    /// commit is retried with a back-off until it succeeds (docs/durability.md).
    func takeDeferredReplies() -> [WaiterID: DeferredReply] { [:] }

    func commit(hasWaitingReplies: Bool, now: Int64) -> CommitResult {
        collectDueActions()
        guard stateIsDirty, hasWaitingReplies || now >= (commitRetry?.at ?? 0) else { return .nothing }
        do {
            try store.commit(
                service.engine.takeChanges(), durability: syncIsNeeded ? .synchronous : .mayBatch,
                snapshot: { service.engine.snapshot })
            stateIsDirty = false
            syncIsNeeded = false
            if commitRetry != nil { log("saving state to \(store.location) works again") }
            commitRetry = nil
            startableActions += actionsAwaitingCommit
            actionsAwaitingCommit.removeAll()
            return .committed
        } catch {
            // The runs were not recorded: the engine is rebuilt from the durable state, which
            // schedules them again when their timers end again.
            actionsAwaitingCommit.removeAll()
            return rollBack(after: error, now: now)
        }
    }

    /// Undoes what the store refused: rebuilds the engine from the store's durable state (so the
    /// refused changes are gone from memory and no later compaction can write them) and keeps the
    /// next id from going back.
    ///
    /// Why a rebuild from the store rather than an undo log in the engine: a refusal is rare (a
    /// full or failing disk), and this costs nothing on the hot path of a start (no pre-image is
    /// copied per change), while the store already knows exactly what is durable.
    ///
    /// - Complexity: O(n log n) in the timers, only when a commit was refused.
    private func rollBack(after error: any Error, now: Int64) -> CommitResult {
        let backoff = commitRetry.map { min($0.backoff * 2, Self.commitMaximumBackoff) } ?? Self.commitFirstBackoff
        commitRetry = (now + backoff, backoff)
        do {
            var durable = try store.durableState()
            durable.nextID = max(durable.nextID, service.engine.snapshot.nextID)
            _ = service.engine.restore(durable, sameBoot: true)
            wakeBook = WakeAlarmBook(engine: service.engine)
            stateIsDirty = true
            return .refused(message: "\(error)")
        } catch let readError {
            log(
                "error: could not save state to \(store.location): \(error), nor read what is saved: "
                    + "\(readError); closing this turn's connections")
            return .lost
        }
    }

    func compactIfDue(isQuiet: Bool) {
        do {
            try store.compactIfDue(isQuiet: isQuiet, snapshot: { service.engine.snapshot })
        } catch {
            log("error: could not compact the state in \(store.location): \(error); retrying with a back-off")
        }
    }

    func storeWake(now: Int64) -> Int64? { store.nextWake(now: now) }

    func close() throws { try store.close(service.engine.snapshot) }

    var location: String { store.location }

    // MARK: Actions

    func takeStartableActions() -> [ActionLaunch] {
        guard !startableActions.isEmpty else { return [] }
        defer { startableActions.removeAll() }
        return startableActions.map(ActionLaunch.init)
    }

    func actionsStarted(_ launches: [ActionLaunch]) {}

    func recordActionOutcome(_ launch: ActionLaunch, outcome: ActionRun.Outcome)
        -> (recorded: Bool, wakeups: [(waiter: WaiterID, reply: [UInt8])])
    {
        let result = service.recordActionOutcome(timer: launch.timerID, kind: launch.kind, outcome: outcome)
        if result.recorded {
            // Synchronous, like the run's start: a crash after the action event must not leave
            // the run recorded as running ("its result is not known" at the next start).
            stateIsDirty = true
            syncIsNeeded = true
        }
        return result
    }

    // MARK: Clocks and configuration

    func wallClockChanged() -> Int {
        let moved = service.engine.wallClockChanged()
        // Countdowns' wall-clock anchors moved too (saved, so that a reboot carries them over right).
        if service.engine.hasChanges { stateIsDirty = true }
        return moved
    }

    var systemTimeZone: TimeZone { service.engine.systemTimeZone }

    func systemTimeZoneChanged(to zone: TimeZone) -> Int {
        let moved = service.engine.systemTimeZoneChanged(to: zone)
        if service.engine.hasChanges { stateIsDirty = true }
        return moved
    }

    func configure(_ config: DaemonConfig) {
        service.engine.historyLimit = config.historyLimit
        service.engine.historyMaximumAge = config.historyMaxAgeSeconds
        service.quota = config.maximumTimersPerUser
        service.ringRule = TimerAlarm.Ring(interval: config.ringIntervalSeconds, limit: config.ringLimitSeconds)
        service.snoozeSeconds = config.snoozeSeconds
        service.soundPlayers = config.soundPlayer.map { [$0] } ?? DaemonConfig.soundPlayers
    }

    var canTellIdle: Bool { true }

    var liveCount: Int { service.engine.liveCount }

    var statusLine: String { SystemdLink.statusLine(of: service.engine) }

    // MARK: Metrics

    func metricFigures(includingTimers: Bool) -> BackendFigures {
        let engine = service.engine
        var figures = BackendFigures()
        figures.timersByState = (engine.runningCount, engine.liveCount - engine.runningCount)
        figures.timerCounts = service.timerCounts
        figures.lateness = engine.lateness.histogram
        figures.store = store.figures
        if includingTimers {
            figures.timerElapses = engine.namedNextElapses().map {
                MetricsReport.TimerElapse(owner: $0.owner, name: $0.name, nextElapse: $0.at.timeIntervalSince1970)
            }
        }
        return figures
    }
}
