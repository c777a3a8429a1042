import Countdown
import Foundation
import Glibc
import TimerModel
import TimerProtocol
import TimerService
import TimerStorage
import TimerSystem

/// The daemon: one event loop on one thread that owns the engine, the sockets and the state file.
///
/// Everything happens on `epoll`: the listening socket, the clients, one `timerfd` on
/// `CLOCK_BOOTTIME` armed for the earliest deadline (no periodic tick), and a self-pipe for
/// signals. Each turn of the loop reads every ready client, runs every complete request line,
/// saves the state once if any request changed it (so concurrent requests share one `fsync`),
/// and only then sends the replies: a change is durable before it is acknowledged.
/// A slow or silent client blocks nobody: sockets are non-blocking and each has its own buffers,
/// each user has a share of the connections, and an idle connection is closed (docs/fairness.md).
///
/// This file is the composition root: ``init(options:log:)`` starts the parts in order
/// (configuration, state lock, store, listener, signals, timers) and ``run()`` stops them in
/// reverse (stop accepting, close the clients and their waits, save the state). The loop and the
/// request handling are in `Daemon+EventLoop.swift`; the clients' I/O in `Daemon+ConnectionIO.swift`.
public final class Daemon {
    static let listenerToken: UInt64 = 0
    static let timerToken: UInt64 = 1
    static let signalToken: UInt64 = 2
    static let wallClockToken: UInt64 = 3
    /// The PostgreSQL connection's socket in shared mode (notifications on `timerd_wake`).
    static let sharedSocketToken: UInt64 = 4

