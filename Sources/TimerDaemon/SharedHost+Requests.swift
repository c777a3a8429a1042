// Over 450 lines on purpose: the envelope and the router of shared mode with the methods whose
// bodies share its private helpers (start, subscribe, stats); the edits are in SharedHost+Edits.swift.
import Countdown
import Foundation
import TimerModel
import TimerPostgres
import TimerProtocol
import TimerService
import TimerSystem

/// The requests of shared mode: each one is statements of ``PostgresTimerQueue`` with the
/// requester's uid as the owner filter (root: none), answered in exactly the wire shape of the
/// one-host daemon (``TimerInfo``), so timerctl works unchanged.
extension SharedHost {
    /// What a request produced.
    struct Outcome {
        /// The reply line, or `nil` (a wait that waits, or a notification without `id`).
        var reply: [UInt8]?
        /// The request's id, for the reply.
        var requestID: RPCID?
        /// A `timer.wait` that waits under the request's token.
        var isWaiting = false
        /// The request's method (the daemon times requests per method).
        var method: RPCMethod?
        /// A new subscription (the request's token).
        var newSubscription: SubscriptionRegistry.SubscriberID?
        /// An ended subscription.
        var endedSubscription: SubscriptionRegistry.SubscriberID?
        /// A `timer.list` of more than `TimerService.streamingThreshold` timers, streamed by the
        /// daemon (``reply`` is then `nil`).
        var listing: TimerListing?
        /// Replayed events for a new subscription (`afterSeq`).
        var notifications: [EventNotification] = []
        /// A log line for a change (the daemon adds the requester's uid).
        var event: String?
        /// A start in the turn's open transaction: its reply waits for the turn's commit.
        var requiresDurability = false
        /// A start written later with the turn's others: ``reply`` is a placeholder that the
        /// daemon replaces with ``deferredReplies``' entry for the request's waiter.
        var isReplyDeferred = false
    }

    /// The methods shared mode serves itself; the others (`daemon.ping`, `daemon.reload`,
    /// `daemon.metrics`, bad envelopes, unknown methods) go to the daemon's ``TimerService``
    /// unchanged, and ``refusedMethods`` are refused.
    static let servedMethods: Set<RPCMethod> = [
        .timerStart, .timerStop, .timerPause, .timerResume, .timerStatus, .timerList, .timerWait, .timerSubscribe,
        .timerUnsubscribe, .timerRemove, .daemonStats, .timerExtend, .timerRestart, .timerRename, .timerSkip,
        .timerBeat, .timerRuns,
    ]

    /// Handles a request line if it is one shared mode serves (or refuses).
    ///
    /// - Returns: the outcome, or `nil` when the line is for the daemon's ``TimerService`` (an
    ///   envelope error, `daemon.ping`, `daemon.reload`, an unknown method).
    func handle(line: [UInt8], context: RequestContext) -> Outcome? {
        guard line.count <= TimerService.maximumLineBytes,
            case .object(let object)? = JSONValue(parsing: line, leniency: .foundationCompatible),
            case .string("2.0")? = object["jsonrpc"], case .string(let name)? = object["method"],
            let method = RPCMethod(rawValue: name),
            // A name twice in one object: the service refuses the request (-32600).
            JSONValue.requestMembers(parsing: line, leniency: .foundationCompatible)?.duplicateKey == nil
        else { return nil }
        let id: RPCID?
        switch object["id"] {
        case .none: id = nil
        case .some(.null): id = .null
        case .some(.string(let text)): id = .string(text)
        case .some(.number(let number)) where abs(number) < 9_007_199_254_740_992: id = .number(number)
        default: return nil  // large or odd ids: the service reads and refuses them as usual
        }
        let isServed = Self.servedMethods.contains(method)
        guard isServed || Self.refusedMethods.contains(method) else { return nil }
        var outcome = Outcome(requestID: id)
        outcome.method = method
        do {
            if method == .timerAck || method == .timerSnooze {
                // timerctl names the command in the user's words (ControlError.namingCommand).
                throw RPCError(.methodNotFound, Self.alarmRefusal(name))
            }
            guard isServed else {
                throw RPCError(
                    .methodNotFound,
                    "\(name) is not available in shared mode (timerd --shared); shared mode serves "
                        + Self.servedMethods.map(\.rawValue).sorted().joined(separator: ", ")
                        + ", daemon.ping, daemon.reload, daemon.metrics")
            }
            let params = try TimerService.paramsObject(object["params"], method: method)
            let result = try run(method, params: params, id: id, context: context, outcome: &outcome)
            if let result, let id { outcome.reply = TimerService.resultLine(id: id, resultJSON: result) }
        } catch {
            outcome.isWaiting = false
            if let id { outcome.reply = TimerService.errorLine(id: id, Self.rpcError(error, method: method)) }
        }
        return outcome
    }

