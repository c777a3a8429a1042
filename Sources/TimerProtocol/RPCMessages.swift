import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A JSON-RPC 2.0 request id: a string, a number or null (JSON-RPC 2.0 §4).
public enum RPCID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A numeric id (integral in practice) that a `Double` holds exactly.
    case number(Double)
    /// An integral id beyond ±2^53, where a `Double` would round it, kept as its decimal digits
    /// (`"9007199254740993"`, optionally with a leading `-`) so the reply echoes it digit for digit
    /// (JSON-RPC 2.0 §4: the response's id is the request's).
    case largeInteger(String)
    /// A string id.
    case string(String)
    /// `null`: used in error replies to requests whose id could not be read.
    case null

    /// Decodes a string, number or null id.
    ///
    /// - Throws: `DecodingError` for any other JSON type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes the id as it came (integral numbers without a fraction).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value):
            if value == value.rounded(), abs(value) < 9e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .largeInteger(let digits):
            if let value = Int64(digits) {
                try container.encode(value)
            } else if let value = UInt64(digits) {
                try container.encode(value)
            } else {
                try container.encode(Double(digits) ?? 0)
            }
        case .string(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }

    /// The id as JSON text.
    public var description: String {
        switch self {
        case .number(let value): return DurationFormatter.number(value)
        case .largeInteger(let digits): return digits
        case .string(let value): return "\"\(value)\""
        case .null: return "null"
        }
    }
}

/// The numeric codes of JSON-RPC error objects: the standard ones (JSON-RPC 2.0 §5.1) and the
/// service's own in the implementation-defined range -32000 … -32099. These numbers are stable.
public enum RPCErrorCode: Int, Sendable, Codable, Hashable, CaseIterable {
    /// The line is not valid JSON (or not UTF-8).
    case parseError = -32700
    /// Valid JSON but not a request object, a batch, or a line over 64 KiB.
    case invalidRequest = -32600
    /// No such method.
    case methodNotFound = -32601
    /// Missing or wrongly typed parameters, an invalid duration or name.
    case invalidParams = -32602
    /// A bug or an I/O failure inside the daemon (for example, its state could not be saved).
    case internalError = -32603
    /// No timer with that id or name (for this user).
    case timerNotFound = -32001
    /// The operation is not allowed in the timer's state.
    case invalidTransition = -32002
    /// A live timer already has that name.
    case nameInUse = -32003
    /// The user has too many live timers.
    case quotaExceeded = -32004
    /// A request line was started but not completed in time; the connection is closed.
    case requestTimeout = -32005
    /// The daemon has too many connections; this one is closed.
    case tooManyConnections = -32006
    /// The requester may not do this (`daemon.reload` by another user than root or the daemon's).
    case permissionDenied = -32007
    /// `daemon.reload` found a bad configuration file; the old configuration stays in force.
    case reloadFailed = -32008
}

/// A JSON-RPC error object (JSON-RPC 2.0 §5.1): a stable code and a message a person can act on.
public struct RPCError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The code; see ``RPCErrorCode``.
    public var code: Int
    /// What was wrong and what is allowed.
    public var message: String

    /// Creates an error object.
    ///
    /// - Parameters:
    ///   - code: the stable code.
    ///   - message: the text for a person.
    public init(_ code: RPCErrorCode, _ message: String) {
        self.code = code.rawValue
        self.message = message
    }

    /// Creates an error object with any code, as a client reads it from a reply.
    ///
    /// - Parameters:
    ///   - code: the code as sent.
    ///   - message: the text for a person.
    package init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    /// The error a `CountdownError` becomes on the wire.
    ///
    /// - Parameter error: the engine's error.
    public init(_ error: CountdownError) {
        let code: RPCErrorCode
        switch error {
        case .timerNotFound: code = .timerNotFound
        case .invalidTransition, .notAGroup, .notForRecurring, .noRunInProgress, .notAHeartbeat, .beatTooLate:
            code = .invalidTransition
        case .nameInUse: code = .nameInUse
        case .quotaExceeded: code = .quotaExceeded
        case .invalidDuration, .durationOutOfRange, .durationTooShort, .groupSizeOutOfRange, .groupTooLong,
            .invalidName,
            .deadlineOutOfRange, .invalidRecurrence, .invalidHeartbeat, .invalidAlarm:
            code = .invalidParams
        }
        self.init(code, error.description)
    }

    /// The message.
    public var description: String { message }
}