    let options: DaemonOptions
    let socketPath: String
    let store: any TimerStore
    let log: (String) -> Void
    var service: TimerService
    /// Shared mode (`--shared`, issue 14): the requests and firings go to PostgreSQL; `nil` otherwise.
    let shared: SharedHost?
    /// The ``SharedHost/connectionGeneration`` whose socket epoll watches (0: none yet).
    var sharedSocketGeneration = 0
    let epoll: Epoll
    let bootTimer: BootTimer
    let wallClock: WallClockWatch
    /// Watches the system zone's file, so that calendar timers that follow the system zone are
    /// re-timed when it changes; `nil` when its directory cannot be watched (logged).
    let zoneWatch: ZoneFileWatch?
    /// Where the system zone is read from when `TZ` is unset (`/etc/localtime`, or `TIMERD_LOCALTIME`).
    let zonePath: String
    /// The daemon's `TZ`, which, when set, fixes the system zone as it does for the C library.
    let zoneTZ: String?
    let signals: SignalPipe
    /// The listening socket; `nil` once the daemon stopped accepting.
    var listener: FileDescriptor?
    var connections: [UInt64: Connection] = [:]
    /// Open connections per peer uid (absent when 0), for the per-user shares.
    var connectionsPerUID: [UInt32: Int] = [:]
    /// Bytes of unsent event notifications held per peer uid (absent when 0), for the bound per
    /// user (``Daemon/eventBytesPerUser``, Daemon+Events.swift).
    var eventBytesPerUID: [UInt32: Int] = [:]
    /// Bytes that closed connections held since the C library's heap was last trimmed
    /// (``Daemon/trimHeapIfDue()``).
    var releasedSinceTrim = 0
    /// Where ``produceListings()`` starts this turn, so that no listing is always served last.
    var listingRotation = 0
    var waiterConnections: [WaiterID: UInt64] = [:]
    var nextToken: UInt64 = 16
    var nextWaiter: WaiterID = 1
    var armedDeadline: Int64?
    var idleSince: Int64
    var isRunning = true
    var stateIsDirty = false
    /// A request of this turn changed the state: its reply waits for an `fsync`.
    var syncIsNeeded = false
    /// The connections with replies queued this turn, written after the turn's commit, in the
    /// order they were marked (``markForFlush(_:)``; each once: `Connection.isFlushPending`). An
    /// array and a flag instead of a `Set`: hashing the token on each reply and clearing the set
    /// each turn were about 400 instructions per ping in callgrind (issue 11).
    var pendingFlush: [UInt64] = []
    /// The tokens of ``pendingFlush`` being written by this turn's commit: the two arrays swap, so
    /// that neither is reallocated on each turn (issue 11: a ping's turn allocated a set).
    var flushingTokens: [UInt64] = []
    /// Connections accepted, served or flushed this turn: only their time-outs can have come
    /// earlier (Daemon+Housekeeping.swift). Each once (`Connection.isTouched`), in an array: a
    /// `Set` hashed the token twice per ping and was cleared every turn (issue 11).
    var touchedTokens: [UInt64] = []
    /// Connections with a streamed listing (Daemon+Streaming.swift).
    var streamingTokens: Set<UInt64> = []
    /// A lower bound of every connection's partial-line and idle deadline (boot-time ns), `nil`
    /// for none: no connection is visited per turn before it is reached.
    var connectionDeadline: Int64?
    /// This turn's replies that wait for the commit (``HeldReply``), in order.
    var heldReplies: [HeldReply] = []
    /// The connections that have a held reply this turn, so later replies to them are held too.
    var heldTokens: Set<UInt64> = []
    /// This turn's event notifications, sent after its commit (``deliverNotifications()``).
    var pendingNotifications: [EventNotification] = []
    /// Replies to `timer.wait`s ended by timers fired between slices of a turn
    /// (``fireDueBetweenSlices()``), queued at the next commit.
    var deferredWakeups: [(waiter: WaiterID, reply: [UInt8])] = []
    /// After a refused commit: when to try again (boot-time ns) and the wait after a next failure.
    var commitRetry: (at: Int64, backoff: Int64)?
    var readBuffer = [UInt8](repeating: 0, count: 65_536)
    var config: DaemonConfig
    let configPath: String?
    let systemd: SystemdLink
    /// The socket path timerd bound itself, locked for its life; `nil` for an inherited socket
    /// (never unlinked). At stop, the file is removed only if it is still the one bound.
    let socketClaim: SocketFileClaim?
    let reserve: DescriptorReserve
    var isOutOfDescriptors = false
    /// On-finish action runs recorded as running, started once that record is durable (Daemon+Actions.swift).
    var actionsAwaitingCommit: [TimerEngine.DueAction] = []
    /// The action processes running, by the epoll token of their pidfd.
    var runningActions: [UInt64: RunningAction] = [:]
    /// The epoll token of each running action's output pipe → the token of its pidfd.
    var actionOutputTokens: [UInt64: UInt64] = [:]