    /// The methods shared mode answers with a clear error: the alarms' `timer.ack` and
    /// `timer.snooze` (``alarmRefusal(_:)``).
    static let refusedMethods: Set<RPCMethod> = [.timerAck, .timerSnooze]

    /// Why shared mode refuses an alarm's request (`-32601`), and where to start alarms instead.
    ///
    /// - Parameter what: the refused request, e.g. `"ring" of timer.start (--ring)`.
    /// - Returns: the message.
    static func alarmRefusal(_ what: String) -> String {
        "\(what) is not available in shared mode (timerd --shared): the shared schema stores no ringing "
            + "state and no warning, so no host could ring, warn, acknowledge or snooze; start alarms "
            + "(--ring, --warn) on a one-host timerd with the file store "
            + "(timerctl --socket /run/timerd/timerd.sock start … --ring)"
    }

    /// A database error as the client reads it: `-32603` with the reason; a change says it was not saved.
    static func rpcError(_ error: any Error, method: RPCMethod) -> any Error {
        guard let error = error as? PostgresError else { return error }
        let changes: Set<RPCMethod> = [
            .timerStart, .timerStop, .timerPause, .timerResume, .timerRemove, .timerExtend, .timerRestart, .timerRename,
            .timerSkip, .timerBeat,
        ]
        return RPCError(
            .internalError,
            (changes.contains(method) ? "state could not be saved: " : "the timers could not be read: ") + "\(error)")
    }

