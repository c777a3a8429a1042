// Over 450 lines on purpose: the service's stored state and its one entry point (`handle`: read the
// envelope, route, reply), whose routing switch reads top to bottom here; each method's body is
// already in a `TimerService+*.swift` extension.
import Countdown
import TimerModel
import TimerProtocol

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The protocol's server side without any I/O: reads one JSON-RPC 2.0 request line, runs it on the
/// engine and writes the reply line. The daemon feeds it lines from its sockets; tests feed it strings.
///
/// Wire format (docs/protocol.md): one JSON object per line, UTF-8, at most ``maximumLineBytes``.
/// Parameters are by name. A request without `id` is a notification: it runs and gets no reply.
/// Batches (arrays) are refused with `-32600`. Error codes are in `RPCErrorCode`.
public struct TimerService: Sendable {
    /// The longest request line accepted, newline excluded: 64 KiB.
    public static let maximumLineBytes = 65_536

    /// The engine the requests run on.
    public var engine: TimerEngine
    /// The most live timers one uid may have, or `nil` for no limit.
    public var quota: Int?
    /// The process id `daemon.ping` reports.
    public var pid: Int32
    /// Where the timers are kept, as `daemon.ping` reports it (`file DIR`, `postgresql …`), or
    /// `nil` to leave it out.
    public var storeDescription: String?
    /// The host id `daemon.ping` reports for a store several hosts share, or `nil`.
    public var hostID: String?

    /// Who is subscribed to which events; a pending `timer.wait` is one subscription.
    public internal(set) var subscriptions = SubscriptionRegistry()
    /// The daemon's own uid, which gets daemon-wide `daemon.stats` figures as root does (the owner
    /// of a user daemon); `nil` for none but root.
    public var daemonUID: UInt32?
    /// The most pending waits per connection and per user (docs/fairness.md).
    public var waitLimits = WaitLimits()
    /// Each pending `timer.wait`: its request id, uid and connection.
    var pendingWaits: [WaiterID: PendingWait] = [:]
    /// Pending waits per connection (absent when 0).
    var waitsPerConnection: [UInt64: Int] = [:]
    /// Pending waits per uid (absent when 0).
    var waitsPerUser: [UInt32: Int] = [:]
    /// Recently formatted timestamps, reused within the same millisecond (see ``TimestampCache``).
    var timestamps = TimestampCache()
    /// The recent events, numbered, for `afterSeq` (``EventRing``; 4,096 events).
    public internal(set) var events = EventRing()
    /// Each open `timer.subscribe`: who it counts against and its connection.
    var streams: [SubscriptionRegistry.SubscriberID: StreamSubscription] = [:]
    /// Notifications not yet taken by ``takeNotifications()``.
    var notifications: [EventNotification] = []
    /// The timers started, finished, missed and stopped since start-up, counted from the events
    /// routed (the daemon's metrics).
    public internal(set) var timerCounts = TimerCounts()
    /// The deliveries of the event being routed, reused from event to event (no allocation each).
    var deliveryBuffer: [SubscriptionRegistry.Delivery] = []
    /// Open `timer.subscribe`s per connection (absent when 0), and how many connections have two
    /// or more: while none has, the fan-out needs no set of connections already served per event.
    var streamsPerConnection: [UInt64: Int] = [:]
    var connectionsWithSeveralStreams = 0
    /// The most due timers one ``fireDueTimers()`` (and so one request, or one turn of timerd's loop)
    /// finishes; the rest stay due for the next call (`TimerEngine.hasDueTimers`), so that 100k
    /// timers overdue at a resume are finished in slices with clients served between them (≥ 1;
    /// default 1,000, about 10–20 ms of work; docs/time.md).
    public var maximumFiringsPerCall = 1_000
    /// The timers the current turn of timerd's loop may still finish: ``beginTurn()`` sets it to
    /// ``maximumFiringsPerCall``, and every ``fireDueTimers()`` of the turn (before each request,
    /// between slices of the turn's work, at the loop timer's wake-up) takes its firings from it.
    /// So a backlog (a burst due at one instant, timers overdue at a resume) costs each turn one
    /// slice, not one slice per request, and a request waits for at most that slice. `Int.max`
    /// (the default, for a service no loop turns) leaves each call its own slice.
    public var firingsLeftInTurn = Int.max