    /// Prepares the daemon: loads the state, binds the socket, installs signal handlers.
    ///
    /// The parts start in this order, each only after the one before it succeeded: configuration
    /// (and systemd's notification socket and passed descriptors), the state directory's lock,
    /// the store (the saved timers are loaded), the listening socket, the signal handlers, the
    /// timers; a failure closes what was opened (every descriptor is owned).
    ///
    /// - Parameters:
    ///   - options: the parsed command line.
    ///   - log: where event lines go (stderr in production).
    /// - Throws: the error that prevents starting (socket in use, unusable directories …);
    ///   ``DaemonConfig/ConfigError`` for a bad configuration file.
    public init(options: DaemonOptions, log: @escaping (String) -> Void) throws {
        self.options = options
        self.log = log
        // 1. Configuration.
        let environment = ProcessEnvironment.current()
        (config, configPath) = try DaemonConfig.resolve(options: options, uid: getuid(), environment: environment)
        LogLine.level = config.logLevel
        systemd = SystemdLink(notifier: try SystemdNotifier(environment: environment, pid: getpid()), log: log)
        // The passed socket's number; adopted (owned) when the listener starts.
        let inherited = try SocketActivation.adoptControlSocket(environment: environment, pid: getpid())
        // 2-3. The store; loading takes the state directory's lock first (no second daemon may use it).
        // Issue 14: `--store`/`store=` selects PostgreSQL instead, and then no state directory is used.
        let stateDirectory: String
        let storeDescription: String
        var hostID: String?
        let isShared = options.shared || config.shared
        if let connection = options.storeConnection ?? config.storeConnection, isShared {
            // Form 2: the database is the only copy; the engine stays empty (docs/multihost.md).
            let host = options.hostID ?? DaemonOptions.defaultHostID()
            shared = try SharedHost(
                connectionString: connection, hostID: host, environment: ProcessInfo.processInfo.environment,
                log: log)
            store = MemoryStore()
            stateDirectory = "postgresql (shared)"
            storeDescription = "postgresql \(connection) (shared)"
            hostID = host
        } else if let connection = options.storeConnection ?? config.storeConnection {
            let host = options.hostID ?? DaemonOptions.defaultHostID()
            store = options.makePostgresStore(connectionString: connection, hostID: host)
            stateDirectory = store.location
            storeDescription = "postgresql \(connection)"
            hostID = host
            shared = nil
        } else {
            if isShared { throw DaemonOptions.UsageError(message: "--shared (shared=yes) needs --store (store=)") }
            shared = nil
            stateDirectory = try options.stateDirectory ?? RuntimePaths.defaultStateDirectory()
            try RuntimePaths.ensurePrivateDirectory(stateDirectory)
            store = options.makeStore(stateDirectory: stateDirectory)
            storeDescription = "file \(stateDirectory)"
        }
        let saved = try store.load()
        var engine = TimerEngine(
            clock: store.deadlineClock ?? SystemClock(), historyLimit: config.historyLimit,
            historyMaximumAge: config.historyMaxAgeSeconds)
        for note in saved.notes { log(note) }
        // Timers that ended while no timerd ran become the first `missed` events (seq 1, 2 …),
        // which a subscriber with afterSeq 0 replays (docs/protocol.md, "Events").
        engine.eventRecording = .buffered
        // Calendar timers that follow the system zone read it from here (re-timed at the restore
        // when it changed while timerd was down, and when the file changes; docs/calendar.md).
        zonePath = SystemZone.path(environment: environment)
        zoneTZ = UnsafeTZ.original ?? environment["TZ"]
        let systemZone = SystemZone.detect(tz: zoneTZ, localtime: zonePath)
        if let warning = systemZone.warning { log("warning: \(warning)") }
        engine.systemTimeZone = systemZone.zone
        let missed = engine.restore(saved.snapshot, sameBoot: saved.isSameBoot)
        // A run recorded as started by a daemon that then stopped is not run again (at most once).
        for (id, kind) in engine.interruptUnfinishedActionRuns() {
            log(
                "warning: the \(kind.rawValue) action of timer \(id) was due when timerd stopped and its result is not known (it may have run); not run again"
            )
        }
        // Runs of timers missed while down are recorded by this synchronous commit, then started by run().
        actionsAwaitingCommit = engine.takeDueActions()
        try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
        service = TimerService(engine: engine, quota: config.maximumTimersPerUser, pid: getpid())
        service.localTimeResolver = LocalTimes.resolver
        service.zoneResolver = { name in try LocalTimes.zone(named: name).zone }
        service.daemonUID = getuid()
        // Actions run as this process's user, so only that user may ask for them (docs/actions.md).
        service.actionUID = geteuid()
        service.programLocator = { program, searchPath in
            ActionEnvironment.locate(program, in: searchPath, isExecutable: Daemon.isExecutable)
        }
        service.directoryChecker = { path in Daemon.directoryProblem(path)?.text }
        if let shared {
            if options.exitWhenIdleSeconds != nil {
                log("warning: --exit-when-idle is ignored with --shared: the timers live in the database")
            }
            let parser = service
            shared.actionParser = { value, context in try parser.action(value, context: context) }
            shared.localTimeResolver = LocalTimes.resolver
        }
        service.storeDescription = storeDescription
        service.hostID = hostID
        idleSince = Syscall.bootTimeNanoseconds()
        let live = service.engine.liveCount
        log("loaded \(live) live timer\(live == 1 ? "" : "s") from \(stateDirectory)")
        for ending in missed {
            log(
                "timer \(ending.timer.label) finished while timerd was not running (ended \(ending.timer.endedAt.map { ISO8601.string(from: $0) } ?? "?"))"
            )
        }
        // 4. The listener.
        if let path = options.socketPath {
            socketPath = path
        } else if let inherited {
            socketPath = "the socket passed as fd \(inherited)"
        } else {
            socketPath = RuntimePaths.defaultSocketPath()
            try RuntimePaths.ensurePrivateDirectory(RuntimePaths.defaultRuntimeDirectory())
        }
        let listener: FileDescriptor
        if let inherited {
            listener = FileDescriptor(adopting: inherited)
            socketClaim = nil
        } else {
            // The lock next to the socket makes the stale check, unlink and bind one step (item 12).
            let claim = try SocketFileClaim(path: socketPath)
            let (fd, removedStale) = try claim.listen(mode: mode_t(options.socketMode), backlog: 1_024)
            socketClaim = claim
            listener = FileDescriptor(adopting: fd)
            if removedStale { log("removed a stale socket left at \(socketPath)") }
        }
        reserve = DescriptorReserve(wanted: config.maximumConnections + 64)
        // 5. Signals.
        // SIGQUIT stops cleanly like SIGTERM (the runtime would print a crash report and go on);
        // SIGABRT, the watchdog's signal, ends the process at once (AbortSignal; issue 10 item 15).
        signals = try SignalPipe(catching: [SIGTERM, SIGINT, SIGQUIT, SIGHUP])
        try AbortSignal.install()
        // 6. Timers, and the loop that watches all of them.
        epoll = try Epoll()
        bootTimer = try BootTimer()
        wallClock = try WallClockWatch()
        zoneWatch = Self.watchZoneFile(zonePath, epoll: epoll, log: log)
        try epoll.add(listener, interest: .readable, token: Self.listenerToken)
        try epoll.add(bootTimer.descriptor, interest: .readable, token: Self.timerToken)
        try epoll.add(signals.readEnd, interest: .readable, token: Self.signalToken)
        try epoll.add(wallClock.descriptor, interest: .readable, token: Self.wallClockToken)
        watchSharedSocket()
        self.listener = .some(listener)
    }

