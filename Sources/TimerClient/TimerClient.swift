import Dispatch
import Synchronization
import TimerProtocol

/// An async client of timerd's JSON-RPC protocol over its Unix socket (docs/protocol.md).
///
/// ```swift
/// let client = try await TimerClient.connect()
/// let tea = try await client.start(durations: [180], name: "tea")
/// let ended = try await client.wait(for: tea.id)
/// print(ended.state)  // finished
/// ```
///
/// Requests go one at a time over one connection, each answered within 10 s. ``wait(for:)`` and
/// ``events(timer:kinds:afterSeq:reconnect:)`` open connections of their own, so they never hold up
/// other calls. The socket is read with blocking `poll(2)` and `read(2)` on Dispatch queues, never on
/// the cooperative thread pool (see the catalog's "Threads" section). A connection lost is not made
/// again for requests (they fail with ``TimerClientError/unavailable(_:)``; connect again); the
/// event stream reconnects by itself.
public final class TimerClient: Sendable {
    /// The socket this client is connected to.
    public let socketPath: String
    private let connection: Mutex<TimerConnection>
    private let queue: DispatchQueue

    private init(_ connection: sending TimerConnection) {
        socketPath = connection.socketPath
        self.connection = Mutex(connection)
        queue = DispatchQueue(label: "timerd.client.requests")
    }

    /// Connects as timerctl does: to `path` when given, else to the default socket
    /// (`$XDG_RUNTIME_DIR/timerd/timerd.sock`, or `/run/timerd/timerd.sock` for root), else to the
    /// socket a timerd of the same user recorded in its state directory under another
    /// `XDG_RUNTIME_DIR`, else — when `autostart` allows — to a timerd started for the purpose.
    ///
    /// - Parameters:
    ///   - path: the socket, or `nil` for the default rules.
    ///   - autostart: whether timerd may be started (``AutostartPolicy/never`` by default).
    /// - Returns: the client.
    /// - Throws: ``TimerClientError/notRunning(path:reason:)``, ``TimerClientError/notASocket(path:kind:)``
    ///   or ``TimerClientError/unavailable(_:)``.
    public static func connect(path: String? = nil, autostart: AutostartPolicy = .never) async throws
        -> TimerClient
    {
        try await onDispatchQueue { () throws(TimerClientError) in
            try TimerClient(TimerConnection.connect(explicitPath: path, autostart: autostart))
        }
    }

