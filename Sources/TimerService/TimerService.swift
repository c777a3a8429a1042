import Countdown
import TimerModel
import TimerProtocol

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Who sent a request, and the token its reply waits under if it has to wait.
public struct RequestContext: Sendable, Hashable {
    /// The peer's uid (from `SO_PEERCRED`); timers it starts belong to it.
    public var uid: UInt32
    /// Whether the peer may see every user's timers (root).
    public var seesAll: Bool
    /// A token unique to this request, used when `timer.wait` has to wait.
    public var waiter: WaiterID

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - uid: the peer's uid.
    ///   - seesAll: whether it sees every user's timers; defaults to `uid == 0`.
    ///   - waiter: a token unique to the request.
    public init(uid: UInt32, seesAll: Bool? = nil, waiter: WaiterID) {
        self.uid = uid
        self.seesAll = seesAll ?? (uid == 0)
        self.waiter = waiter
    }

    var requester: UInt32? { seesAll ? nil : uid }
}

/// What handling one request line produced.
public struct ServiceOutcome: Sendable {
    /// The reply line (JSON, without the newline), or `nil` when the reply waits (`timer.wait`)
    /// or the request was a notification (no `id`).
    public var reply: [UInt8]?
    /// Whether the engine's state changed, so it must be saved before the reply is sent.
    public var changedState: Bool
    /// Waiters to answer now because this request ended their timer (`timer.stop`).
    public var wakeups: [(waiter: WaiterID, reply: [UInt8])]
    /// One line for the daemon's log when the request changed something (`started timer 3 ("tea"), 25m`).
    public var event: String?
    /// Whether the request itself changed the state (start, stop, pause, resume), so that the
    /// change must be durable before the reply is sent. Timers that merely finished do not count.
    public var requiresDurability = false
    /// Timers that were due and finished just before the request ran.
    public var endings: [TimerEnding] = []
    /// Set for `daemon.reload`: the daemon reloads, then answers with
    /// ``TimerService/reloadReply(id:_:)`` (``reply`` is then `nil`), so the answer comes only
    /// after the reload completed.
    public var reloadRequest: ReloadRequest?
}

/// A `daemon.reload` the daemon has to carry out and then answer.
public struct ReloadRequest: Sendable, Hashable {
    /// The request's id, or `nil` for a notification (reload, no reply).
    public var id: RPCID?
}

/// The protocol's server side without any I/O: reads one JSON-RPC 2.0 request line, runs it on the
/// engine and writes the reply line. The daemon feeds it lines from its sockets; tests feed it strings.
///
/// Wire format (docs/protocol.md): one JSON object per line, UTF-8, at most ``maximumLineBytes``.
/// Parameters are by name. A request without `id` is a notification: it runs and gets no reply.
/// Batches (arrays) are refused with `-32600`. Error codes are in ``RPCErrorCode``.
public struct TimerService: Sendable {
    /// The longest request line accepted, newline excluded: 64 KiB.
    public static let maximumLineBytes = 65_536

    /// The engine the requests run on.
    public var engine: TimerEngine
    /// The most live timers one uid may have, or `nil` for no limit.
    public var quota: Int?
    /// The process id `daemon.ping` reports.
    public var pid: Int32

    private var pendingWaits: [WaiterID: RPCID] = [:]
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Creates a service around an engine.
    ///
    /// - Parameters:
    ///   - engine: the engine to run requests on.
    ///   - quota: the most live timers per uid, or `nil`.
    ///   - pid: the process id `daemon.ping` reports.
    public init(engine: TimerEngine, quota: Int? = 10_000, pid: Int32 = 0) {
        self.engine = engine
        self.quota = quota
        self.pid = pid
    }