    /// Runs until SIGTERM, SIGINT or SIGQUIT (or the idle time-out), then removes the socket and saves the state.
    ///
    /// Stopping goes in the reverse order of starting: stop accepting (close and remove the
    /// socket), close the clients (their pending waits are cancelled), save the state; the timers,
    /// signal handlers and lock go with the daemon.
    ///
    /// - Returns: the exit status: 0 after a clean stop, 1 when the state could not be saved.
    public func run() -> Int32 {
        log("listening on \(socketPath) (pid \(getpid()), version \(ServiceVersion.version))")
        systemd.ready(now: Syscall.bootTimeNanoseconds(), status: statusLine())
        startCommittedActions()
        var status = runLoop()
        // The socket file goes first: a client that connects from now on finds no socket (and may
        // try again) rather than a queue that closing the listener resets.
        if let socketClaim, !socketClaim.removeSocketFile() {
            log("left \(socketPath) alone: it is gone or no longer the socket this timerd bound")
        }
        refuseQueuedClients()
        listener = nil
        for connection in connections.values { closeAtStop(connection) }
        if !runningActions.isEmpty {
            log("leaving \(runningActions.count) on-finish action\(runningActions.count == 1 ? "" : "s") running")
        }
        do {
            try store.close(service.engine.snapshot)
        } catch {
            log("error: could not save state to \(store.location): \(error)")
            status = 1
        }
        log("stopped")
        return status
    }
}
