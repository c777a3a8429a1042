import Countdown
import Foundation
import TimerService
import TimerStorage

/// Where the timers live, as the daemon's loop sees them: the one seam between the loop (sockets,
/// replies, waits' connections, event fan-out, the action runner, systemd) and the state.
///
/// Two implementations: ``LocalBackend`` (the engine in memory, saved by a `TimerStore`: the state
/// file, memory, or one PostgreSQL schema per timerd) and ``SharedBackend`` (a PostgreSQL schema
/// several hosts serve, which is the only copy of the timers). The loop calls the same methods
/// whichever it has; nothing in the loop asks which one it is.
///
/// Every method runs on the loop's thread. Boot-time instants are nanoseconds of `CLOCK_BOOTTIME`
/// as ``TimerSystem/Syscall/bootTimeNanoseconds()`` reads them.
protocol TimerBackend: AnyObject {
    // MARK: Requests

    /// Runs one request line (without its newline) and says what it produced. A change that the
    /// backend must save before the reply goes out is marked `requiresDurability`; the reply then
    /// waits for ``commit(hasWaitingReplies:now:)``.
    func handle(_ line: [UInt8], context: RequestContext) -> ServiceOutcome
    /// Whether `waiter` is a pending `timer.wait` (its reply comes later, as a wake-up).
    func isWaiting(_ waiter: WaiterID) -> Bool
    /// Whether `subscriber` is an open `timer.subscribe`.
    func hasSubscription(_ subscriber: SubscriptionRegistry.SubscriberID) -> Bool
    /// Forgets the pending wait of a client that went away.
    func cancelWait(_ waiter: WaiterID)
    /// Ends a subscription (unsubscribed, or its client went away).
    func cancelSubscription(_ subscriber: SubscriptionRegistry.SubscriberID)
    /// Writes the next part of a streamed `timer.list` (at most `budget` bytes past one timer).
    func writeListing(_ listing: inout TimerListing, into bytes: inout [UInt8], upTo budget: Int)

    // MARK: Events

    /// Whether notifications wait for ``takeNotifications()``.
    var hasPendingNotifications: Bool { get }
    /// Takes the notifications produced so far, in order; the loop sends them after its commit.
    func takeNotifications() -> [EventNotification]

    // MARK: Firing

    /// The boot-time instant the loop's timer is armed for (the next deadline, or the next claim
    /// of due timers), or `nil` for none.
    var nextWake: Int64? { get }
    /// The boot-time instant of the next deadline the loop may fire between two slices of a turn
    /// (``fireDue()``), or `nil` when none is known or the backend fires only at ``nextWake``.
    var sliceDeadline: Int64? { get }
    /// The earliest deadlines of the live wake-marked timers (`--wake`), per alarm clock, which the
    /// loop arms its alarm timers for at the top of each turn.
    func wakeDeadlines() -> WakeAlarmBook.Deadlines
    /// Fires what is due now: the timers that ended and the waits they answered; their
    /// notifications wait for ``takeNotifications()``.
    func fireDue() -> BackendFiring
    /// Starts a turn of the loop: the firings of one turn, however many requests and slices it
    /// has, are at most one slice of the backend's (a backlog waits for the next turns).
    func beginTurn()
    /// The end of the requests of a turn, before its commit: what other writers did meanwhile
    /// (followed from the shared store's outbox) reaches this host's waits and subscribers.
    ///
    /// - Returns: the waits answered.
    func endOfTurn() -> [(waiter: WaiterID, reply: [UInt8])]
    /// A descriptor the loop watches for the backend (readable starts ``fireDue()``) with a number
    /// that changes when the descriptor does; `nil` for none.
    var watchedDescriptor: (socket: Int32, generation: Int)? { get }

    // MARK: Durability

    /// Whether changes wait for ``commit(hasWaitingReplies:now:)``, and no refused commit's
    /// back-off holds them.
    var hasChangesToCommit: Bool { get }
    /// When a refused commit is tried again (boot-time ns), while changes wait; `nil` otherwise.
    var commitRetryAt: Int64? { get }
    /// Saves the changes made since the last commit.
    ///
    /// - Parameters:
    ///   - hasWaitingReplies: replies wait for this commit (it is tried even during a back-off).
    ///   - now: the boot-time clock, nanoseconds.
    /// - Returns: what happened; a refusal has undone the changes.
    func commit(hasWaitingReplies: Bool, now: Int64) -> CommitResult