    /// Runs `body` on a Dispatch thread and resumes with what it returned or threw.
    private static func onDispatchQueue<Result: Sendable>(
        _ queue: DispatchQueue = .global(), _ body: @escaping @Sendable () throws(TimerClientError) -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do throws(TimerClientError) {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Sends `request` on the shared connection and returns its result.
    ///
    /// - Throws: `CancellationError` when the task was cancelled before the request was sent; else
    ///   what ``TimerConnection/call(_:as:timeoutMilliseconds:)`` throws.
    private func perform<Result: JSONReadable & Sendable>(_ request: TimerRequest, as type: Result.Type)
        async throws -> Result
    {
        try Task.checkCancellation()
        return try await Self.onDispatchQueue(queue) { () throws(TimerClientError) in
            try self.connection.withLock { connection throws(TimerClientError) in
                try connection.call(request, as: Result.self)
            }
        }
    }

    // MARK: - Starting timers

    /// `timer.start` of a countdown, or of a group that runs its durations one after another.
    ///
    /// - Parameters:
    ///   - durations: seconds each (> 0, at most 100 years; 1…64 of them).
    ///   - name: the timer's name (letters, digits, `-`, `_`, `.`; not all digits), or `nil`.
    ///   - action: what runs when it finishes, or `nil`.
    ///   - isHeartbeat: a heartbeat timer: it fires when no ``beat(_:)`` came for a whole duration.
    ///   - loops: run the durations this many times, one loop after the other (at most 100 steps in
    ///     all), or `nil` for once.
    ///   - wake: whether it wakes the machine from suspend (a daemon without CAP_WAKE_ALARM refuses
    ///     it with -32602, naming the system daemon; docs/time.md).
    ///   - alarm: ring at the end until answered (``acknowledge(_:)``, ``snooze(_:seconds:)``) and/or
    ///     warn before it, or `nil` (docs/protocol.md, "Alarms").
    /// - Returns: the new timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32602 (invalid params), -32003 (name in use)
    ///   or -32004 (quota); connection errors.
    public func start(
        durations: [Double], name: String? = nil, action: TimerAction? = nil, isHeartbeat: Bool = false,
        loops: Int? = nil, wake: Bool = false, alarm: AlarmRequest? = nil
    ) async throws -> TimerInfo {
        try await perform(
            .start(
                durations: durations, name: name, action: action, isHeartbeat: isHeartbeat, loops: loops, wake: wake,
                alarm: alarm),
            as: TimerInfo.self)
    }

    /// `timer.start` with `at`: a timer that ends at a wall-clock time.
    ///
    /// - Parameters:
    ///   - at: an ISO 8601 date-time with offset (`2026-12-01T09:00:00+01:00`), or a local time
    ///     (`14:30`, `2026-12-01 09:00`) read in `timeZone`.
    ///   - timeZone: the IANA zone of a local time, or `nil` for timerd's.
    ///   - minuteInterval: round a local time to this many minutes (1…30, dividing 60), or `nil`.
    ///   - name: the timer's name, or `nil`.
    ///   - action: what runs when it finishes, or `nil`.
    ///   - wake: whether it wakes the machine from suspend.
    ///   - alarm: ring and/or warn, as for ``start(durations:name:action:isHeartbeat:loops:wake:alarm:)``.
    /// - Returns: the new timer; `resolvedAt` says how a local time was read.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32602 for a time in the past or unreadable.
    public func start(
        at: String, timeZone: String? = nil, minuteInterval: Int? = nil, name: String? = nil,
        action: TimerAction? = nil, wake: Bool = false, alarm: AlarmRequest? = nil
    ) async throws -> TimerInfo {
        try await perform(
            .startAt(
                at: at, timeZone: timeZone, minuteInterval: minuteInterval, name: name, action: action, wake: wake,
                alarm: alarm),
            as: TimerInfo.self)
    }

    /// `timer.start` with `on` or `every`: a recurring timer.
    ///
    /// - Parameter recurring: the calendar expression or period and the rest.
    /// - Returns: the new timer with its `recurrence`.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32602 naming a bad expression's token.
    public func start(_ recurring: RecurringStart) async throws -> TimerInfo {
        try await perform(.startRecurring(recurring), as: TimerInfo.self)
    }

    // MARK: - One timer

    /// `timer.status`: one timer by id or name.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001 when there is no such timer.
    public func status(_ timer: String) async throws -> TimerInfo {
        try await perform(.status(timer), as: TimerInfo.self)
    }

    /// `timer.list`: the live timers, by ascending id.
    ///
    /// - Parameter includingEnded: include the ended history too (`all`).
    /// - Returns: the timers.
    public func list(includingEnded: Bool = false) async throws -> [TimerInfo] {
        try await perform(.list(includingEnded: includingEnded), as: [TimerInfo].self)
    }

    /// `timer.pause`.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the paused timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001 or -32002 (not running).
    public func pause(_ timer: String) async throws -> TimerInfo {
        try await perform(.pause(timer), as: TimerInfo.self)
    }

    /// `timer.resume`.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the running timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001 or -32002 (not paused).
    public func resume(_ timer: String) async throws -> TimerInfo {
        try await perform(.resume(timer), as: TimerInfo.self)
    }

    /// `timer.stop`: ends a live timer as stopped.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the stopped timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001 or -32002 (already ended).
    public func stop(_ timer: String) async throws -> TimerInfo {
        try await perform(.stop(timer), as: TimerInfo.self)
    }

    /// `timer.extend`: adds time to (or takes time from) the current step.
    ///
    /// - Parameters:
    ///   - timer: an id or a name.
    ///   - seconds: seconds to add; negative takes away (the step keeps at least 1 s).
    /// - Returns: the timer after the change.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001, -32002 or -32602.
    public func extend(_ timer: String, by seconds: Double) async throws -> TimerInfo {
        try await perform(.extend(timer, seconds: seconds), as: TimerInfo.self)
    }

    /// `timer.restart`: starts the timer again with its durations, under the same id.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the running timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001, -32002 or -32004.
    public func restart(_ timer: String) async throws -> TimerInfo {
        try await perform(.restart(timer), as: TimerInfo.self)
    }

    /// `timer.rename`.
    ///
    /// - Parameters:
    ///   - timer: an id or a name.
    ///   - name: the new name.
    /// - Returns: the renamed timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001, -32003 (in use) or -32602.
    public func rename(_ timer: String, to name: String) async throws -> TimerInfo {
        try await perform(.rename(timer, to: name), as: TimerInfo.self)
    }

    /// `timer.skip`: ends a group's current step and starts the next.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the group after the change.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001 or -32002 (not a running group).
    public func skip(_ timer: String) async throws -> TimerInfo {
        try await perform(.skip(timer), as: TimerInfo.self)
    }

    /// `timer.beat`: re-arms a heartbeat timer to its whole duration from now.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the timer after the beat.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001 or -32002 (not a live heartbeat timer).
    public func beat(_ timer: String) async throws -> TimerInfo {
        try await perform(.beat(timer), as: TimerInfo.self)
    }

    /// `timer.ack`: acknowledges a ringing alarm (`"ring": true`): it stops ringing and finishes.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the finished timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001, or -32002 when it is not ringing.
    public func acknowledge(_ timer: String) async throws -> TimerInfo {
        try await perform(.ack(timer), as: TimerInfo.self)
    }

    /// `timer.snooze`: a ringing alarm runs again for `seconds`, then rings again.
    ///
    /// - Parameters:
    ///   - timer: an id or a name.
    ///   - seconds: how long, > 0; `nil` for the daemon's snooze (`snooze` of timerd.conf, 9 min).
    /// - Returns: the running timer.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001, -32002 when it is not ringing, or -32602.
    public func snooze(_ timer: String, seconds: Double? = nil) async throws -> TimerInfo {
        try await perform(.snooze(timer, seconds: seconds), as: TimerInfo.self)
    }

    /// `timer.remove` of one ended timer.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the removed timers (this one).
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001 or -32002 (still live).
    public func remove(_ timer: String) async throws -> [TimerInfo] {
        try await perform(.remove(timer), as: [TimerInfo].self)
    }

    /// `timer.remove` with `allEnded`: every ended timer of the caller.
    ///
    /// - Returns: the removed timers, by ascending id (empty when there were none).
    public func removeAllEnded() async throws -> [TimerInfo] {
        try await perform(.remove(nil), as: [TimerInfo].self)
    }

    /// `timer.runs`: the kept runs of the timer's on-finish action, with their output.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the runs.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32001.
    public func runs(_ timer: String) async throws -> ActionRunsResult {
        try await perform(.runs(timer), as: ActionRunsResult.self)
    }

    // MARK: - The daemon

    /// `daemon.ping`: the daemon's version, protocol, process id and store.
    ///
    /// - Returns: the answer.
    public func ping() async throws -> PingResult {
        try await perform(.ping, as: PingResult.self)
    }

    /// `daemon.reload`: makes timerd re-read its configuration, answered once it has.
    ///
    /// - Returns: the file read and whether it existed.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32007 (not root or the daemon's user) or
    ///   -32008 (a bad file; the old configuration stays).
    public func reload() async throws -> ReloadResult {
        try await perform(.reload, as: ReloadResult.self)
    }

    /// `daemon.stats`: timer counts and the lateness of recent firings.
    ///
    /// - Returns: the figures.
    public func stats() async throws -> StatsResult {
        try await perform(.stats, as: StatsResult.self)
    }

    /// `daemon.metrics`: the Prometheus text timerd serves (docs/metrics.md).
    ///
    /// - Returns: the metrics.
    /// - Throws: ``TimerClientError/daemon(_:)`` with -32007 for another user than root or the daemon's.
    public func metrics() async throws -> MetricsResult {
        try await perform(.metrics, as: MetricsResult.self)
    }

    // MARK: - Waiting

    /// `timer.wait`: returns once the timer has ended, on a connection of its own.
    ///
    /// Cancelling the task shuts that connection down at once: the call throws `CancellationError`,
    /// timerd drops the wait with the connection, and the timer is untouched.
    ///
    /// - Parameter timer: an id or a name.
    /// - Returns: the ended timer; its `state` says how (`finished`, `stopped`).
    /// - Throws: `CancellationError`; ``TimerClientError/daemon(_:)`` with -32001; connection errors
    ///   (timerd stopping while waiting is ``TimerClientError/unavailable(_:)``).
    public func wait(for timer: String) async throws -> TimerInfo {
        let path = socketPath
        let hook = CancellableDescriptor()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TimerInfo, any Error>) in
                // A queue of its own (overcommitting): a wait may block for hours.
                DispatchQueue(label: "timerd.client.wait").async {
                    continuation.resume(with: Self.blockingWait(timer, path: path, hook: hook))
                }
            }
        } onCancel: {
            hook.cancel()
        }
    }

    /// Connects to `path`, sends `timer.wait` and reads until its reply or cancellation.
    private static func blockingWait(_ timer: String, path: String, hook: CancellableDescriptor) -> Result<
        TimerInfo, any Error
    > {
        do throws(TimerClientError) {
            let waiter = try TimerConnection.connect(explicitPath: path, autostart: .never)
            guard hook.attach(waiter.fd) else { return .failure(CancellationError()) }
            // Detached before the connection is released (and its descriptor closed), never after.
            defer { withExtendedLifetime(waiter) { hook.detach() } }
            return .success(try waiter.call(.wait(timer), as: TimerInfo.self, timeoutMilliseconds: -1))
        } catch {
            return hook.isCancelled ? .failure(CancellationError()) : .failure(error)
        }
    }
}