    /// Starts a turn of timerd's loop: ``firingsLeftInTurn`` becomes one slice.
    public mutating func beginTurn() { firingsLeftInTurn = maximumFiringsPerCall }
    /// The last `daemon.ping` result written, with the values it was written from (``pingResult()``).
    var pingCache: PingCache?
    /// The captured output of recent action runs, for `timer.runs` (TimerService+Runs.swift).
    var actionOutputs = ActionOutputLog()

    /// Creates a service around an engine.
    ///
    /// - Parameters:
    ///   - engine: the engine to run requests on.
    ///   - quota: the most live timers per uid, or `nil`.
    ///   - pid: the process id `daemon.ping` reports.
    ///   - eventRingCapacity: the most recent events kept for `afterSeq` (``EventRing``).
    public init(
        engine: TimerEngine, quota: Int? = 10_000, pid: Int32 = 0, eventRingCapacity: Int = EventRing.defaultCapacity
    ) {
        self.engine = engine
        self.events = EventRing(capacity: eventRingCapacity)
        self.engine.eventRecording = .buffered
        self.quota = quota
        self.pid = pid
    }

    /// The uid on-finish actions run as (the daemon's effective uid), accepted only from that
    /// requester; `nil` (the default) refuses every action (`action(_:context:)`).
    public var actionUID: UInt32?
    /// Finds a program in a `PATH` (the daemon installs one that checks the file system), for the
    /// `--notify` warning; `nil` finds nothing.
    public var programLocator: (@Sendable (_ program: String, _ searchPath: String) -> String?)?
    /// Says why a directory cannot be an action's `cwd` (`No such file or directory`, `Not a
    /// directory`, …), or `nil` when it can (the daemon installs one that checks the file system);
    /// `nil` accepts every absolute path.
    public var directoryChecker: (@Sendable (_ path: String) -> String?)?
    /// The absolute path of the sound `"sound": true` plays (the daemon finds its shipped
    /// `timerd-beep.wav`), or `nil` (the default), which refuses `"sound": true`.
    public var defaultSoundPath: String?
    /// Says why a file cannot be read by the daemon (`No such file or directory`, `Permission
    /// denied`, …), or `nil` when it can (the daemon installs one that checks the file system);
    /// `nil` accepts every file. Used for the `warning` of a `timer.start` with `sound`.
    public var fileReadabilityChecker: (@Sendable (_ path: String) -> String?)?
    /// The sound players tried in order, each found in the timer's captured `PATH`
    /// (``programLocator``): `pw-play`, `paplay`, `aplay` by default; the one of timerd.conf's
    /// `sound_player` when it names one.
    public var soundPlayers = ["pw-play", "paplay", "aplay"]

    /// Why this daemon cannot wake the machine from suspend (it could not create an alarm clock:
    /// man timerfd_create(2) refuses `CLOCK_BOOTTIME_ALARM` without `CAP_WAKE_ALARM`), as the
    /// message `timer.start` with `"wake": true` is refused with (`-32602`); `nil` (the default)
    /// accepts `wake`.
    public var wakeRefusal: String?

    /// Why this daemon refuses `"ring": true` of `timer.start` (`-32602` with this text), or `nil`
    /// (the default) to accept it: timerd sets it on the PostgreSQL store, whose schema has no
    /// ringing state.
    public var ringRefusal: String?

    /// How timers started with `"ring": true` ring: every 30 s for up to 10 min by default (timerd
    /// sets `ring_interval` and `ring_limit` of timerd.conf). A timer keeps the rule it started with.
    public var ringRule = TimerAlarm.Ring(interval: 30, limit: 600)
    /// How long `timer.snooze` without `for` runs a ringing timer again, in seconds: 9 min by
    /// default, as iOS's Clock (timerd sets `snooze` of timerd.conf).
    public var snoozeSeconds: Double = 540

