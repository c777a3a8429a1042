import Countdown
import TimerModel
import TimerProtocol

/// The methods that edit a timer after it started (`timer.extend`, `timer.restart`, `timer.rename`,
/// `timer.skip`, `timer.beat`) and `timer.remove` (docs/protocol.md). Each changes the state, so its
/// reply waits for the commit like `timer.start`'s, and each is per-user like every method: another
/// user's timer is reported as missing.
extension TimerService {
    mutating func runEdit(_ method: RPCMethod, params: JSONMembers, context: RequestContext) throws
        -> RunResult
    {
        switch method {
        case .timerExtend:
            let reference = try Self.editReference(params, method, extra: ["by"])
            let seconds = try Self.signedDuration(params["by"])
            let snapshot = try engine.extend(reference, bySeconds: seconds, requester: context.requester)
            let amount = DurationFormatter.compact(seconds: seconds.magnitude)
            let event = "\(seconds < 0 ? "shortened" : "extended") timer \(snapshot.label) by \(amount)"
            return .result(try json(snapshot), changed: true, event: event)
        case .timerRestart:
            let reference = try Self.editReference(params, method)
            let quota = context.seesAll ? nil : quota
            let snapshot = try engine.restart(reference, requester: context.requester, quota: quota)
            return .result(try json(snapshot), changed: true, event: "restarted timer \(snapshot.label)")
        case .timerRename:
            let reference = try Self.editReference(params, method, extra: ["name"])
            let name = try Self.newName(params["name"])
            let snapshot = try engine.rename(reference, to: name, requester: context.requester)
            return .result(try json(snapshot), changed: true, event: "renamed timer \(snapshot.label)")
        case .timerBeat:
            let snapshot = try engine.beat(try Self.editReference(params, method), requester: context.requester)
            return .result(try json(snapshot), changed: true, event: "beat timer \(snapshot.label)")
        case .timerSkip:
            let snapshot = try engine.skip(try Self.editReference(params, method), requester: context.requester)
            return .result(try json(snapshot), changed: true, event: "skipped a step of timer \(snapshot.label)")
        default:
            return try runRemove(params, context: context)
        }
    }

    /// `timer.remove`: one ended timer (`timer`), or every ended timer of the caller (`allEnded`).
    private mutating func runRemove(_ params: JSONMembers, context: RequestContext) throws -> RunResult {
        try Self.allowOnly(["allEnded", "timer"], in: params, method: .timerRemove)
        let removed: [TimerSnapshot]
        switch params["allEnded"] {
        case .none, .some(.null), .some(.bool(false)):
            removed = [try engine.remove(try Self.editReference(params, .timerRemove), requester: context.requester)]
        case .some(.bool(true)):
            guard params["timer"] == nil else {
                throw RPCError(.invalidParams, "timer.remove takes either \"timer\" or \"allEnded\", not both")
            }
            // The caller's own history only, root's included: never another user's.
            removed = engine.removeEnded(owner: context.uid)
        case .some(let other):
            throw Self.typeError("allEnded", "a boolean", other, .timerRemove)
        }
        let event =
            removed.count == 1
            ? "removed timer \(removed[0].label)" : "removed \(removed.count) ended timers"
        return .result(try json(removed), changed: !removed.isEmpty, event: removed.isEmpty ? nil : event)
    }

    /// `timer` of a method that also takes the keys in `extra`.
    static func editReference(_ params: JSONMembers, _ method: RPCMethod, extra: [String] = [])
        throws -> TimerReference
    {
        try allowOnly(extra + ["timer"], in: params, method: method)
        return try timerReference(params.filter { $0.key == "timer" }, method)
    }

    /// `heartbeat` of `timer.start`: `true` asks for a heartbeat timer (absent, `null` or `false`:
    /// an ordinary one). timerd's shared mode reads it by the same rule.
    ///
    /// - Parameter params: the request's params.
    /// - Returns: whether a heartbeat timer is asked for.
    /// - Throws: `RPCError` `-32602` when it is not a boolean.
    package static func isHeartbeat(_ params: JSONMembers) throws -> Bool {
        switch params["heartbeat"] {
        case .none, .some(.null), .some(.bool(false)): return false
        case .some(.bool(true)): return true
        case .some(let other): throw typeError("heartbeat", "a boolean", other, .timerStart)
        }
    }

    /// The one duration of a heartbeat timer's `timer.start`: `durations` with exactly one entry,
    /// and none of `at`, `on`, `every` (a heartbeat re-arms a duration, which those do not have).
    ///
    /// - Parameter params: the request's params.
    /// - Returns: the duration in seconds.
    /// - Throws: `CountdownError.invalidHeartbeat(_:)` for another form; the errors of `durations`.
    package static func heartbeatDuration(_ params: JSONMembers) throws -> Double {
        for key in ["at", "on", "every", "from"] where params[key] != nil && params[key] != .null {
            throw CountdownError.invalidHeartbeat("\"\(key)\"")
        }
        let durations = try Self.durations(params["durations"])
        guard durations.count == 1 else { throw CountdownError.invalidHeartbeat("\(durations.count) durations") }
        return durations[0]
    }

    /// `timer` of an edit method that also takes the keys in `extra`, read from a params object as
    /// timerd's shared mode holds it (the same rules and errors as the one-host daemon).
    ///
    /// - Parameters:
    ///   - params: the request's params.
    ///   - method: the method, for the error texts.
    ///   - extra: the other keys the method takes.
    /// - Returns: the timer's reference.
    /// - Throws: `RPCError` `-32602` for an unknown key or a missing or malformed `timer`.
    package static func editReference(_ params: [String: JSONValue], _ method: RPCMethod, extra: [String] = [])
        throws -> TimerReference
    {
        try editReference(JSONMembers(params), method, extra: extra)
    }

    /// `name` of `timer.rename`: the new name, as sent (the engine normalizes and checks it).
    ///
    /// - Parameter value: the member's value, or `nil` when it is missing.
    /// - Returns: the string.
    /// - Throws: `RPCError` `-32602` when it is missing or not a string.
    package static func newName(_ value: JSONValue?) throws -> String {
        guard case .string(let name) = value else {
            throw value == nil
                ? RPCError(.invalidParams, "timer.rename needs \"name\": the new name (a string)")
                : typeError("name", "a string", value ?? .null, .timerRename)
        }
        return name
    }

    /// `by` of `timer.extend`: seconds as a number (negative subtracts) or a duration string with an
    /// optional leading `-` (`"5m"`, `"-1m30s"`).
    ///
    /// - Parameter value: the member's value, or `nil` when it is missing.
    /// - Returns: the seconds; their magnitude is at least 1 µs and at most 366 days.
    /// - Throws: `RPCError` `-32602` when it is missing or of another type;
    ///   `CountdownError.durationOutOfRange(_:)` / `CountdownError.durationTooShort(_:)` for a bad amount.
    package static func signedDuration(_ value: JSONValue?) throws -> Double {
        switch value {
        case .some(.number(let seconds)):
            try DurationParser.validate(seconds: seconds.magnitude, as: DurationFormatter.number(seconds))
            return seconds
        case .some(.string(let text)):
            return try DurationParser.signedSeconds(from: text)
        case .none:
            throw RPCError(
                .invalidParams,
                "timer.extend needs \"by\": seconds (a number, negative to subtract) or a duration such as \"5m\" "
                    + "or \"-5m\"")
        case .some(let other):
            throw typeError("by", "a number of seconds or a duration string such as \"5m\"", other, .timerExtend)
        }
    }
}
