import Countdown
import Foundation
import TimerPostgres
import TimerProtocol
import TimerService
import TimerSystem

/// The timers of a PostgreSQL schema that several timerd hosts serve (`--shared`,
/// docs/multihost.md): the database is their only copy and its clock decides every deadline.
///
/// Requests on timers are statements of ``SharedHost`` (each its own transaction, committed before
/// its reply: nothing waits for the loop's commit); the envelope, `daemon.ping` and `daemon.reload`
/// go to a ``TimerService`` whose engine stays empty. Due timers are claimed under a lease and a
/// fence at ``nextWake`` or when another host's `NOTIFY timerd_wake` makes the database socket
/// readable; events come from the outbox, so waits and subscriptions on this host hear of what
/// another host did.
final class SharedBackend: TimerBackend {
    let host: SharedHost
    /// The envelope and the daemon's own methods; its engine holds no timer.
    var service: TimerService
    /// Notifications in the order they were produced (the host's and the service's).
    var notifications: [EventNotification] = []

    /// Wraps a connected host.
    ///
    /// - Parameters:
    ///   - host: the connection to the shared schema.
    ///   - service: the router of the methods the host does not serve (its engine stays empty).
    init(host: SharedHost, service: TimerService) {
        self.host = host
        self.service = service
        let parser = service
        host.actionParser = { value, context in try parser.action(value, context: context) }
        host.localTimeResolver = service.localTimeResolver
        host.recurrenceReader = { params in try parser.recurrenceRequest(params) }
        host.systemTimeZone = service.engine.systemTimeZone
    }

    /// Moves the service's notifications behind the host's, keeping their order.
    private func collectServiceNotifications() {
        guard service.hasPendingNotifications else { return }
        notifications += service.takeNotifications()
    }

    // MARK: Requests

    func handle(_ line: [UInt8], context: RequestContext) -> ServiceOutcome {
        guard let shared = host.handle(line: line, context: context) else {
            let outcome = service.handle(line: line, context: context)
            collectServiceNotifications()
            return outcome
        }
        // Each statement committed before this returns: the reply waits for nothing.
        var outcome = ServiceOutcome(reply: shared.reply, requestID: shared.requestID, event: shared.event)
        outcome.method = shared.method
        outcome.newSubscription = shared.newSubscription
        outcome.endedSubscription = shared.endedSubscription
        outcome.listing = shared.listing
        outcome.requiresDurability = shared.requiresDurability
        outcome.isReplyDeferred = shared.isReplyDeferred
        if !shared.notifications.isEmpty { notifications += shared.notifications }
        return outcome
    }

    func isWaiting(_ waiter: WaiterID) -> Bool { host.waits[waiter] != nil || service.isWaiting(waiter) }

    func hasSubscription(_ subscriber: SubscriptionRegistry.SubscriberID) -> Bool {
        host.streams[subscriber] != nil || service.hasSubscription(subscriber)
    }

    func cancelWait(_ waiter: WaiterID) {
        host.cancelWait(waiter)
        service.cancelWait(waiter)
    }

    func cancelSubscription(_ subscriber: SubscriptionRegistry.SubscriberID) {
        host.cancelSubscription(subscriber)
        service.cancelSubscription(subscriber)
    }

    /// Writes the next part of a streamed `timer.list` from rows read as many at a time as the
    /// rest of the part's budget holds (at the size of the rows written so far; at most
    /// ``listingBatch``), each as of its read: a timer removed meanwhile is left out, as on one
    /// host. A listing's ids were read under its requester's owner filter, so the rows are read by
    /// id alone.
    func writeListing(_ listing: inout TimerListing, into bytes: inout [UInt8], upTo budget: Int) {
        var rows: [Int64: SharedTimerRow] = [:]
        var failure: (any Error)?
        var written = (count: 0, bytes: 0)
        TimerService.writeListing(&listing, into: &bytes, upTo: budget) { id, writer in
            let key = Int64(clamping: id)
            if rows[key] == nil, failure == nil {
                let rowBytes = written.count == 0 ? 512 : max(1, written.bytes / written.count)
                let wanted = min(Self.listingBatch, max(1, (budget - writer.bytes.count) / rowBytes + 1))
                do {
                    let batch = try host.withQueue { queue throws(PostgresError) in
                        try queue.timers(fromID: key, limit: wanted)
                    }
                    for row in batch { rows[row.id] = row }
                } catch {
                    failure = error
                }
            }
            let before = writer.bytes.count
            guard let row = rows[key], (try? SharedHost.info(row).write(to: &writer)) != nil else { return false }
            written = (written.count + 1, written.bytes + writer.bytes.count - before)
            return true
        }
        if let failure { host.log("warning: a timer.list left out timers it could not read: \(failure)") }
    }

    /// The most rows one read of a streamed listing takes.
    static let listingBatch = 128

    // MARK: Events

    var hasPendingNotifications: Bool { !notifications.isEmpty || service.hasPendingNotifications }

    func takeNotifications() -> [EventNotification] {
        collectServiceNotifications()
        guard !notifications.isEmpty else { return [] }
        defer { notifications = [] }
        return notifications
    }

    // MARK: Firing

    /// The next claim, on the host's own boot-time clock (the test offset taken off).
    var nextWake: Int64? { host.nextTurnAt - host.clockOffset }

    /// Claims are turns of their own (``fireDue()``), never slices of another turn.
    var sliceDeadline: Int64? { nil }