    /// Resolves a local wall time for `timer.start` with `at` but no offset (`"14:30"`,
    /// `"2026-12-01T09:00"`) in the IANA zone given as `timeZone`, flooring the minute to
    /// `minuteInterval`, as of the given wall-clock instant. `nil` (the default) refuses local times;
    /// timerd installs one built on `DatePicking.LocalTimeResolver`, so that `timerctl` itself need
    /// not load the time-zone and calendar data. It throws an `RPCError` the client can act on.
    public var localTimeResolver:
        (
            @Sendable (_ text: String, _ timeZone: String, _ minuteInterval: Int, _ now: Date) throws ->
                LocalTimeResolution
        )?

    /// Reads the `timeZone` of a recurring `timer.start` (`on`): an IANA name, or what else the
    /// daemon accepts (a POSIX `TZ` string, read as tzset(3) does). `nil` (the default) accepts the
    /// names Foundation's `TimeZone(identifier:)` knows. It throws an `RPCError` the client can act on.
    public var zoneResolver: (@Sendable (_ name: String) throws -> TimeZone)?

    /// Handles one request line.
    ///
    /// - Parameters:
    ///   - line: the request's bytes, without the newline.
    ///   - context: who sent it.
    /// - Returns: the reply (or none yet) and whether the state changed.
    public mutating func handle(line: [UInt8], context: RequestContext) -> ServiceOutcome {
        var outcome = ServiceOutcome(reply: nil, changedState: false, wakeups: [], event: nil)
        guard line.count <= Self.maximumLineBytes else {
            outcome.reply = Self.errorLine(id: .null, RPCError(.invalidRequest, Self.tooLongMessage))
            return outcome
        }
        // What JSONDecoder accepted once is still accepted (trailing commas, a BOM, UTF-16 …).
        // A request object is read into member lists, not dictionaries (JSONMembers); anything else
        // is parsed again as a JSONValue only to say what it is.
        let object: JSONMembers
        let parsedParams: JSONMembers?
        if let request = JSONValue.requestMembers(parsing: line, leniency: .foundationCompatible) {
            if let name = request.duplicateKey {
                // Refused, not read first-wins: a proxy that reads the last of duplicates (as many
                // JSON readers do) would pass on a request other than the one answered here.
                outcome.reply = Self.errorLine(
                    id: .null,
                    RPCError(
                        .invalidRequest, "member \"\(name)\" appears twice in one object; send each name once"))
                return outcome
            }
            (object, parsedParams) = (request.members, request.params)
        } else {
            guard let value = JSONValue(parsing: line, leniency: .foundationCompatible) else {
                outcome.reply = Self.errorLine(
                    id: .null,
                    RPCError(.parseError, "request is not valid JSON: send one JSON-RPC 2.0 object per line"))
                return outcome
            }
            guard case .object(let members) = value else {
                let what = value.typeName == "array" ? "batch requests are not supported" : "a request is a JSON object"
                outcome.reply = Self.errorLine(
                    id: .null,
                    RPCError(
                        .invalidRequest, "\(what): send one {\"jsonrpc\":\"2.0\",\"id\":…,\"method\":…} per line"))
                return outcome
            }
            // Not reached (requestMembers reads every object), kept so that no input can fall through.
            (object, parsedParams) = (JSONMembers(members), nil)
        }
        let idMember = object["id"]  // looked up once
        let id = Self.readID(idMember, line: line)
        if id == .null, case .some(let value) = idMember, value != .null {
            outcome.reply = Self.errorLine(
                id: .null, RPCError(.invalidRequest, "\"id\" must be a string, a number or null, got \(value.typeName)")
            )
            return outcome
        }
        outcome.requestID = id
        guard case .string("2.0") = object["jsonrpc"] else {
            outcome.reply = Self.errorLine(
                id: id ?? .null, RPCError(.invalidRequest, "\"jsonrpc\" must be \"2.0\""))
            return outcome
        }
        guard case .string(let methodName) = object["method"] else {
            outcome.reply = Self.errorLine(
                id: id ?? .null, RPCError(.invalidRequest, "\"method\" must be a string, e.g. \"timer.status\""))
            return outcome
        }
        guard let method = RPCMethod(rawValue: methodName) else {
            guard id != nil else { return outcome }  // a notification gets no reply, not even an error (§4.1)
            let known = RPCMethod.allCases.map(\.rawValue).joined(separator: ", ")
            outcome.reply = Self.errorLine(
                id: id ?? .null, RPCError(.methodNotFound, "unknown method \"\(methodName)\"; methods: \(known)"))
            return outcome
        }
        outcome.method = method
        // Timers already due finish first, so no request sees (or pauses) a timer past its end;
        // in a backlog larger than a turn's slice (firingsLeftInTurn), the rest wait for later turns.
        let alarmTransitions = engine.alarmTransitionCount
        let due = fireDueTimers()
        outcome.endings = due.endings
        outcome.wakeups = due.wakeups
        // A ring or a warning changes its record without ending the timer: saved all the same.
        if !due.endings.isEmpty || engine.alarmTransitionCount != alarmTransitions { outcome.changedState = true }
        do {
            let params = try parsedParams ?? Self.params(object["params"], method: method)
            switch try run(method, params: params, id: id, context: context) {
            case .result(let data, let changed, let event):
                outcome.changedState = outcome.changedState || changed
                outcome.requiresDurability = changed
                outcome.event = event
                outcome.reply = id == nil ? nil : Self.resultLine(id: id ?? .null, resultJSON: data)
            case .line(let line, let changed, let event):
                outcome.changedState = outcome.changedState || changed
                outcome.requiresDurability = changed
                outcome.event = event
                outcome.reply = line
            case .stopped(let data, let ending):
                outcome.changedState = true
                outcome.requiresDurability = true
                outcome.event = "stopped timer \(ending.timer.label)"
                outcome.reply = id == nil ? nil : Self.resultLine(id: id ?? .null, resultJSON: data)
            case .waiting:
                outcome.reply = nil
            case .reload:
                outcome.reply = nil
                outcome.reloadRequest = ReloadRequest(id: id)
            case .metrics:
                outcome.reply = nil
                outcome.metricsRequest = MetricsRequest(id: id)
            case .listing(let listing):
                outcome.listing = listing
            case .subscribed(let data):
                outcome.newSubscription = context.waiter
                outcome.reply = id == nil ? nil : Self.resultLine(id: id ?? .null, resultJSON: data)
            case .unsubscribed(let subscriber, let data):
                outcome.endedSubscription = subscriber
                outcome.reply = id == nil ? nil : Self.resultLine(id: id ?? .null, resultJSON: data)
            }
        } catch {
            outcome.reply = id == nil ? nil : Self.errorLine(id: id ?? .null, error)
        }
        outcome.wakeups += routeEvents()
        return outcome
    }