    /// Runs one served method; returns the result's JSON, or `nil` when the reply waits.
    private func run(
        _ method: RPCMethod, params: [String: JSONValue], id: RPCID?, context: RequestContext, outcome: inout Outcome
    ) throws -> [UInt8]? {
        let owner: UInt32? = context.seesAll ? nil : context.uid
        switch method {
        case .timerStart:
            return try start(params, context: context, outcome: &outcome)
        case .timerStop, .timerPause, .timerResume:
            let timer = try find(TimerService.timerReference(params, method), owner: owner)
            let operation: TimerOperation = method == .timerStop ? .stop : method == .timerPause ? .pause : .resume
            let done: Bool = try withQueue { queue throws(PostgresError) in
                switch operation {
                case .pause: return try queue.pause(id: timer.id, owner: owner) != nil
                case .resume:
                    // A calendar series goes on at the first elapse after now, as on one host.
                    if case .calendar? = timer.recurrence?.rule {
                        return try queue.resumeCalendar(id: timer.id, owner: owner)
                    }
                    return try queue.resume(id: timer.id, owner: owner) != nil
                default: return try queue.stop(id: timer.id, owner: owner)
                }
            }
            let now = try find(.id(UInt64(timer.id)), owner: owner)
            guard done else {
                throw CountdownError.invalidTransition(
                    timer: "timer \(Self.label(now))", state: TimerState(rawValue: now.state) ?? .stopped,
                    operation: operation)
            }
            changedThisTurn = true
            deadlineMovedThisTurn = true
            if method == .timerStop { figures.timerCounts.stopped += 1 }
            let verb = method == .timerStop ? "stopped" : method == .timerPause ? "paused" : "resumed"
            outcome.event = "\(verb) timer \(Self.label(now))"
            // As one host: a transition's reply shows a series without its run's step.
            var reply = now
            reply.runStep = nil
            return try Self.json(reply)
        case .timerStatus:
            return try Self.json(try find(TimerService.timerReference(params, method), owner: owner))
        case .timerList:
            try TimerService.allowOnly(["all"], in: params, method: method)
            let all: Bool
            switch params["all"] {
            case .none, .some(.null): all = false
            case .some(.bool(let value)): all = value
            case .some(let other): throw TimerService.typeError("all", "a boolean", other, method)
            }
            let ids = try withQueue { queue throws(PostgresError) in
                try queue.timerIDs(owner: owner, includeEnded: all)
            }
            if ids.count > TimerService.streamingThreshold, let id {
                // Written a part at a time as the client drains (SharedBackend.writeListing), as on one host.
                outcome.listing = TimerListing(id: id, ids: ids.map { UInt64($0) })
                return nil
            }
            let rows = try withQueue { queue throws(PostgresError) in try queue.timers(owner: owner, includeEnded: all)
            }
            return try Self.json(rows)
        case .timerWait:
            let timer = try find(TimerService.timerReference(params, method), owner: owner)
            if !timer.isLive { return try Self.json(timer) }
            guard let id else { return nil }
            try admit(context)
            waits[context.waiter] = Wait(
                requestID: id, timerID: timer.id, uid: context.uid, connection: context.connection)
            waitsByTimer[timer.id, default: []].insert(context.waiter)
            outcome.isWaiting = true
            return nil
        case .timerRemove:
            try TimerService.allowOnly(["allEnded", "timer"], in: params, method: method)
            let removed: [SharedTimerRow]
            switch params["allEnded"] {
            case .none, .some(.null), .some(.bool(false)):
                let timer = try find(
                    TimerService.timerReference(params.filter { $0.key == "timer" }, method), owner: owner)
                removed = try withQueue { queue throws(PostgresError) in
                    try queue.removeEnded(id: timer.id, owner: owner)
                }
                guard !removed.isEmpty else {
                    throw CountdownError.invalidTransition(
                        timer: "timer \(Self.label(timer))", state: TimerState(rawValue: timer.state) ?? .running,
                        operation: .remove)
                }
            case .some(.bool(true)):
                guard params["timer"] == nil else {
                    throw RPCError(.invalidParams, "timer.remove takes either \"timer\" or \"allEnded\", not both")
                }
                removed = try withQueue { queue throws(PostgresError) in
                    try queue.removeEnded(id: nil, owner: context.uid)
                }
            case .some(let other):
                throw TimerService.typeError("allEnded", "a boolean", other, method)
            }
            if !removed.isEmpty {
                outcome.event =
                    removed.count == 1
                    ? "removed timer \(Self.label(removed[0]))" : "removed \(removed.count) ended timers"
            }
            return try Self.json(removed)
        case .timerSubscribe:
            return try subscribe(params, context: context, outcome: &outcome)
        case .timerUnsubscribe:
            try TimerService.allowOnly(["subscription"], in: params, method: method)
            guard case .some(.number(let number)) = params["subscription"], number >= 0, number < 9e15,
                number == number.rounded(), let stream = streams[UInt64(number)],
                stream.connection == context.connection, stream.uid == context.uid
            else {
                throw RPCError(.invalidParams, "no such subscription on this connection")
            }
            cancelSubscription(UInt64(number))
            outcome.endedSubscription = UInt64(number)
            return Array(#"{"unsubscribed":true}"#.utf8)
        case .daemonStats:
            return try stats(context: context)
        case .timerRuns:
            return try runs(params, owner: owner)
        case .timerExtend, .timerRestart, .timerRename, .timerSkip, .timerBeat:
            return try edit(method, params: params, context: context, outcome: &outcome)
        default:
            return nil
        }
    }

    /// `timer.start` with `durations` (a plain timer, a group or a heartbeat timer), `at` (an end
    /// time, with `timeZone` and `minuteInterval`) or `on`/`every` (a recurring timer,
    /// ``startRecurring(_:name:params:context:outcome:)``); `name` and `action` optional.
    private func start(_ params: [String: JSONValue], context: RequestContext, outcome: inout Outcome) throws
        -> [UInt8]
    {
        // A heartbeat timer: one duration and none of at/on/every/from, read by the one-host rules
        // (so a recurring heartbeat is the one-host -32602, not the refusal of recurrence below).
        let heartbeatSeconds: Double? =
            try TimerService.isHeartbeat(JSONMembers(params))
            ? try TimerService.heartbeatDuration(JSONMembers(params)) : nil
        // Wake-marked timers need every host to arm an alarm clock; the shared schema has no mark yet.
        if let wake = params["wake"], wake != .null, wake != .bool(false) {
            throw RPCError(
                .methodNotFound,
                "wake-marked timers (\"wake\" of timer.start) are not available in shared mode (timerd --shared): "
                    + "the shared schema does not store the mark and its hosts arm no alarm clock; "
                    + "start them on a one-host timerd (timerctl --socket /run/timerd/timerd.sock start … --wake)")
        }
        // Alarms need a ringing state and a warned mark the shared schema does not store.
        for key in ["ring", "warn"] {
            guard let value = params[key], value != .null, value != .bool(false) else { continue }
            throw RPCError(.methodNotFound, Self.alarmRefusal("\"\(key)\" of timer.start (--\(key))"))
        }
        // The same checks as one host's first (a malformed value is -32602 there and here), then the
        // refusal: the shared schema stores no sound and no per-step warning.
        if try TimerService.soundParameter(JSONMembers(params)) != nil {
            throw RPCError(.methodNotFound, Self.alarmRefusal("\"sound\" of timer.start (--sound)"))
        }
        if try TimerService.warnEachParameter(JSONMembers(params)) {
            throw RPCError(.methodNotFound, Self.alarmRefusal("\"warnEach\" of timer.start (--warn-each)"))
        }
        try TimerService.allowOnly(
            [
                "action", "at", "durations", "every", "from", "heartbeat", "loops", "minuteInterval", "name", "on",
                "overlap", "randomizedDelay", "skipMissed", "timeZone",
            ], in: params, method: .timerStart)
        let loops = try TimerService.loops(JSONMembers(params))
        let name: String?
        switch params["name"] {
        case .none, .some(.null): name = nil
        case .some(.string(let value)): name = TimerName.normalized(value)
        case .some(let other): throw TimerService.typeError("name", "a string", other, .timerStart)
        }
        if heartbeatSeconds == nil, let recurrenceReader, let request = try recurrenceReader(JSONMembers(params)) {
            return try startRecurring(request, name: name, params: params, context: context, outcome: &outcome)
        }
        var dueAt: Double?
        var resolution: LocalTimeResolution?
        var durations: [Double]
        if let heartbeatSeconds {
            durations = [heartbeatSeconds]
        } else if let (date, resolved) = try absoluteDeadline(params) {
            // `at`: the deadline is the instant asked for; its length is measured on the database
            // clock, which also decided "now" for a local time.
            let now = try withStartBatch { queue throws(PostgresError) in try queue.databaseNow() }
            let seconds = date.timeIntervalSince1970 - now
            guard seconds.isFinite, seconds > 0, seconds <= DurationParser.maximumSeconds else {
                throw CountdownError.deadlineOutOfRange(
                    ISO8601.string(from: date), now: ISO8601.string(from: Date(timeIntervalSince1970: now)))
            }
            dueAt = date.timeIntervalSince1970
            resolution = resolved
            durations = [seconds]
        } else {
            durations = try TimerService.repeated(TimerService.durations(params["durations"]), loops: loops)
        }
        guard (1...TimerEngine.maximumGroupSize).contains(durations.count) else {
            throw CountdownError.groupSizeOutOfRange(durations.count)
        }
        let sum = durations.reduce(0, +)
        guard sum <= DurationParser.maximumSeconds else { throw CountdownError.groupTooLong(sum) }
        if let name, !TimerName.isValid(name) { throw CountdownError.invalidName(name) }
        let segments = durations.map { max(1, Int64(($0 * 1e9).rounded())) }
        var actionText: String?
        if params["action"] != nil && params["action"] != .null {
            guard let actionParser, let action = try actionParser(params["action"], context) else {
                throw RPCError(.invalidParams, "this timerd does not run on-finish actions")
            }
            actionText = Self.actionJSON(action)
        }
        // A start due one first step from now waits for the turn's others, and one statement
        // writes them all (SharedHost+StartBatch.swift); one inside an open transaction of the
        // turn (after a start at an instant) goes on in it.
        let defers: Bool
        switch startBatch {
        case .idle, .committed: defers = dueAt == nil
        case .open, .failed, .lost: defers = false
        }
        if let quota, !context.seesAll {
            let live: Int
            if defers {
                // The turn's pending starts of this user count too; the read does not write them.
                let pending = pendingStarts.count { $0.start.owner == context.uid }
                live =
                    try readKeepingPendingStarts { queue throws(PostgresError) in
                        try queue.liveCount(owner: context.uid, atMost: quota)
                    } + pending
            } else {
                live = try withStartBatch { queue throws(PostgresError) in
                    try queue.liveCount(owner: context.uid, atMost: quota)
                }
            }
            if live >= quota { throw CountdownError.quotaExceeded(limit: quota) }
        }
        if defers {
            pendingStarts.append(
                PendingStart(
                    start: SharedStart(
                        owner: context.uid, name: name, segmentsNanoseconds: segments, action: actionText,
                        isHeartbeat: heartbeatSeconds != nil),
                    waiter: context.waiter, requestID: outcome.requestID, durations: durations))
            outcome.requiresDurability = true
            outcome.isReplyDeferred = true
            return []
        }
        // In the turn's shared transaction: its reply waits for the turn's COMMIT, which
        // acknowledges every start of the turn with one WAL flush.
        let started = try withStartBatch { queue throws(PostgresError) in
            try queue.startReturningRow(
                owner: context.uid, name: name, segmentsNanoseconds: segments, action: actionText, dueAt: dueAt,
                heartbeat: heartbeatSeconds != nil)
        }
        guard let (row, isEarliest) = started else {
            // The name is taken by a live timer of this owner (on any host): the one-host daemon's error.
            let holder = try? withStartBatch { queue throws(PostgresError) in
                try queue.timer(named: name ?? "", owner: context.uid)
            }
            throw CountdownError.nameInUse(name ?? "", id: holder.map { String($0.id) } ?? "?")
        }
        noteBatchedStart()
        outcome.requiresDurability = startBatch != .committed
        if isEarliest { deadlineMovedThisTurn = true }
        changedThisTurn = true
        figures.timerCounts.started += 1
        outcome.event =
            (heartbeatSeconds != nil ? "started heartbeat timer " : "started timer ") + "\(Self.label(row)), "
            + (dueAt != nil
                ? "ends at \(row.endsAt ?? "?")"
                : durations.map { DurationFormatter.compact(seconds: $0) }.joined(separator: " "))
        var info = Self.info(row)
        info.resolvedAt = resolution
        var writer = JSONBytesWriter()
        try info.write(to: &writer)
        return writer.bytes
    }

    /// `at` of `timer.start`, as the one-host daemon reads it (`TimerService.absoluteDeadline`): an
    /// ISO 8601 instant with `Z` or an offset, or a local wall time with `timeZone` (and
    /// `minuteInterval`), resolved as of the database clock's now.
    ///
    /// - Returns: the instant and how a local time was resolved, or `nil` without `at`.
    func absoluteDeadline(_ params: [String: JSONValue]) throws -> (Date, LocalTimeResolution?)? {
        let text: String
        switch params["at"] {
        case .none, .some(.null):
            for key in ["timeZone", "minuteInterval"] where params[key] != nil {
                throw RPCError(.invalidParams, "\"\(key)\" of timer.start goes with \"at\" (a local time)")
            }
            return nil
        case .some(.string(let value)): text = value
        case .some(let other): throw TimerService.typeError("at", "an ISO 8601 date-time string", other, .timerStart)
        }
        guard params["durations"] == nil else {
            throw RPCError(.invalidParams, "timer.start takes either \"durations\" or \"at\", not both")
        }
        if let date = ISO8601.date(from: text) {
            for key in ["timeZone", "minuteInterval"] where params[key] != nil {
                throw RPCError(
                    .invalidParams, "\"\(key)\" applies to a local time; \"at\" \"\(text)\" has its own offset")
            }
            return (date, nil)
        }
        guard case .string(let zone)? = params["timeZone"] else {
            throw RPCError(
                .invalidParams,
                "\"at\" must be an ISO 8601 date-time with Z or an offset, or a local time with \"timeZone\", "
                    + "got \"\(text)\"")
        }
        var interval = 1
        switch params["minuteInterval"] {
        case .none, .some(.null): break
        case .some(.number(let value)) where value == value.rounded() && abs(value) < 1e9: interval = Int(value)
        case .some(let other):
            throw TimerService.typeError("minuteInterval", "a whole number of minutes", other, .timerStart)
        }
        guard let localTimeResolver else {
            throw RPCError(.invalidParams, "this service does not resolve local times; send \"at\" with an offset")
        }
        let now = try withQueue { queue throws(PostgresError) in try queue.databaseNow() }
        let resolution = try localTimeResolver(text, zone, interval, Date(timeIntervalSince1970: now))
        return (resolution.date, resolution)
    }

    /// The timer a reference names, as `owner` sees it.
    ///
    /// - Throws: `CountdownError.timerNotFound`, ``PostgresError``.
    func find(_ reference: TimerReference, owner: UInt32?) throws -> SharedTimerRow {
        let row: SharedTimerRow?
        switch reference {
        case .id(let id), .step(let id, _):
            guard id <= UInt64(Int64.max) else { throw CountdownError.timerNotFound(reference) }
            row = try withQueue { queue throws(PostgresError) in try queue.timer(id: Int64(id), owner: owner) }
            if case .step(_, let step) = reference, let row,
                !(1...row.segmentsNanoseconds.count).contains(step)
                    || row.segmentsNanoseconds.count < 2
            {
                throw CountdownError.timerNotFound(reference)
            }
        case .name(let name):
            row = try withQueue { queue throws(PostgresError) in try queue.timer(named: name, owner: owner) }
        }
        guard let row else { throw CountdownError.timerNotFound(reference) }
        return row
    }

    /// `timer.subscribe`: every timer the requester sees, or one; `events` filters kinds;
    /// `afterSeq` replays the outbox rows after it that this host has passed.
    private func subscribe(_ params: [String: JSONValue], context: RequestContext, outcome: inout Outcome) throws
        -> [UInt8]
    {
        let method = RPCMethod.timerSubscribe
        try TimerService.allowOnly(["afterSeq", "events", "timer"], in: params, method: method)
        let owner: UInt32? = context.seesAll ? nil : context.uid
        var timerID: Int64?
        switch params["timer"] {
        case .none, .some(.null), .some(.string("all")): timerID = nil
        default:
            let reference = try TimerService.timerReference(params.filter { $0.key == "timer" }, method)
            timerID = try find(reference, owner: owner).id
        }
        let kinds = try TimerService.eventKinds(params["events"])
        var afterSeq: Int64?
        switch params["afterSeq"] {
        case .none, .some(.null): afterSeq = nil
        case .some(.number(let number)) where number >= 0 && number == number.rounded() && number < 9e15:
            afterSeq = Int64(number)
        case .some(let other): throw TimerService.typeError("afterSeq", "a whole number ≥ 0", other, method)
        }
        if let afterSeq, afterSeq > lastSeq {
            throw RPCError(
                .invalidParams, "afterSeq \(afterSeq) is past the last event (\(lastSeq)); subscribe without afterSeq")
        }
        let stream = Stream(
            uid: context.uid, seesAll: context.seesAll, connection: context.connection, timerID: timerID,
            kinds: kinds.isEmpty ? nil : Set(kinds.map(\.rawValue)))
        // Counted last, once nothing above can refuse it (a refusal below undoes the count).
        try admit(context)
        if let afterSeq {
            let cursor = self.cursor
            let rows: [SharedEventRow]
            do {
                rows = try withQueue { queue throws(PostgresError) in
                    try queue.events(afterSeq: afterSeq, before: cursor, limit: 4_096)
                }
            } catch {
                release(connection: context.connection, uid: context.uid)
                throw error
            }
            let saved = streams
            streams = [context.waiter: stream]
            var output = TurnOutput()
            for row in rows { route(row, into: &output) }
            streams = saved
            outcome.notifications = output.notifications
        }
        streams[context.waiter] = stream
        outcome.newSubscription = context.waiter
        var writer = JSONBytesWriter(capacity: 48)
        writer.raw(#"{"seq":"#)
        writer.integer(lastSeq)
        writer.raw(#","subscription":"#)
        writer.integer(Int64(clamping: context.waiter))
        writer.raw("}")
        return writer.bytes
    }

    /// `daemon.stats` in shared mode: the counts of the shared timers the requester sees (every
    /// owner's for root and the daemon's uid), this host's firings and their lateness on the
    /// database clock, and the store figures.
    private func stats(context: RequestContext) throws -> [UInt8] {
        let rows = try withQueue { queue throws(PostgresError) in
            try queue.connection.query(
                """
                SELECT count(*) FILTER (WHERE live), count(*) FILTER (WHERE state = 'running')
                FROM timerd_timers WHERE ($1::bigint IS NULL OR owner = $1) AND segments_ns IS NOT NULL
                """, [context.seesAll ? nil : String(context.uid)])
        }
        let lateness = figures.lateness.summary.map {
            LatenessSummary(count: $0.count, p50: $0.p50, p99: $0.p99, max: $0.max)
        }
        var result = StatsResult(
            liveTimers: Int(rows.int64(0, 0) ?? 0), runningTimers: Int(rows.int64(0, 1) ?? 0),
            firedTimers: figures.completions, latenessMicroseconds: context.seesAll ? lateness : nil)
        let seconds = max(1e-9, Double(Syscall.bootTimeNanoseconds() - figures.startedAt) / 1e9)
        let trips = figures.roundTrips.summary
        result.store = StoreStats(
            claims: figures.claims, claimsPerSecond: Double(figures.claims) / seconds, leaseRescues: figures.rescues,
            fencesLost: figures.fencesLost, roundTripMicrosecondsP50: trips?.p50 ?? 0,
            roundTripMicrosecondsP99: trips?.p99 ?? 0)
        var writer = JSONBytesWriter(capacity: 320)
        try result.write(to: &writer)
        return writer.bytes
    }
}
