import TimerModel

/// A reply or result that does not have the shape the protocol documents.
package struct JSONShapeError: Error, Equatable, CustomStringConvertible {
    /// What was expected where (`"id": a string, a number or null`).
    package var description: String

    /// Creates an error.
    ///
    /// - Parameter description: what was expected where.
    package init(_ description: String) { self.description = description }
}

/// A wire type read from a parsed ``JSONValue``: how `timerctl` reads replies, with the product's one
/// JSON reader (``JSONValue/init(parsing:)``) instead of `JSONDecoder`.
///
/// The rules are those `JSONDecoder` applied to the `Codable` conformances: required keys must be
/// present with the right type, an optional key may be absent or `null`, unknown keys are ignored,
/// and an integer field takes only a whole number in range.
package protocol JSONReadable {
    /// Reads the value.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    init(json: JSONValue) throws(JSONShapeError)
}

/// The members of one JSON object, read by key.
package struct JSONObjectReader {
    private let members: [String: JSONValue]
    private let what: String

    /// Reads `json` as an object.
    ///
    /// - Parameters:
    ///   - json: the value.
    ///   - what: the type's name, for errors.
    /// - Throws: ``JSONShapeError`` when it is not an object.
    package init(_ json: JSONValue, _ what: String) throws(JSONShapeError) {
        guard case .object(let members) = json else { throw JSONShapeError("\(what): expected an object") }
        self.members = members
        self.what = what
    }

    /// The value under `key`, or `nil` when it is absent or `null`.
    package func optional(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    /// The value under `key`.
    ///
    /// - Throws: ``JSONShapeError`` when it is absent or `null`.
    package func required(_ key: String) throws(JSONShapeError) -> JSONValue {
        guard let value = optional(key) else { throw JSONShapeError("\(what): \"\(key)\" is missing") }
        return value
    }

    /// The string under `key`.
    ///
    /// - Throws: ``JSONShapeError`` when it is missing or has another type.
    package func string(_ key: String) throws(JSONShapeError) -> String {
        try Self.string(required(key), key)
    }

    /// The string under `key`, or `nil` when absent or `null`.
    ///
    /// - Throws: ``JSONShapeError`` when it is missing or has another type.
    package func optionalString(_ key: String) throws(JSONShapeError) -> String? {
        try optional(key).map { value throws(JSONShapeError) in try Self.string(value, key) }
    }

    /// The number under `key`.
    ///
    /// - Throws: ``JSONShapeError`` when it is missing or has another type.
    package func double(_ key: String) throws(JSONShapeError) -> Double {
        guard case .number(let value) = try required(key) else { throw JSONShapeError("\"\(key)\": expected a number") }
        return value
    }

    /// The Boolean under `key`.
    ///
    /// - Throws: ``JSONShapeError`` when it is missing or has another type.
    package func bool(_ key: String) throws(JSONShapeError) -> Bool {
        guard case .bool(let value) = try required(key) else { throw JSONShapeError("\"\(key)\": expected a boolean") }
        return value
    }

    /// The Boolean under `key`, or `nil` when absent or `null`.
    ///
    /// - Throws: ``JSONShapeError`` when it is missing or has another type.
    package func optionalBool(_ key: String) throws(JSONShapeError) -> Bool? {
        guard let value = optional(key) else { return nil }
        guard case .bool(let flag) = value else { throw JSONShapeError("\"\(key)\": expected a boolean") }
        return flag
    }

    /// The whole number under `key`, in range of `T`.
    ///
    /// - Throws: ``JSONShapeError`` when it is missing or has another type.
    package func integer<T: FixedWidthInteger>(_ key: String, as type: T.Type = T.self) throws(JSONShapeError) -> T {
        try Self.integer(required(key), key)
    }

    /// The whole number under `key`, or `nil` when absent or `null`.
    ///
    /// - Throws: ``JSONShapeError`` when it is missing or has another type.
    package func optionalInteger<T: FixedWidthInteger>(_ key: String, as type: T.Type = T.self) throws(JSONShapeError)
        -> T?
    {
        try optional(key).map { value throws(JSONShapeError) in try Self.integer(value, key) }
    }

    private static func string(_ value: JSONValue, _ key: String) throws(JSONShapeError) -> String {
        guard case .string(let text) = value else { throw JSONShapeError("\"\(key)\": expected a string") }
        return text
    }

    private static func integer<T: FixedWidthInteger>(_ value: JSONValue, _ key: String) throws(JSONShapeError) -> T {
        guard case .number(let number) = value, number == number.rounded(), let integer = T(exactly: number) else {
            throw JSONShapeError("\"\(key)\": expected a whole number in the range of \(T.self)")
        }
        return integer
    }
}

extension RPCID: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        switch json {
        case .null: self = .null
        case .number(let value): self = .number(value)
        case .string(let value): self = .string(value)
        default: throw JSONShapeError("\"id\": expected a string, a number or null")
        }
    }
}

extension RPCError: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "error")
        self.init(code: try object.integer("code"), message: try object.string("message"))
    }
}

extension ProgressSnapshot: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "progress")
        self.init(
            totalUnitCount: try object.integer("totalUnitCount"),
            completedUnitCount: try object.integer("completedUnitCount"),
            fractionCompleted: try object.double("fractionCompleted"),
            isIndeterminate: try object.bool("isIndeterminate"), isFinished: try object.bool("isFinished"),
            isCancelled: try object.bool("isCancelled"), isPaused: try object.bool("isPaused"))
    }
}