    /// Finishes due timers (and steps groups), at most ``maximumFiringsPerCall`` of them and no more
    /// than ``firingsLeftInTurn``, and builds the replies for the waits they end.
    ///
    /// - Returns: the timers that ended and the replies to send.
    public mutating func fireDueTimers() -> (endings: [TimerEnding], wakeups: [(waiter: WaiterID, reply: [UInt8])]) {
        let limit = min(maximumFiringsPerCall, firingsLeftInTurn)
        guard limit > 0 else { return ([], []) }
        let endings = engine.fireDueTimers(limit: limit)
        firingsLeftInTurn -= endings.count
        return (endings, routeEvents())
    }

    /// Whether `waiter` is a `timer.wait` still waiting.
    ///
    /// - Parameter waiter: the token of the request.
    public func isWaiting(_ waiter: WaiterID) -> Bool { pendingWaits[waiter] != nil }

    /// Forgets the wait of a client that went away.
    ///
    /// - Parameter waiter: the token of its pending `timer.wait`.
    /// - Complexity: O(1).
    public mutating func cancelWait(_ waiter: WaiterID) {
        _ = removeWait(waiter)
        subscriptions.unsubscribe(waiter)
    }

    /// The request's id; an integer beyond ±2^53 keeps its digits (read again from `line`).
    private static func readID(_ value: JSONValue?, line: [UInt8]) -> RPCID? {
        switch value {
        case .none: return nil
        case .some(.number(let number)) where abs(number) >= 9_007_199_254_740_992:  // 2^53
            if let digits = JSONValue.integerLiteral(ofMember: "id", in: line, leniency: .foundationCompatible) {
                return .largeInteger(digits)
            }
            return .number(number)
        case .some(.number(let number)): return .number(number)
        case .some(.string(let string)): return .string(string)
        default: return .null
        }
    }

