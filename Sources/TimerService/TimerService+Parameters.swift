import Countdown
import TimerModel
import TimerProtocol

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension TimerService {
    static func paramsObject(_ value: JSONValue?, method: RPCMethod) throws -> [String: JSONValue] {
        switch value {
        case .none, .some(.null): return [:]
        case .some(.object(let object)): return object
        case .some(let other):
            throw RPCError(
                .invalidParams, "params of \(method.rawValue) must be an object (by name), got \(other.typeName)")
        }
    }

    static func allowOnly(_ keys: Set<String>, in params: [String: JSONValue], method: RPCMethod) throws {
        for key in params.keys.sorted() where !keys.contains(key) {
            let allowed = keys.isEmpty ? "none" : keys.sorted().joined(separator: ", ")
            throw RPCError(.invalidParams, "unknown parameter \"\(key)\" for \(method.rawValue); allowed: \(allowed)")
        }
    }

    static func typeError(_ key: String, _ expected: String, _ got: JSONValue, _ method: RPCMethod)
        -> RPCError
    {
        RPCError(.invalidParams, "\"\(key)\" of \(method.rawValue) must be \(expected), got \(got.typeName)")
    }

    static func timerReference(_ params: [String: JSONValue], _ method: RPCMethod) throws -> TimerReference {
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
    func absoluteDeadline(_ params: [String: JSONValue]) throws -> (Date, LocalTimeResolution?)? {
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

    /// `on` (a calendar expression, with the requester's `timeZone` when it has one) or `every` (a
    /// period, with an optional first elapse `from`), with `skipMissed` and `randomizedDelay`; `nil`
    /// when neither `on` nor `every` is given (a one-shot timer, whose `at`/`durations` are read after).
    func recurrenceRequest(_ params: [String: JSONValue]) throws -> TimerEngine.RecurrenceRequest? {
        let on = params["on"] ?? .null
        let every = params["every"] ?? .null
        if on == .null, every == .null {
            for key in ["skipMissed", "randomizedDelay", "from"] where params[key] != nil {
                throw RPCError(.invalidParams, "\"\(key)\" of timer.start goes with \"on\" or \"every\"")
            }
            return nil
        }
        for key in ["at", "durations", "minuteInterval"] where params[key] != nil {
            throw RPCError(.invalidParams, "timer.start takes one of \"durations\", \"at\", \"on\" or \"every\"")
        }
        var skipMissed = false
        switch params["skipMissed"] {
        case .none, .some(.null): break
        case .some(.bool(let value)): skipMissed = value
        case .some(let other): throw Self.typeError("skipMissed", "a boolean", other, .timerStart)
        }
        var delay = 0.0
        switch params["randomizedDelay"] {
        case .none, .some(.null): break
        case .some(.number(let seconds)) where seconds == 0: break
        case .some(.number(let seconds)):
            try DurationParser.validate(seconds: seconds)
            delay = seconds
        case .some(.string(let text)): delay = try DurationParser.seconds(from: text)
        case .some(let other):
            throw Self.typeError(
                "randomizedDelay", "seconds (a number) or a duration such as \"30s\"", other, .timerStart)
        }
        let zone: String?
        switch params["timeZone"] {
        case .none, .some(.null): zone = nil
        case .some(.string(let value)): zone = value
        case .some(let other): throw Self.typeError("timeZone", "an IANA time zone name", other, .timerStart)
        }
        let kind: TimerEngine.RecurrenceRequest.Kind
        switch (on, every) {
        case (.string(let expression), .null):
            guard params["from"] == nil else {
                throw RPCError(.invalidParams, "\"from\" of timer.start goes with \"every\", not \"on\"")
            }
            var resolved: TimeZone?
            if let zone {
                if let zoneResolver {
                    resolved = try zoneResolver(zone)
                } else {
                    guard let known = TimeZone(identifier: zone) else {
                        throw RPCError(
                            .invalidParams,
                            "unknown time zone \"\(zone)\": use an IANA name such as Europe/Paris or UTC")
                    }
                    resolved = known
                }
            }
            kind = .calendar(expression: expression, zone: resolved)
        case (.null, let value):
            let seconds: Double
            switch value {
            case .number(let number):
                try DurationParser.validate(seconds: number)
                seconds = number
            case .string(let text): seconds = try DurationParser.seconds(from: text)
            default:
                throw Self.typeError("every", "seconds (a number) or a duration such as \"90m\"", value, .timerStart)
            }
            var from: Date?
            switch params["from"] {
            case .none, .some(.null): break
            case .some(.string(let text)):
                var local: [String: JSONValue] = ["at": .string(text)]
                if let zone { local["timeZone"] = .string(zone) }
                from = try absoluteDeadline(local)?.0
            case .some(let other): throw Self.typeError("from", "an ISO 8601 date-time string", other, .timerStart)
            }
            kind = .every(seconds: seconds, from: from)
        case (.string, _):
            throw RPCError(.invalidParams, "timer.start takes \"on\" or \"every\", not both")
        default:
            throw Self.typeError("on", "a calendar expression (string) such as \"Mon..Fri 07:00\"", on, .timerStart)
        }
        return TimerEngine.RecurrenceRequest(kind: kind, skipMissed: skipMissed, randomizedDelay: delay)
    }

    static func durations(_ value: JSONValue?) throws -> [Double] {
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
