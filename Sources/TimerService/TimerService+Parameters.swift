import Countdown
import TimerModel
import TimerProtocol

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension TimerService {
    package static func paramsObject(_ value: JSONValue?, method: RPCMethod) throws -> [String: JSONValue] {
        switch value {
        case .none, .some(.null): return [:]
        case .some(.object(let object)): return object
        case .some(let other): throw paramsError(other, method: method)
        }
    }

    /// `params` as members (``paramsObject(_:method:)``'s rules): none or `null` are no parameters.
    ///
    /// - Throws: `RPCError` `-32602` "params of … must be an object (by name)" for anything but an object.
    static func params(_ value: JSONValue?, method: RPCMethod) throws -> JSONMembers {
        switch value {
        case .none, .some(.null): return [:]
        case .some(.object(let object)): return JSONMembers(object)
        case .some(let other): throw paramsError(other, method: method)
        }
    }

    private static func paramsError(_ value: JSONValue, method: RPCMethod) -> RPCError {
        RPCError(.invalidParams, "params of \(method.rawValue) must be an object (by name), got \(value.typeName)")
    }

    /// Refuses a parameter not in `keys`, naming the first such key in sorted order.
    ///
    /// - Parameters:
    ///   - keys: the parameters `method` takes (a handful: compared one by one, no hashing).
    ///   - params: the request's parameters.
    ///   - method: the method, for the message.
    /// - Throws: `RPCError` `-32602` "unknown parameter …; allowed: …" (docs/protocol.md).
    package static func allowOnly(_ keys: [String], in params: [String: JSONValue], method: RPCMethod) throws {
        try allowOnly(keys, in: JSONMembers(params), method: method)
    }

    /// Refuses a parameter not in `keys`, naming the first such key in sorted order.
    ///
    /// - Parameters:
    ///   - keys: the parameters `method` takes (a handful: compared one by one, no hashing).
    ///   - params: the request's parameters.
    ///   - method: the method, for the message.
    /// - Throws: `RPCError` `-32602` "unknown parameter …; allowed: …" (docs/protocol.md).
    package static func allowOnly(_ keys: [String], in params: JSONMembers, method: RPCMethod) throws {
        // Every key allowed is the common case: checked without building a Set or sorting the keys
        // (a Set of timer.start's eleven names is built and hashed on every pipelined start).
        guard params.members.contains(where: { !keys.contains($0.key) }) else { return }
        for key in params.keys.sorted() where !keys.contains(key) {
            let allowed = keys.isEmpty ? "none" : keys.sorted().joined(separator: ", ")
            throw RPCError(.invalidParams, "unknown parameter \"\(key)\" for \(method.rawValue); allowed: \(allowed)")
        }
    }

    package static func typeError(_ key: String, _ expected: String, _ got: JSONValue, _ method: RPCMethod)
        -> RPCError
    {
        RPCError(.invalidParams, "\"\(key)\" of \(method.rawValue) must be \(expected), got \(got.typeName)")
    }

    package static func timerReference(_ params: [String: JSONValue], _ method: RPCMethod) throws -> TimerReference {
        try timerReference(JSONMembers(params), method)
    }

    /// The `timer` parameter (an id or a name), the only one `method` takes.
    ///
    /// - Throws: `RPCError` `-32602` when `timer` is missing or not an id or a name, or another is given.
    static func timerReference(_ params: JSONMembers, _ method: RPCMethod) throws -> TimerReference {
        try allowOnly(["timer"], in: params, method: method)
        switch params["timer"] {
        case .some(.string(let text)):
            return try TimerReference(parsing: text)
        case .some(.number(let number)) where number >= 9_007_199_254_740_992:
            // Past 2^53 a Double rounds: the id is read from the literal's digits, exactly as the
            // same digits in a string are.
            guard let digits = params.largeIntegerLiteral("timer") else {
                throw typeError("timer", "an id (whole number ≥ 0) or a name (string)", .number(number), method)
            }
            return try TimerReference(parsing: digits)
        case .some(.number(let number)) where number >= 0 && number == number.rounded():
            return .id(UInt64(number))
        case .none:
            throw RPCError(.invalidParams, "\(method.rawValue) needs \"timer\": an id (number) or a name (string)")
        case .some(let other):
            throw typeError("timer", "an id (whole number ≥ 0) or a name (string)", other, method)
        }
    }

    /// `at`: an ISO 8601 date-time with `Z` or an offset, or a local wall time with `timeZone` (and
    /// optionally `minuteInterval`), resolved by ``localTimeResolver``; exclusive with `durations`.
    func absoluteDeadline(_ params: JSONMembers) throws -> (Date, LocalTimeResolution?)? {
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

    /// `loops` of `timer.start`: how many times a group of `durations` runs, one loop after the other
    /// (`timerctl start 25m 5m --loops 4`). The group is started as its durations repeated that many
    /// times, so progress, `skip` and `next` run across the loops, and both backends store it as any
    /// other group.
    ///
    /// - Parameter params: the request's params.
    /// - Returns: 1 when `loops` is absent or null, otherwise the whole number asked for.
    /// - Throws: `RPCError` `-32602` when `loops` is not a whole number from 1 to
    ///   `TimerLimits.maximumGroupSize`, or comes with `at`, `from` or `heartbeat`, or with `on` or
    ///   `every` but no `durations` (those have no group to repeat).
    package static func loops(_ params: JSONMembers) throws -> Int {
        let loops: Int
        switch params["loops"] {
        case .none, .some(.null): return 1
        case .some(.number(let value)) where value == value.rounded() && abs(value) < 1e9: loops = Int(value)
        case .some(let other): throw typeError("loops", "a whole number", other, .timerStart)
        }
        guard (1...TimerLimits.maximumGroupSize).contains(loops) else {
            throw RPCError(
                .invalidParams,
                "\"loops\" of timer.start must be 1 to \(TimerLimits.maximumGroupSize), got \(loops)")
        }
        let hasGroup = params["durations"] != nil && params["durations"] != .null
        for key in ["at", "on", "every", "from", "heartbeat"] where params[key] != nil && params[key] != .null {
            // A series that starts a group at each elapse repeats it too.
            if hasGroup, key == "on" || key == "every" { continue }
            throw RPCError(
                .invalidParams, "\"loops\" repeats a group of \"durations\"; it cannot be used with \"\(key)\"")
        }
        return loops
    }

    /// A group's `durations` run `loops` times: the list repeated, checked against the group limit.
    ///
    /// - Parameters:
    ///   - durations: one loop's durations in seconds, in order.
    ///   - loops: how many loops, 1 to `TimerLimits.maximumGroupSize` (from ``loops(_:)``).
    /// - Returns: `durations` repeated `loops` times.
    /// - Throws: `RPCError` `-32602` when the loops make more than `TimerLimits.maximumGroupSize` steps.
    package static func repeated(_ durations: [Double], loops: Int) throws -> [Double] {
        guard loops > 1 else { return durations }
        let steps = durations.count * loops
        guard steps <= TimerLimits.maximumGroupSize else {
            throw RPCError(
                .invalidParams,
                "\(loops) loops of \(durations.count) durations are \(steps) steps; a timer takes at most "
                    + "\(TimerLimits.maximumGroupSize)")
        }
        return Array((0..<loops).map { _ in durations }.joined())
    }

    package static func durations(_ value: JSONValue?) throws -> [Double] {
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