    /// A `daemon.ping` result as written, and the values it was written from.
    struct PingCache {
        var pid: Int32
        var store: String?
        var hostID: String?
        var bytes: [UInt8]
    }

    /// The `daemon.ping` result, `{"hostID":…,"pid":…,"protocolVersion":…,"store":…,"version":…}`:
    /// written once and reused while ``pid``, ``storeDescription`` and ``hostID`` stay the same
    /// (compared on each call, so a changed value is never answered with the old one). Writing it
    /// (the store's path escaped byte by byte) was a tenth of a ping in callgrind.
    mutating func pingResult() -> [UInt8] {
        if let cache = pingCache, cache.pid == pid, cache.store == storeDescription, cache.hostID == hostID {
            return cache.bytes
        }
        let result = PingResult(
            version: ServiceVersion.version, protocolVersion: ServiceVersion.protocolVersion, pid: pid,
            store: storeDescription, hostID: hostID)
        var writer = JSONBytesWriter(capacity: 64)
        result.write(to: &writer)
        pingCache = PingCache(pid: pid, store: storeDescription, hostID: hostID, bytes: writer.bytes)
        return writer.bytes
    }

    enum RunResult {
        case result([UInt8], changed: Bool, event: String? = nil)
        /// A whole reply line already written (``resultLine(id:snapshot:resolvedAt:)``), or `nil`
        /// for a notification.
        case line([UInt8]?, changed: Bool, event: String?)
        case stopped([UInt8], TimerEnding)
        case waiting
        case reload
        /// `daemon.metrics`: the daemon renders the text and answers.
        case metrics
        case listing(TimerListing)
        case subscribed([UInt8])
        case unsubscribed(SubscriptionRegistry.SubscriberID, [UInt8])
    }