    /// Resolves a local wall time for `timer.start` with `at` but no offset (`"14:30"`,
    /// `"2026-12-01T09:00"`) in the IANA zone given as `timeZone`, flooring the minute to
    /// `minuteInterval`, as of the given wall-clock instant. `nil` (the default) refuses local times;
    /// timerd installs one built on `DatePicking.LocalTimeResolver`, so that `timerctl` itself need
    /// not load the time-zone and calendar data. It throws an ``RPCError`` the client can act on.
    public var localTimeResolver:
        (
            @Sendable (_ text: String, _ timeZone: String, _ minuteInterval: Int, _ now: Date) throws ->
                LocalTimeResolution
        )?

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
        let value: JSONValue
        do {
            // The hand-written parser reads every well-formed line; JSONDecoder only confirms a refusal.
            value = try JSONValue(parsing: line) ?? JSONDecoder().decode(JSONValue.self, from: Data(line))
        } catch {
            outcome.reply = Self.errorLine(
                id: .null, RPCError(.parseError, "request is not valid JSON: send one JSON-RPC 2.0 object per line"))
            return outcome
        }
        guard case .object(let object) = value else {
            let what = value.typeName == "array" ? "batch requests are not supported" : "a request is a JSON object"
            outcome.reply = Self.errorLine(
                id: .null,
                RPCError(.invalidRequest, "\(what): send one {\"jsonrpc\":\"2.0\",\"id\":…,\"method\":…} per line"))
            return outcome
        }
        let id = Self.readID(object["id"])
        if case .some(let value) = object["id"], id == .null, value != .null {
            outcome.reply = Self.errorLine(
                id: .null, RPCError(.invalidRequest, "\"id\" must be a string, a number or null, got \(value.typeName)")
            )
            return outcome
        }
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
        // Timers already due finish first, so no request sees (or pauses) a timer past its end.
        let due = fireDueTimers()
        outcome.endings = due.endings
        outcome.wakeups = due.wakeups
        if !due.endings.isEmpty { outcome.changedState = true }
        do {
            let params = try Self.paramsObject(object["params"], method: method)
            switch try run(method, params: params, id: id, context: context) {
            case .result(let data, let changed, let event):
                outcome.changedState = outcome.changedState || changed
                outcome.requiresDurability = changed
                outcome.event = event
                outcome.reply = id == nil ? nil : Self.resultLine(id: id ?? .null, resultJSON: data)
            case .stopped(let data, let ending):
                outcome.changedState = true
                outcome.requiresDurability = true
                outcome.event = "stopped timer \(ending.timer.label)"
                outcome.reply = id == nil ? nil : Self.resultLine(id: id ?? .null, resultJSON: data)
                outcome.wakeups += wakeups(for: ending)
            case .waiting:
                outcome.reply = nil
            case .reload:
                outcome.reply = nil
                outcome.reloadRequest = ReloadRequest(id: id)
            }
        } catch {
            outcome.reply = id == nil ? nil : Self.errorLine(id: id ?? .null, error)
        }
        return outcome
    }

    /// Finishes due timers and builds the replies for their waiters.
    ///
    /// - Returns: the timers that ended and the replies to send.
    public mutating func fireDueTimers() -> (endings: [TimerEnding], wakeups: [(waiter: WaiterID, reply: [UInt8])]) {
        let endings = engine.fireDueTimers()
        return (endings, endings.flatMap { wakeups(for: $0) })
    }

    /// Forgets the waits of a client that went away.
    ///
    /// - Parameter waiter: the token of its pending `timer.wait`.
    public mutating func cancelWait(_ waiter: WaiterID) {
        pendingWaits[waiter] = nil
        engine.removeWaiter(waiter)
    }

    /// Replies to the timers ended as missed at start-up have no waiters; this builds the replies for
    /// any other ending (used when timers end outside a request).
    ///
    /// - Parameter ending: a timer that ended.
    /// - Returns: the replies for its waiters.
    public mutating func wakeups(for ending: TimerEnding) -> [(waiter: WaiterID, reply: [UInt8])] {
        ending.waiters.compactMap { waiter in
            guard let id = pendingWaits.removeValue(forKey: waiter) else { return nil }
            guard let data = try? Self.json(ending.timer) else { return nil }
            return (waiter, Self.resultLine(id: id, resultJSON: data))
        }
    }

    /// The error reply for a line longer than ``maximumLineBytes``.
    public static let tooLongMessage = "request line exceeds 65536 bytes; send one JSON object per line, at most 64 KiB"

    /// An error reply line.
    ///
    /// - Parameters:
    ///   - id: the request's id, or `.null` when it could not be read.
    ///   - error: the error object.
    /// - Returns: the JSON line, without the newline.
    public static func errorLine(id: RPCID, _ error: RPCError) -> [UInt8] {
        struct Reply: Encodable {
            var jsonrpc = "2.0"
            var id: RPCID
            var error: RPCError
        }
        return (try? Array(encoder.encode(Reply(id: id, error: error))))
            ?? Array(#"{"error":{"code":-32603,"message":"internal error"},"id":null,"jsonrpc":"2.0"}"#.utf8)
    }

    private static func errorLine(id: RPCID, _ error: any Error) -> [UInt8] {
        if let error = error as? RPCError { return errorLine(id: id, error) }
        if let error = error as? CountdownError { return errorLine(id: id, RPCError(error)) }
        return errorLine(id: id, RPCError(.internalError, "internal error: \(error)"))
    }

    private static func resultLine(id: RPCID, resultJSON: [UInt8]) -> [UInt8] {
        var writer = JSONBytesWriter(capacity: resultJSON.count + 48)
        writer.raw(#"{"id":"#)
        switch id {
        case .number(let value) where value == value.rounded() && abs(value) < 9e15:
            writer.integer(Int64(value))  // as RPCID.encode(to:) writes it
        case .string(let value):
            writer.string(value)
        case .null:
            writer.null()
        case .number:
            writer.bytes += (try? Array(encoder.encode(id))) ?? Array("null".utf8)
        }
        writer.raw(#","jsonrpc":"2.0","result":"#)
        writer.bytes += resultJSON
        writer.bytes.append(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// `info` as `encoder` encodes it, written by hand (``TimerInfo/write(to:)``) where that applies.
    private static func json(_ info: TimerInfo) throws -> [UInt8] {
        var writer = JSONBytesWriter()
        if (try? info.write(to: &writer)) == true { return writer.bytes }
        return Array(try encoder.encode(info))
    }

    /// `infos` as `encoder` encodes the array, written by hand where that applies.
    private static func json(_ infos: [TimerInfo]) throws -> [UInt8] {
        var writer = JSONBytesWriter(capacity: 512 * infos.count + 2)
        writer.bytes.append(UInt8(ascii: "["))
        for (index, info) in infos.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            guard (try? info.write(to: &writer)) == true else { return Array(try encoder.encode(infos)) }
        }
        writer.bytes.append(UInt8(ascii: "]"))
        return writer.bytes
    }

    private static func readID(_ value: JSONValue?) -> RPCID? {
        switch value {
        case .none: return nil
        case .some(.number(let number)): return .number(number)
        case .some(.string(let string)): return .string(string)
        default: return .null
        }
    }

    private enum RunResult {
        case result([UInt8], changed: Bool, event: String? = nil)
        case stopped([UInt8], TimerEnding)
        case waiting
        case reload
    }

    private mutating func run(
        _ method: RPCMethod, params: [String: JSONValue], id: RPCID?, context: RequestContext
    ) throws -> RunResult {
        let encoder = Self.encoder
        switch method {
        case .timerStart:
            try Self.allowOnly(["at", "durations", "minuteInterval", "name", "timeZone"], in: params, method: method)
            let name: String?
            switch params["name"] {
            case .none, .some(.null): name = nil
            case .some(.string(let value)): name = value
            case .some(let other): throw Self.typeError("name", "a string", other, method)
            }
            let quota = context.seesAll ? nil : quota
            if let (deadline, resolution) = try absoluteDeadline(params) {
                var info = try engine.start(at: deadline, name: name, owner: context.uid, quota: quota)
                info.resolvedAt = resolution
                let event = "started timer \(info.label), ends at \(ISO8601.string(from: deadline))"
                return .result(Array(try encoder.encode(info)), changed: true, event: event)
            }
            let durations = try Self.durations(params["durations"])
            let info = try engine.start(durations: durations, name: name, owner: context.uid, quota: quota)
            let event =
                "started timer \(info.label), "
                + durations.map { DurationFormatter.compact(seconds: $0) }.joined(separator: " ")
            return .result(try Self.json(info), changed: true, event: event)
        case .timerStop:
            let reference = try Self.timerReference(params, method)
            let ending = try engine.stop(reference, requester: context.requester)
            return .stopped(try Self.json(ending.timer), ending)
        case .timerPause:
            let info = try engine.pause(try Self.timerReference(params, method), requester: context.requester)
            return .result(try Self.json(info), changed: true, event: "paused timer \(info.label)")
        case .timerResume:
            let info = try engine.resume(try Self.timerReference(params, method), requester: context.requester)
            return .result(try Self.json(info), changed: true, event: "resumed timer \(info.label)")
        case .timerStatus:
            let info = try engine.status(try Self.timerReference(params, method), requester: context.requester)
            return .result(try Self.json(info), changed: false)
        case .timerList:
            try Self.allowOnly(["all"], in: params, method: method)
            let all: Bool
            switch params["all"] {
            case .none, .some(.null): all = false
            case .some(.bool(let value)): all = value
            case .some(let other): throw Self.typeError("all", "a boolean", other, method)
            }
            return .result(
                try Self.json(engine.list(includeEnded: all, requester: context.requester)), changed: false)
        case .timerWait:
            let reference = try Self.timerReference(params, method)
            if let ended = try engine.wait(reference, waiter: context.waiter, requester: context.requester) {
                return .result(try Self.json(ended), changed: false)
            }
            if let id {
                pendingWaits[context.waiter] = id
            } else {
                engine.removeWaiter(context.waiter)
            }
            return .waiting
        case .daemonPing:
            try Self.allowOnly([], in: params, method: method)
            let result = PingResult(
                version: ServiceVersion.version, protocolVersion: ServiceVersion.protocolVersion, pid: pid)
            return .result(Array(try encoder.encode(result)), changed: false)
        case .daemonReload:
            try Self.allowOnly([], in: params, method: method)
            return .reload
        case .daemonStats:
            try Self.allowOnly([], in: params, method: method)
            let result = StatsResult(
                liveTimers: engine.liveCount, runningTimers: engine.runningCount,
                firedTimers: engine.lateness.totalCount, latenessMicroseconds: engine.lateness.summary)
            return .result(Array(try encoder.encode(result)), changed: false)
        }
    }

    /// The reply to a `daemon.reload` once it is done.
    ///
    /// - Parameters:
    ///   - id: the request's id (`nil` for a notification: no reply).
    ///   - result: what the reload read, or the error (``RPCErrorCode/reloadFailed``,
    ///     ``RPCErrorCode/permissionDenied``).
    /// - Returns: the reply line without the newline, or `nil` for a notification.
    public static func reloadReply(id: RPCID?, _ result: Result<ReloadResult, RPCError>) -> [UInt8]? {
        guard let id else { return nil }
        switch result {
        case .success(let value):
            guard let data = try? encoder.encode(value) else {
                return errorLine(id: id, RPCError(.internalError, "cannot encode the reload result"))
            }
            return resultLine(id: id, resultJSON: Array(data))
        case .failure(let error):
            return errorLine(id: id, error)
        }
    }

    private static func paramsObject(_ value: JSONValue?, method: RPCMethod) throws -> [String: JSONValue] {
        switch value {
        case .none, .some(.null): return [:]
        case .some(.object(let object)): return object
        case .some(let other):
            throw RPCError(
                .invalidParams, "params of \(method.rawValue) must be an object (by name), got \(other.typeName)")
        }
    }

    private static func allowOnly(_ keys: Set<String>, in params: [String: JSONValue], method: RPCMethod) throws {
        for key in params.keys.sorted() where !keys.contains(key) {
            let allowed = keys.isEmpty ? "none" : keys.sorted().joined(separator: ", ")
            throw RPCError(.invalidParams, "unknown parameter \"\(key)\" for \(method.rawValue); allowed: \(allowed)")
        }
    }

    private static func typeError(_ key: String, _ expected: String, _ got: JSONValue, _ method: RPCMethod)
        -> RPCError
    {
        RPCError(.invalidParams, "\"\(key)\" of \(method.rawValue) must be \(expected), got \(got.typeName)")
    }

    private static func timerReference(_ params: [String: JSONValue], _ method: RPCMethod) throws -> TimerReference {
        try allowOnly(["timer"], in: params, method: method)
        switch params["timer"] {
        case .some(.string(let text)):
            return try TimerReference(parsing: text)
        case .some(.number(let number)) where number >= 0 && number == number.rounded() && number < 1.8e19:
            return .id(UInt64(number))
        case .none:
            throw RPCError(.invalidParams, "\(method.rawValue) needs \"timer\": an id (number) or a name (string)")
        case .some(let other):
            throw typeError("timer", "an id (whole number ≥ 0) or a name (string)", other, method)
        }
    }

    /// `at`: an ISO 8601 date-time with `Z` or an offset, or a local wall time with `timeZone` (and
    /// optionally `minuteInterval`), resolved by ``localTimeResolver``; exclusive with `durations`.
    private func absoluteDeadline(_ params: [String: JSONValue]) throws -> (Date, LocalTimeResolution?)? {
        let text: String
        switch params["at"] {
        case .none, .some(.null):
            for key in ["timeZone", "minuteInterval"] where params[key] != nil {
                throw RPCError(.invalidParams, "\"\(key)\" of timer.start goes with \"at\" (a local time)")
            }
            return nil
        case .some(.string(let value)):
            text = value
        case .some(let other):
            throw Self.typeError("at", "an ISO 8601 date-time string", other, .timerStart)
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
        let zone: String
        switch params["timeZone"] {
        case .some(.string(let value)): zone = value
        case .none, .some(.null):
            throw RPCError(
                .invalidParams,
                "\"at\" must be an ISO 8601 date-time with Z or an offset, such as \"2026-12-01T09:00:00+01:00\", or a "
                    + "local time with \"timeZone\", got \"\(text)\"")
        case .some(let other): throw Self.typeError("timeZone", "an IANA time zone name", other, .timerStart)
        }
        var interval = 1
        switch params["minuteInterval"] {
        case .none, .some(.null): break
        case .some(.number(let value)) where value == value.rounded() && abs(value) < 1e9: interval = Int(value)
        case .some(let other): throw Self.typeError("minuteInterval", "a whole number of minutes", other, .timerStart)
        }
        guard let localTimeResolver else {
            throw RPCError(.invalidParams, "this service does not resolve local times; send \"at\" with an offset")
        }
        let resolution = try localTimeResolver(text, zone, interval, engine.clock.wallNow())
        return (resolution.date, resolution)
    }

    private static func durations(_ value: JSONValue?) throws -> [Double] {
        let expected = "an array of durations (seconds as numbers, or strings such as \"25m\")"
        guard case .array(let items) = value else {
            throw value == nil
                ? RPCError(
                    .invalidParams, "timer.start needs \"durations\" (\(expected)) or \"at\" (an ISO 8601 end time)")
                : typeError("durations", expected, value ?? .null, .timerStart)
        }
        return try items.map { item in
            switch item {
            case .number(let seconds):
                try DurationParser.validate(seconds: seconds)
                return seconds
            case .string(let text):
                return try DurationParser.seconds(from: text)
            default:
                throw RPCError(
                    .invalidParams,
                    "each of \"durations\" must be a number of seconds or a string such as \"25m\", got \(item.typeName)"
                )
            }
        }
    }
}
