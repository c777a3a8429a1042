import Countdown
import Foundation
import Glibc
import TimerModel
import TimerPostgres
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
    /// The backend's descriptor (``TimerBackend/watchedDescriptor``: the shared store's
    /// connection, which `timerd_wake` notifications make readable).
    static let backendToken: UInt64 = 4

    let options: DaemonOptions
    let socketPath: String
    let log: (String) -> Void
    /// Where the timers live: every request, firing, commit and action outcome goes through it.
    let backend: any TimerBackend
    /// The generation of the ``TimerBackend/watchedDescriptor`` epoll watches (0: none yet).
    var watchedGeneration = 0
    let epoll: Epoll
    let bootTimer: BootTimer
    /// The alarm timers that wake the machine for wake-marked timers; `nil` when they could not be
    /// created (no `CAP_WAKE_ALARM`), and `timer.start` with `wake` is refused.
    let wakeAlarms: WakeAlarmClocks?
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
    /// The connections with replies queued this turn, written after the turn's commit, in the
    /// order they were marked (``markForFlush(_:)``; each once: `Connection.isFlushPending`). An
    /// array and a flag instead of a `Set`: hashing the token on each reply and clearing the set
    /// each turn were a visible share of every ping (callgrind).
    var pendingFlush: [UInt64] = []
    /// The tokens of ``pendingFlush`` being written by this turn's commit: the two arrays swap, so
    /// that neither is reallocated on each turn (a set would be allocated on every ping's turn).
    var flushingTokens: [UInt64] = []
    /// Connections accepted, served or flushed this turn: only their time-outs can have come
    /// earlier (Daemon+Housekeeping.swift). Each once (`Connection.isTouched`), in an array: a
    /// `Set` would hash the token twice per ping and be cleared every turn.
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
    /// Replies to `timer.wait`s ended by timers fired between slices of a turn
    /// (``fireDueBetweenSlices()``), queued at the next commit.
    var deferredWakeups: [(waiter: WaiterID, reply: [UInt8])] = []
    var readBuffer = [UInt8](repeating: 0, count: 65_536)
    var config: DaemonConfig
    let configPath: String?
    let systemd: SystemdLink
    /// The socket path timerd bound itself, locked for its life; `nil` for an inherited socket
    /// (never unlinked). At stop, the file is removed only if it is still the one bound.
    let socketClaim: SocketFileClaim?
    let reserve: DescriptorReserve
    var isOutOfDescriptors = false
    /// The action processes running, by the epoll token of their pidfd.
    var runningActions: [UInt64: RunningAction] = [:]
    /// The epoll token of each running action's output pipe → the token of its pidfd.
    var actionOutputTokens: [UInt64: UInt64] = [:]
    /// The metrics endpoint (`--metrics`, Daemon+Metrics.swift), `nil` when there is none.
    var metricsEndpoint: MetricsEndpoint?
    /// The scrapers connected to it, by epoll token.
    var scrapes: [UInt64: ScrapeConnection] = [:]
    /// What the loop counts for the metrics: request and commit durations, action outcomes.
    var metrics = DaemonMetrics(startTime: Date().timeIntervalSince1970)

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
    public convenience init(options: DaemonOptions, log: @escaping (String) -> Void) throws {
        try self.init(options: options, log: log, openBackend: nil, catchesSignals: true)
    }

    /// Opens a backend other than the one the options choose (an in-process test's): given the
    /// configuration, the system zone and what sets the request router's resolvers and uids.
    typealias BackendOpener = (
        _ config: DaemonConfig, _ systemZone: TimeZone, _ configure: (inout TimerService) -> Void
    ) throws -> (backend: any TimerBackend, missed: [TimerEnding])

    /// Prepares the daemon as ``init(options:log:)`` does, with the backend `openBackend` opens
    /// (`nil`: the one the options choose) and, when `catchesSignals` is false, no signal handler
    /// installed in the process: a test builds a daemon in its own process this way and turns its
    /// loop itself (``turn(_:maximumWait:)``).
    ///
    /// - Throws: what ``init(options:log:)`` throws, and what `openBackend` throws.
    init(
        options: DaemonOptions, log: @escaping (String) -> Void, openBackend: BackendOpener?, catchesSignals: Bool
    ) throws {
        self.options = options
        self.log = log
        // 1. Configuration.
        let environment = ProcessEnvironment.current()
        (config, configPath) = try DaemonConfig.resolve(options: options, uid: getuid(), environment: environment)
        LogLine.level = config.logLevel
        systemd = SystemdLink(notifier: try SystemdNotifier(environment: environment, pid: getpid()), log: log)
        // The passed socket's number; adopted (owned) when the listener starts.
        let inherited = try SocketActivation.adoptControlSocket(environment: environment, pid: getpid())
        // 2-3. The backend: the store's timers loaded into the engine (the state directory's lock
        // is taken first: no second daemon may use it), or a PostgreSQL schema shared with other
        // hosts (`--store` with `--shared`), where the database is the only copy of the timers.
        if options.storeConnection ?? config.storeConnection != nil, !PostgresConnection.isBuilt {
            throw DaemonOptions.UsageError(message: "--store (store=): \(PostgresConnection.notBuiltMessage)")
        }
        zonePath = SystemZone.path(environment: environment)
        zoneTZ = UnsafeTZ.original ?? environment["TZ"]
        let systemZone = SystemZone.detect(tz: zoneTZ, localtime: zonePath)
        if let warning = systemZone.warning { log("warning: \(warning)") }
        // Tried once: without CAP_WAKE_ALARM the kernel refuses alarm clocks, and wake is refused.
        let (wakeAlarms, wakeRefusal) = Self.openWakeAlarms()
        self.wakeAlarms = wakeAlarms
        if let wakeRefusal { log("timer.start with wake will be refused: \(wakeRefusal)") }
        let defaultSound = Self.defaultSoundPath(executable: Self.executablePath())
        let configureService = { (service: inout TimerService) in
            service.wakeRefusal = wakeRefusal
            service.localTimeResolver = LocalTimes.resolver
            service.zoneResolver = { name in try LocalTimes.zone(named: name).zone }
            service.daemonUID = getuid()
            // Actions run as this process's user, so only that user may ask for them (docs/actions.md).
            service.actionUID = geteuid()
            service.programLocator = { program, searchPath in
                ActionEnvironment.locate(program, in: searchPath, isExecutable: Daemon.isExecutable)
            }
            service.directoryChecker = { path in Daemon.directoryProblem(path)?.text }
            service.fileReadabilityChecker = { path in Daemon.readProblem(path) }
            service.defaultSoundPath = defaultSound
        }
        let opened =
            try openBackend?(config, systemZone.zone, configureService)
            ?? Self.openBackend(
                options: options, config: config, systemZone: systemZone.zone, log: log, configure: configureService)
        backend = opened.backend
        backend.configure(config)
        // The file store's state directory, where the socket is recorded for timerctl to find.
        let fileStateDirectory: String? =
            (options.storeConnection ?? config.storeConnection) == nil && openBackend == nil
            ? backend.location : nil
        idleSince = Syscall.bootTimeNanoseconds()
        if options.exitWhenIdleSeconds != nil, !backend.canTellIdle {
            log("warning: --exit-when-idle is ignored with --shared: the timers live in the database")
        }
        let live = backend.liveCount
        log("loaded \(live) live timer\(live == 1 ? "" : "s") from \(backend.location)")
        for ending in opened.missed {
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
            // The lock next to the socket makes the stale check, unlink and bind one step (SocketFileClaim).
            let claim = try SocketFileClaim(path: socketPath)
            let (fd, removedStale) = try claim.listen(mode: mode_t(options.socketMode), backlog: 1_024)
            socketClaim = claim
            listener = FileDescriptor(adopting: fd)
            if removedStale { log("removed a stale socket left at \(socketPath)") }
            // One daemon per user: timerctl finds this socket through the state directory, which
            // stays the same when XDG_RUNTIME_DIR (and so the default socket) does not.
            if let fileStateDirectory {
                do {
                    try RuntimePaths.recordSocket(socketPath, in: fileStateDirectory)
                } catch {
                    log("warning: cannot record the socket in \(fileStateDirectory): \(error)")
                }
            }
        }
        reserve = DescriptorReserve(wanted: config.maximumConnections + 64)
        // 5. Signals.
        // SIGQUIT stops cleanly like SIGTERM (the runtime would print a crash report and go on);
        // SIGABRT, the watchdog's signal, ends the process at once (AbortSignal).
        signals = try SignalPipe(catching: catchesSignals ? [SIGTERM, SIGINT, SIGQUIT, SIGHUP] : [])
        if catchesSignals { try AbortSignal.install() }
        // 6. Timers, and the loop that watches all of them.
        epoll = try Epoll()
        bootTimer = try BootTimer()
        wallClock = try WallClockWatch()
        zoneWatch = Self.watchZoneFile(zonePath, epoll: epoll, log: log)
        try epoll.add(listener, interest: .readable, token: Self.listenerToken)
        try epoll.add(bootTimer.descriptor, interest: .readable, token: Self.timerToken)
        try epoll.add(signals.readEnd, interest: .readable, token: Self.signalToken)
        try epoll.add(wallClock.descriptor, interest: .readable, token: Self.wallClockToken)
        try watchWakeAlarms()
        watchBackendDescriptor()
        self.listener = .some(listener)
        // 7. The metrics endpoint, when asked for (after the control socket: a daemon that cannot
        // serve its clients does not serve metrics either).
        if let address = config.metricsAddress {
            do {
                metricsEndpoint = try Self.openMetricsEndpoint(address: address, epoll: epoll)
            } catch {
                throw MetricsEndpointError(description: "metrics: cannot listen on \(address): \(error)")
            }
        }
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
        if let metricsEndpoint { log("serving metrics on \(metricsEndpoint.address)") }
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
        closeMetricsEndpoint()
        for connection in connections.values { closeAtStop(connection) }
        if !runningActions.isEmpty {
            log("leaving \(runningActions.count) on-finish action\(runningActions.count == 1 ? "" : "s") running")
        }
        do {
            try backend.close()
        } catch {
            log("error: could not save state to \(backend.location): \(error)")
            status = 1
        }
        log("stopped")
        return status
    }
}