extension LocalTimeResolution: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "resolvedAt")
        let localTime = try object.string("localTime")
        guard let date = ISO8601.date(from: localTime) else {
            throw JSONShapeError("\"localTime\": not an ISO 8601 date-time: \(localTime)")
        }
        self.init(
            date: date, localTime: localTime, timeZone: try object.string("timeZone"),
            adjustment: try object.string("adjustment"))
    }
}

extension TimerInfo: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "timer")
        let stateText = try object.string("state")
        guard let state = TimerState(rawValue: stateText) else {
            throw JSONShapeError("\"state\": unknown state \"\(stateText)\"")
        }
        var children: [TimerInfo]?
        if let value = object.optional("children") {
            guard case .array(let items) = value else { throw JSONShapeError("\"children\": expected an array") }
            children = try items.map { item throws(JSONShapeError) in try TimerInfo(json: item) }
        }
        self.init(
            id: try object.string("id"), name: try object.optionalString("name"), state: state,
            duration: try object.double("duration"), remaining: try object.double("remaining"),
            elapsed: try object.double("elapsed"), progress: try ProgressSnapshot(json: object.required("progress")),
            createdAt: try object.optionalString("createdAt"), startedAt: try object.optionalString("startedAt"),
            endedAt: try object.optionalString("endedAt"), endsAt: try object.optionalString("endsAt"),
            missed: try object.optionalBool("missed"), currentChild: try object.optionalInteger("currentChild"),
            children: children)
        resolvedAt = try object.optional("resolvedAt").map { value throws(JSONShapeError) in
            try LocalTimeResolution(json: value)
        }
        recurrence = try object.optional("recurrence").map { value throws(JSONShapeError) in
            try RecurrenceInfo(json: value)
        }
        heartbeat = try object.optional("heartbeat").map { value throws(JSONShapeError) in
            try HeartbeatInfo(json: value)
        }
        wake = try object.optionalBool("wake")
        alarm = try object.optional("alarm").map { value throws(JSONShapeError) in try AlarmInfo(json: value) }
        warning = try object.optionalString("warning")
    }
}

extension Array: JSONReadable where Element: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        guard case .array(let items) = json else { throw JSONShapeError("expected an array") }
        self = try items.map { item throws(JSONShapeError) in try Element(json: item) }
    }
}

extension PingResult: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "ping result")
        self.init(
            version: try object.string("version"), protocolVersion: try object.integer("protocolVersion"),
            pid: try object.integer("pid"), store: try object.optionalString("store"),
            hostID: try object.optionalString("hostID"))
    }
}

extension ReloadResult: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "reload result")
        self.init(config: try object.optionalString("config"), found: try object.bool("found"))
    }
}

/// A reply line as a client reads it: the id, and the result or the error.
package struct RPCReply {
    /// The id of the request answered (`null` when the request could not be read).
    package var id: RPCID
    /// The result, on success (`nil` when absent or `null`).
    package var result: JSONValue?
    /// The error, on failure.
    package var error: RPCError?

    /// Reads a reply line with the one JSON reader.
    ///
    /// - Parameter line: the line's bytes, without the newline.
    /// - Throws: ``JSONShapeError`` when it is not JSON or not a reply object.
    package init(line: [UInt8]) throws(JSONShapeError) {
        guard let value = JSONValue(parsing: line) else { throw JSONShapeError("the reply is not JSON") }
        let object = try JSONObjectReader(value, "reply")
        // `"id": null` is an id (a request that could not be read); only a missing one is refused.
        guard case .object(let members) = value, let idValue = members["id"] else {
            throw JSONShapeError("reply: \"id\" is missing")
        }
        id = try RPCID(json: idValue)
        result = object.optional("result")
        error = try object.optional("error").map { value throws(JSONShapeError) in try RPCError(json: value) }
    }
}

extension StatsResult: JSONReadable {
    /// Reads the value as `JSONDecoder` read its `Decodable` conformance.
    ///
    /// - Parameter json: the parsed JSON.
    /// - Throws: ``JSONShapeError`` naming the first key with the wrong shape.
    package init(json: JSONValue) throws(JSONShapeError) {
        let object = try JSONObjectReader(json, "stats result")
        var lateness: LatenessSummary?
        if let value = object.optional("latenessMicroseconds") {
            let summary = try JSONObjectReader(value, "latenessMicroseconds")
            lateness = LatenessSummary(
                count: try summary.integer("count"), p50: try summary.double("p50"), p99: try summary.double("p99"),
                max: try summary.double("max"))
        }
        self.init(
            liveTimers: try object.integer("liveTimers"), runningTimers: try object.integer("runningTimers"),
            firedTimers: try object.integer("firedTimers"), latenessMicroseconds: lateness,
            catchUpTimers: try object.optionalInteger("catchUpTimers"))
        if let value = object.optional("store") {
            let store = try JSONObjectReader(value, "store")
            self.store = StoreStats(
                claims: try store.integer("claims"), claimsPerSecond: try store.double("claimsPerSecond"),
                leaseRescues: try store.integer("leaseRescues"), fencesLost: try store.integer("fencesLost"),
                roundTripMicrosecondsP50: try store.double("roundTripMicrosecondsP50"),
                roundTripMicrosecondsP99: try store.double("roundTripMicrosecondsP99"))
        }
    }
}