    /// Nothing to do: the host claims due timers in batches of its own, once per turn.
    func beginTurn() {}

    /// Claims and completes what is due, follows the outbox, and answers the waits it ends.
    /// None: shared mode refuses wake-marked timers (`SharedHost.startParameters`).
    func wakeDeadlines() -> WakeAlarmBook.Deadlines { WakeAlarmBook.Deadlines() }

    func fireDue() -> BackendFiring {
        // Woken by another host's outbox rows alone, before this host's next claim: follow them only.
        let output =
            host.now < host.nextTurnAt && host.wakeUpsAskOnlyToFollow() ? host.followOnly() : host.turn()
        if !output.notifications.isEmpty { notifications += output.notifications }
        return BackendFiring(endings: [], wakeups: output.wakeups)
    }

    /// After the requests of a turn changed timers: follows the outbox at once, so this host's own
    /// waits and subscribers hear of the change in the same turn.
    func endOfTurn() -> [(waiter: WaiterID, reply: [UInt8])] {
        // The turn's starts are written and committed first: the outbox rows followed below
        // include them.
        host.flushPendingStarts()
        host.settleStartBatch()
        guard host.changedThisTurn else { return [] }
        host.changedThisTurn = false
        let deadlineMoved = host.deadlineMovedThisTurn
        host.deadlineMovedThisTurn = false
        try? host.announce(deadlineMoved: deadlineMoved)
        // A new deadline may be the earliest.
        if deadlineMoved { host.nextTurnAt = min(host.nextTurnAt, host.now) }
        guard let output = try? host.followEvents() else { return [] }
        if !output.notifications.isEmpty { notifications += output.notifications }
        return output.wakeups
    }

    var watchedDescriptor: (socket: Int32, generation: Int)? {
        (host.socket, host.connectionGeneration)
    }

    // MARK: Durability

    /// The turn's starts share one transaction (SharedHost+StartBatch.swift); every other change
    /// is committed by its own statement before its reply.
    var hasChangesToCommit: Bool { host.startBatch != .idle || !host.pendingStarts.isEmpty }

    var commitRetryAt: Int64? { nil }

    /// Commits the turn's transaction of starts (usually already committed by ``endOfTurn()``) and
    /// says what became of them: refused starts' held replies become errors.
    func commit(hasWaitingReplies: Bool, now: Int64) -> CommitResult { host.takeStartBatchVerdict() }

    func takeDeferredReplies() -> [WaiterID: DeferredReply] { host.takeDeferredReplies() }

    func compactIfDue(isQuiet: Bool) {}

    func storeWake(now: Int64) -> Int64? { nil }

    func close() throws {}

    var location: String { "postgresql (shared)" }

    // MARK: Actions

    /// The runs to start now, each recorded as running first (`timer.runs`).
    func takeStartableActions() -> [ActionLaunch] {
        guard !host.launches.isEmpty else { return [] }
        defer { host.launches.removeAll() }
        host.recordRunStarts(host.launches)
        return host.launches
    }

    /// Records each timer's start once (a timer with both actions has two runs under one fence).
    func actionsStarted(_ launches: [ActionLaunch]) {
        var started: [(id: UInt64, fence: Int64)] = []
        for launch in launches {
            guard let fence = launch.fence else { continue }
            if started.last.map({ $0 != (launch.timerID, fence) }) ?? true { started.append((launch.timerID, fence)) }
        }
        for run in started { host.markActionStarted(id: Int64(clamping: run.id), fence: run.fence) }
    }

    /// Keeps the output in this host's memory for `timer.runs`, until the outcome is recorded.
    func keepActionOutput(_ launch: ActionLaunch, output: CapturedOutput) {
        host.keepRunOutput(launch, output: output)
    }

    /// Records the outcome in the run's row with its `action` outbox row (the event reaches
    /// subscribers on every host from the outbox).
    func recordActionOutcome(_ launch: ActionLaunch, outcome: ActionRun.Outcome)
        -> (recorded: Bool, wakeups: [(waiter: WaiterID, reply: [UInt8])])
    {
        (host.recordRunEnd(launch, outcome: outcome), [])
    }

    // MARK: Clocks and configuration

    /// The database's clock decides every deadline: this host's wall clock moves none.
    func wallClockChanged() -> Int { service.engine.wallClockChanged() }

    var systemTimeZone: TimeZone { service.engine.systemTimeZone }

    /// New calendar timers that name no zone are read in `zone`; the shared timers started before
    /// keep the zone they were started in (each host has its own system zone).
    func systemTimeZoneChanged(to zone: TimeZone) -> Int {
        host.systemTimeZone = zone
        return service.engine.systemTimeZoneChanged(to: zone)
    }

    func configure(_ config: DaemonConfig) {
        service.quota = config.maximumTimersPerUser
        host.quota = config.maximumTimersPerUser
        host.waitLimits = service.waitLimits
        // Ended rows past these are pruned with their outbox rows (docs/multihost.md).
        host.historyLimit = config.historyLimit
        host.historyMaximumAge = config.historyMaxAgeSeconds
    }

    /// The timers are in the database, which this host cannot see as empty: it stays.
    var canTellIdle: Bool { false }

    var liveCount: Int { 0 }

    var statusLine: String { SystemdLink.statusLine(of: service.engine) }

    // MARK: Metrics

    /// The counts of the whole schema (every host's timers), this host's own counters.
    func metricFigures(includingTimers: Bool) -> BackendFigures {
        host.metricFigures(includingTimers: includingTimers)
    }
}