    /// The replies the backend wrote after their requests returned
    /// (``ServiceOutcome/isReplyDeferred``), by the request's waiter; each is taken once. Call it
    /// after ``commit(hasWaitingReplies:now:)``, which writes them.
    ///
    /// - Returns: the replies, empty for a backend that defers none.
    func takeDeferredReplies() -> [WaiterID: DeferredReply]
    /// Lets the store compact when it is due (`isQuiet`: nothing is about to be served or fired).
    func compactIfDue(isQuiet: Bool)
    /// The store's own next wake-up (a put-off compaction), boot-time ns, or `nil`.
    func storeWake(now: Int64) -> Int64?
    /// Saves the final state when the daemon stops.
    ///
    /// - Throws: the store's error.
    func close() throws
    /// Where the timers are kept, for log lines (`/home/u/.local/state/timerd`, …).
    var location: String { get }

    // MARK: Actions

    /// On-finish runs that may start now (their `running` record is durable), taken once each.
    func takeStartableActions() -> [ActionLaunch]
    /// Records that the runs taken from ``takeStartableActions()`` were started.
    func actionsStarted(_ launches: [ActionLaunch])
    /// Keeps a run's captured output for `timer.runs`, before ``recordActionOutcome(_:outcome:)``
    /// of the same run (in memory, on either backend: Daemon+ActionOutput.swift, SharedHost+ActionRuns.swift).
    func keepActionOutput(_ launch: ActionLaunch, output: CapturedOutput)
    /// Records how a run ended.
    ///
    /// - Returns: whether the timer still held the run, and the waits the event answered.
    func recordActionOutcome(_ launch: ActionLaunch, outcome: ActionRun.Outcome)
        -> (recorded: Bool, wakeups: [(waiter: WaiterID, reply: [UInt8])])

    // MARK: Clocks and configuration

    /// The wall clock was set: timers with an absolute end move. Returns how many moved.
    func wallClockChanged() -> Int
    /// The zone calendar timers follow when they name none.
    var systemTimeZone: TimeZone { get }
    /// The system zone changed: calendar timers that follow it are re-timed. Returns how many.
    func systemTimeZoneChanged(to zone: TimeZone) -> Int
    /// Applies a (re)loaded configuration: history limits, quotas, wait limits.
    func configure(_ config: DaemonConfig)
    /// Whether the daemon may exit when idle (`--exit-when-idle`): the backend can tell that no
    /// timer is live.
    var canTellIdle: Bool { get }
    /// How many timers are live here (0 when ``canTellIdle`` is false).
    var liveCount: Int { get }
    /// The systemd `STATUS=` line: `3 running, 1 paused, next ends in 4m12s`.
    var statusLine: String { get }

    // MARK: Metrics

    /// The backend's figures for the daemon's metrics (docs/metrics.md), read on each scrape.
    ///
    /// - Parameter includingTimers: also list the named running timers' next elapses (the
    ///   opt-in per-timer series).
    /// - Returns: the figures; the shared backend reads its counts from the database.
    func metricFigures(includingTimers: Bool) -> BackendFigures
}

/// What a backend reports for the daemon's metrics (``TimerBackend/metricFigures(includingTimers:)``).
struct BackendFigures {
    /// Live timers per state, or `nil` when they could not be counted (a database error).
    var timersByState: (running: Int, paused: Int)?
    /// Timers started, finished, missed and stopped since start-up.
    var timerCounts = TimerCounts()
    /// How late timers were fired.
    var lateness = LatencyHistogram(upperBounds: LatencyHistogram.latencyBounds)
    /// The store's own figures.
    var store = StoreFigures()
    /// A shared store's figures, `nil` for a store of one host.
    var shared: MetricsReport.SharedFigures?
    /// The named running timers' next elapses, `nil` when not asked for or not read.
    var timerElapses: [MetricsReport.TimerElapse]?
}

/// What ``TimerBackend/fireDue()`` did.
struct BackendFiring {
    /// Timers that ended, for the log.
    var endings: [TimerEnding] = []
    /// Waits answered.
    var wakeups: [(waiter: WaiterID, reply: [UInt8])] = []
}

/// What ``TimerBackend/commit(hasWaitingReplies:now:)`` did.
enum CommitResult {
    /// Nothing to save (or a back-off holds the retry).
    case nothing
    /// Saved.
    case committed
    /// The store refused; the changes were undone. The replies that acknowledged them become
    /// `-32603` errors with `message`.
    case refused(message: String)
    /// The store refused and its durable state could not be read either: the connections of the
    /// turn are closed.
    case lost
}

/// The reply of a request whose reply the backend wrote after the request returned
/// (``ServiceOutcome/isReplyDeferred``).
enum DeferredReply {
    /// The reply line; `event` is the change's log line (the daemon adds `uid`), `nil` when the
    /// request changed nothing.
    case reply([UInt8], event: String?, uid: UInt32)
    /// Whether the change was made is unknown (the database connection broke during its
    /// statement): the request's connection is closed, as after a commit whose outcome is unknown.
    case lost
}