/// The methods of protocol version 1, with their parameters and results (see docs/protocol.md).
public enum RPCMethod: String, Sendable, Codable, CaseIterable {
    /// `{"durations": [seconds or "25m", …], "name"?: "tea"}` or `{"at": "2026-12-01T09:00:00+01:00", "name"?: …}`
    /// → the new timer.
    case timerStart = "timer.start"
    /// `{"timer": "tea" | 3}` → the stopped timer.
    case timerStop = "timer.stop"
    /// `{"timer": …}` → the paused timer.
    case timerPause = "timer.pause"
    /// `{"timer": …}` → the running timer.
    case timerResume = "timer.resume"
    /// `{"timer": …}` → one timer.
    case timerStatus = "timer.status"
    /// `{"all"?: false}` → every live timer (with `all`, the ended history too).
    case timerList = "timer.list"
    /// `{"timer": …}` → the timer once it has ended; its `state` says how.
    case timerWait = "timer.wait"
    /// `{}` → ``PingResult``.
    case daemonPing = "daemon.ping"
    /// `{}` → ``ReloadResult``, sent once the configuration was re-read (what SIGHUP does);
    /// root or the daemon's own user only.
    case daemonReload = "daemon.reload"
    /// `{}` → ``StatsResult``: timer counts and the lateness of recent firings.
    case daemonStats = "daemon.stats"
    /// `{"timer"?: id | name | "all", "events"?: [kind, …], "afterSeq"?: N}` →
    /// `{"subscription": S, "seq": N}`, then `timer.event` and `timer.gap` notifications on the
    /// same connection until `timer.unsubscribe` or the connection closes (docs/protocol.md, "Events").
    case timerSubscribe = "timer.subscribe"
    /// `{"subscription": S}` → `{"unsubscribed": true}`.
    case timerUnsubscribe = "timer.unsubscribe"
    /// `{"timer": …, "by": seconds or "5m" / "-5m"}` → the timer with time added to (or taken from)
    /// its current step.
    case timerExtend = "timer.extend"
    /// `{"timer": …}` → the timer started again with the same durations, same id.
    case timerRestart = "timer.restart"
    /// `{"timer": …}` → the heartbeat timer re-armed to its whole duration from now (a paused one
    /// resumed), its beat counted.
    case timerBeat = "timer.beat"
    /// `{"timer": …, "name": "new"}` → the renamed timer.
    case timerRename = "timer.rename"
    /// `{"timer": …}` → the group after its current step was ended and the next began.
    case timerSkip = "timer.skip"
    /// `{"timer": …}` or `{"allEnded": true}` → the removed (ended) timers, by ascending id.
    case timerRemove = "timer.remove"
    /// `{"timer": …}` → ``ActionRunsResult``: the timer's kept on-finish action runs with their
    /// output (read-only).
    case timerRuns = "timer.runs"
    /// `{}` → ``MetricsResult``: the daemon's metrics in the Prometheus text format (the text
    /// `timerd --metrics` serves; docs/metrics.md); root or the daemon's own user only.
    case daemonMetrics = "daemon.metrics"
    /// `{"timer": …}` → the ringing timer acknowledged: finished, its ringing stopped.
    case timerAck = "timer.ack"
    /// `{"timer": …, "for"?: seconds or "9m"}` → the ringing timer running again for that long
    /// (the daemon's snooze default without `for`).
    case timerSnooze = "timer.snooze"

    /// The method named `rawValue` (`"timer.start"`, …), or `nil` for any other text (case and
    /// spaces matter; the names are ASCII letters and dots, which no other text is canonically
    /// equivalent to, so comparing the UTF-8 length first refuses nothing `==` would accept).
    ///
    /// Written out instead of the synthesized look-up, which built the table of names and compared
    /// them one by one (on every request): the length picks
    /// at most six candidates. `RPCMethodLookupTests` checks it against every case's `rawValue`.
    ///
    /// - Parameter rawValue: a request's `method`.
    public init?(rawValue: String) {
        let method: RPCMethod?
        switch rawValue.utf8.count {
        case 9: method = rawValue == "timer.ack" ? .timerAck : nil
        case 10:
            switch rawValue {
            case "timer.stop": method = .timerStop
            case "timer.list": method = .timerList
            case "timer.wait": method = .timerWait
            case "timer.skip": method = .timerSkip
            case "timer.runs": method = .timerRuns
            case "timer.beat": method = .timerBeat
            default: method = nil
            }
        case 11:
            switch rawValue {
            case "timer.start": method = .timerStart
            case "daemon.ping": method = .daemonPing
            case "timer.pause": method = .timerPause
            default: method = nil
            }
        case 12:
            switch rawValue {
            case "timer.status": method = .timerStatus
            case "timer.resume": method = .timerResume
            case "daemon.stats": method = .daemonStats
            case "timer.extend": method = .timerExtend
            case "timer.rename": method = .timerRename
            case "timer.remove": method = .timerRemove
            case "timer.snooze": method = .timerSnooze
            default: method = nil
            }
        case 13:
            switch rawValue {
            case "daemon.reload": method = .daemonReload
            case "timer.restart": method = .timerRestart
            default: method = nil
            }
        case 14: method = rawValue == "daemon.metrics" ? .daemonMetrics : nil
        case 15: method = rawValue == "timer.subscribe" ? .timerSubscribe : nil
        case 17: method = rawValue == "timer.unsubscribe" ? .timerUnsubscribe : nil
        default: method = nil
        }
        guard let method else { return nil }
        self = method
    }
}