    /// The reply line to a `timer.start`, or `nil` for a notification (written all the same, so
    /// that a notification fails or not as the reply would). A `warning` (``soundWarning(_:)``)
    /// becomes the result's last member, `"warning":"…"`.
    private mutating func startReply(
        _ id: RPCID?, _ snapshot: TimerSnapshot, resolvedAt: LocalTimeResolution? = nil, warning: String? = nil
    ) throws -> [UInt8]? {
        var line = try resultLine(id: id ?? .null, snapshot: snapshot, resolvedAt: resolvedAt)
        // The line ends with the result object's `}` and the reply's `}`: the member goes before them.
        if let warning, line.count >= 2 {
            line.removeLast(2)
            var writer = JSONBytesWriter()
            writer.raw(#","warning":"#)
            writer.string(warning)
            writer.raw("}}")
            line += writer.bytes
        }
        return id == nil ? nil : line
    }

    private mutating func run(
        _ method: RPCMethod, params: JSONMembers, id: RPCID?, context: RequestContext
    ) throws -> RunResult {
        switch method {
        case .timerStart:
            try Self.allowOnly(
                [
                    "action", "at", "durations", "every", "from", "heartbeat", "loops", "minuteInterval", "name",
                    "on", "overlap", "randomizedDelay", "ring", "skipMissed", "sound", "timeZone", "wake", "warn",
                    "warnEach",
                ], in: params, method: method)
            let name: String?
            switch params["name"] {
            case .none, .some(.null): name = nil
            case .some(.string(let value)): name = value
            case .some(let other): throw Self.typeError("name", "a string", other, method)
            }
            let quota = context.seesAll ? nil : quota
            let loops = try Self.loops(params)
            let sound = try soundRequest(params)
            let action = try self.action(params["action"], sound: sound, context: context)
            let wake = try wakeMark(params)
            let alarm = try alarmRequest(params)
            let warning = soundWarning(action)
            let actionText =
                (action.map { "; " + actionNote($0) } ?? "") + (wake ? "; wakes the machine" : "")
                + Self.alarmNote(alarm) + (warning.map { "; warning: \($0)" } ?? "")
            if try Self.isHeartbeat(params) {
                let seconds = try Self.heartbeatDuration(params)
                let snapshot = try engine.start(
                    heartbeat: seconds, name: name, owner: context.uid, quota: quota, action: action, wake: wake)
                let event =
                    "started heartbeat timer \(snapshot.label), \(DurationFormatter.compact(seconds: seconds))"
                    + actionText
                return .line(try startReply(id, snapshot), changed: true, event: event)
            }
            if let request = try recurrenceRequest(params) {
                let snapshot = try engine.start(
                    recurring: request, name: name, owner: context.uid, quota: quota, action: action, wake: wake)
                let rule = snapshot.recurrence?.recurrence.ruleText ?? ""
                let next = snapshot.endsAt.map { ISO8601.string(from: $0) } ?? "never"
                let group =
                    request.group.map { group in
                        ", starts "
                            + group.durations.map { DurationFormatter.compact(seconds: $0) }.joined(separator: " ")
                            + " (overlap \(group.overlap.rawValue))"
                    } ?? ""
                let event =
                    "started recurring timer \(snapshot.label), \(rule), next elapse \(next)" + group + actionText
                return .line(try startReply(id, snapshot), changed: true, event: event)
            }
            if let (deadline, resolution) = try absoluteDeadline(params) {
                let snapshot = try engine.start(
                    at: deadline, name: name, owner: context.uid, quota: quota, action: action, wake: wake,
                    alarm: alarm)
                let event = "started timer \(snapshot.label), ends at \(ISO8601.string(from: deadline))" + actionText
                return .line(
                    try startReply(id, snapshot, resolvedAt: resolution, warning: warning), changed: true, event: event)
            }
            let durations = try Self.repeated(Self.durations(params["durations"]), loops: loops)
            let snapshot = try engine.start(
                durations: durations, name: name, owner: context.uid, quota: quota, action: action, wake: wake,
                alarm: alarm)
            // The same text as "started timer \(label), \(durations joined by spaces)\(actionText)",
            // written as UTF-8 bytes and made a String once: the interpolation and concatenations
            // appended piece by piece and were a tenth of a pipelined start in callgrind.
            var event: [UInt8] = []
            event.reserveCapacity(48 + actionText.utf8.count)
            event.append(contentsOf: "started timer ".utf8)
            event.append(contentsOf: snapshot.label.utf8)
            event.append(contentsOf: ", ".utf8)
            for (index, seconds) in durations.enumerated() {
                if index > 0 { event.append(UInt8(ascii: " ")) }
                event.append(contentsOf: DurationFormatter.compact(seconds: seconds).utf8)
            }
            event.append(contentsOf: actionText.utf8)
            return .line(
                try startReply(id, snapshot, warning: warning), changed: true,
                event: String(decoding: event, as: UTF8.self))
        case .timerStop:
            let reference = try Self.timerReference(params, method)
            let ending = try engine.stop(reference, requester: context.requester)
            return .stopped(try json(ending.timer), ending)
        case .timerPause:
            let snapshot = try engine.pause(try Self.timerReference(params, method), requester: context.requester)
            return .result(try json(snapshot), changed: true, event: "paused timer \(snapshot.label)")
        case .timerResume:
            let snapshot = try engine.resume(try Self.timerReference(params, method), requester: context.requester)
            return .result(try json(snapshot), changed: true, event: "resumed timer \(snapshot.label)")
        case .timerStatus:
            let snapshot = try engine.status(try Self.timerReference(params, method), requester: context.requester)
            return .result(try json(snapshot), changed: false)
        case .timerRuns:
            return .result(try runsResult(params, context: context), changed: false)
        case .timerList:
            try Self.allowOnly(["all"], in: params, method: method)
            let all: Bool
            switch params["all"] {
            case .none, .some(.null): all = false
            case .some(.bool(let value)): all = value
            case .some(let other): throw Self.typeError("all", "a boolean", other, method)
            }
            let ids = engine.listIDs(includeEnded: all, requester: context.requester)
            if let id, ids.count > Self.streamingThreshold { return .listing(TimerListing(id: id, ids: ids)) }
            return .result(try json(engine.list(includeEnded: all, requester: context.requester)), changed: false)
        case .timerWait:
            let reference = try Self.timerReference(params, method)
            let timer = try engine.status(reference, requester: context.requester)
            if !timer.state.isLive { return .result(try json(timer), changed: false) }
            // A wait is a one-timer subscription to its ending; a notification (no id) gets no reply.
            if let id {
                try checkWaitLimits(for: context)
                addWait(id, timer: timer.id, context: context)
            }
            return .waiting
        case .daemonPing:
            try Self.allowOnly([], in: params, method: method)
            return .result(pingResult(), changed: false)
        case .daemonReload:
            try Self.allowOnly([], in: params, method: method)
            return .reload
        case .daemonMetrics:
            try Self.allowOnly([], in: params, method: method)
            return .metrics
        case .timerExtend, .timerRestart, .timerRename, .timerSkip, .timerRemove, .timerBeat:
            return try runEdit(method, params: params, context: context)
        case .timerAck:
            let ending = try engine.acknowledge(try Self.editReference(params, method), requester: context.requester)
            return .result(try json(ending.timer), changed: true, event: "acknowledged timer \(ending.timer.label)")
        case .timerSnooze:
            let reference = try Self.editReference(params, method, extra: ["for"])
            let seconds = try snoozeFor(params)
            let snapshot = try engine.snooze(reference, bySeconds: seconds, requester: context.requester)
            let event = "snoozed timer \(snapshot.label) for \(DurationFormatter.compact(seconds: seconds))"
            return .result(try json(snapshot), changed: true, event: event)
        case .daemonStats:
            try Self.allowOnly([], in: params, method: method)
            let lateness = engine.lateness.summary.map {
                LatenessSummary(count: $0.count, p50: $0.p50, p99: $0.p99, max: $0.max)
            }
            // Root and the daemon's own uid see the daemon's figures; anyone else only their own
            // (docs/fairness.md).
            let result =
                context.seesAll || context.uid == daemonUID
                ? StatsResult(
                    liveTimers: engine.liveCount, runningTimers: engine.runningCount,
                    firedTimers: engine.firedTotal, latenessMicroseconds: lateness, catchUpTimers: engine.catchUpCount)
                : StatsResult(
                    liveTimers: engine.liveCount(owner: context.uid),
                    runningTimers: engine.runningCount(owner: context.uid),
                    firedTimers: engine.firedCount(owner: context.uid), latenessMicroseconds: nil)
            var writer = JSONBytesWriter(capacity: 160)
            try result.write(to: &writer)
            return .result(writer.bytes, changed: false)
        case .timerSubscribe:
            return .subscribed(try subscribe(params, context: context))
        case .timerUnsubscribe:
            let (subscriber, data) = try unsubscribe(params, context: context)
            return .unsubscribed(subscriber, data)
        }
    }
}