/// The result of `daemon.reload`.
public struct ReloadResult: Sendable, Hashable, Codable {
    /// The configuration file read, or `nil` when there is none to read.
    public var config: String?
    /// Whether that file existed (a missing file means the defaults).
    public var found: Bool

    /// Creates a reload result.
    ///
    /// - Parameters:
    ///   - config: the file's path, or `nil`.
    ///   - found: whether it existed.
    public init(config: String?, found: Bool) {
        self.config = config
        self.found = found
    }
}

/// The result of `daemon.ping`.
public struct PingResult: Sendable, Hashable, Codable {
    /// The daemon's version (semantic versioning).
    public var version: String
    /// The protocol version; this document describes 1.
    public var protocolVersion: Int
    /// The daemon's process id.
    public var pid: Int32
    /// Where the daemon keeps its timers (`file /var/lib/timerd`, `postgresql host=/run/pg …`);
    /// absent from older daemons.
    public var store: String?
    /// The host's name in a store several hosts share (`timerd --host-id`); absent for a store of
    /// one host.
    public var hostID: String?

    /// Creates a ping result.
    ///
    /// - Parameters:
    ///   - version: the daemon's version.
    ///   - protocolVersion: the protocol version.
    ///   - pid: the daemon's process id.
    ///   - store: where it keeps its timers, if it says.
    ///   - hostID: its host id in a shared store, if any.
    public init(version: String, protocolVersion: Int, pid: Int32, store: String? = nil, hostID: String? = nil) {
        self.version = version
        self.protocolVersion = protocolVersion
        self.pid = pid
        self.store = store
        self.hostID = hostID
    }
}

/// The version strings of this build.
public enum ServiceVersion {
    /// The release version of timerd and timerctl.
    public static let version = "0.1.0"
    /// The wire protocol's version.
    public static let protocolVersion = 1
}

/// How a local wall time given to `timer.start` (`"at": "14:30", "timeZone": "Europe/Paris"`) was
/// resolved: returned in the new timer's `resolvedAt`.
public struct LocalTimeResolution: Sendable, Hashable, Codable {
    /// The instant chosen.
    public var date: Date
    /// That instant as a local ISO 8601 date-time with its offset (`2026-11-29T18:30:00+01:00`).
    public var localTime: String
    /// The IANA zone it was read in.
    public var timeZone: String
    /// `exact`, or how a daylight-saving change moved it ("moved forward 3600 s over a daylight-saving gap",
    /// "first of two occurrences (clocks go back)").
    public var adjustment: String

    /// Creates a resolution.
    public init(date: Date, localTime: String, timeZone: String, adjustment: String) {
        self.date = date
        self.localTime = localTime
        self.timeZone = timeZone
        self.adjustment = adjustment
    }

    private enum CodingKeys: String, CodingKey {
        case localTime, timeZone, adjustment
    }

    /// Decodes from `localTime` (the instant is read back from it).
    ///
    /// - Throws: `DecodingError.dataCorrupted` when `localTime` is not an ISO 8601 date-time.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        localTime = try container.decode(String.self, forKey: .localTime)
        timeZone = try container.decode(String.self, forKey: .timeZone)
        adjustment = try container.decode(String.self, forKey: .adjustment)
        guard let date = ISO8601.date(from: localTime) else {
            throw DecodingError.dataCorruptedError(
                forKey: .localTime, in: container, debugDescription: "not an ISO 8601 date-time: \(localTime)")
        }
        self.date = date
    }

    /// Encodes `localTime`, `timeZone` and `adjustment`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(localTime, forKey: .localTime)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(adjustment, forKey: .adjustment)
    }
}
