import Countdown
import TimerModel
import TimerProtocol

/// Alarms (docs/protocol.md, `ring` and `warn` of `timer.start`, `timer.ack`, `timer.snooze`).
extension TimerService {
    /// The alarm a `timer.start` asks for: `"ring": true` rings at the end with the daemon's
    /// ``ringRule``; `"warn"` (seconds, or a duration such as `"5m"`) warns that long before the end;
    /// `"warnEach": true` with it warns that long before the end of every step of a group.
    ///
    /// - Parameter params: the request's params.
    /// - Returns: the alarm, or `nil` when neither is asked (`ring` absent, `null` or `false`, `warn`
    ///   absent or `null`).
    /// - Throws: `RPCError` `-32602` for a `ring` or `warnEach` that is not a boolean, a `warn` that
    ///   is not a positive duration, `warnEach` without `warn`, `ring` on a daemon that refuses it (``ringRefusal``), and either with `heartbeat`, `on` or `every` (a heartbeat's end is an
    ///   alert already; a recurring timer's elapses go on by themselves).
    func alarmRequest(_ params: JSONMembers) throws -> TimerAlarm? {
        let rings: Bool
        switch params["ring"] {
        case .none, .some(.null), .some(.bool(false)): rings = false
        case .some(.bool(true)): rings = true
        case .some(let other): throw Self.typeError("ring", "a boolean", other, .timerStart)
        }
        let warning: Double?
        switch params["warn"] {
        case .none, .some(.null): warning = nil
        case .some(.number(let seconds)):
            try DurationParser.validate(seconds: seconds, as: DurationFormatter.number(seconds))
            warning = seconds
        case .some(.string(let text)): warning = try DurationParser.seconds(from: text)
        case .some(let other):
            throw Self.typeError("warn", "a number of seconds or a duration string such as \"5m\"", other, .timerStart)
        }
        let warnsEachStep = try Self.warnEachParameter(params)
        if warnsEachStep && warning == nil {
            throw RPCError(
                .invalidParams, "\"warnEach\" needs \"warn\": it says how long before each step's end to warn")
        }
        guard rings || warning != nil else { return nil }
        if rings, let ringRefusal { throw RPCError(.invalidParams, ringRefusal) }
        let asked = [rings ? "\"ring\"" : nil, warning != nil ? "\"warn\"" : nil].compactMap { $0 }
            .joined(separator: " and ")
        if try Self.isHeartbeat(params) {
            throw RPCError(
                .invalidParams,
                "\(asked) cannot be combined with \"heartbeat\": a heartbeat timer's end is already its alert, "
                    + "run by its on-finish action")
        }
        for key in ["on", "every"] where params[key] != nil && params[key] != .null {
            throw RPCError(
                .invalidParams,
                "\(asked) cannot be combined with \"\(key)\": a recurring timer goes on to its next elapse by "
                    + "itself; use a one-shot timer (durations or at) to ring until answered")
        }
        return TimerAlarm(ring: rings ? ringRule : nil, warning: warning, warnsEachStep: warnsEachStep)
    }

    /// Reads `"warnEach"`: `true` warns before the end of every step of a group (with `warn`).
    ///
    /// - Parameter params: the request's params.
    /// - Returns: whether it is `true` (absent, `null` and `false` are `false`).
    /// - Throws: `RPCError` `-32602` for a value that is not a boolean.
    package static func warnEachParameter(_ params: JSONMembers) throws -> Bool {
        switch params["warnEach"] {
        case .none, .some(.null), .some(.bool(false)): return false
        case .some(.bool(true)): return true
        case .some(let other): throw typeError("warnEach", "a boolean", other, .timerStart)
        }
    }

    /// `timer.snooze`'s `for`: seconds or a duration string; ``snoozeSeconds`` when absent or `null`.
    ///
    /// - Throws: `RPCError` `-32602` for another type; `CountdownError` for a duration out of range.
    func snoozeFor(_ params: JSONMembers) throws -> Double {
        switch params["for"] {
        case .none, .some(.null): return snoozeSeconds
        case .some(.number(let seconds)):
            try DurationParser.validate(seconds: seconds, as: DurationFormatter.number(seconds))
            return seconds
        case .some(.string(let text)): return try DurationParser.seconds(from: text)
        case .some(let other):
            throw Self.typeError("for", "a number of seconds or a duration string such as \"9m\"", other, .timerSnooze)
        }
    }

    /// `; rings` / `; warns 5m before the end` for a start's log line.
    static func alarmNote(_ alarm: TimerAlarm?) -> String {
        guard let alarm else { return "" }
        var note = ""
        if let warning = alarm.warning {
            note +=
                "; warns \(DurationFormatter.compact(seconds: warning)) before the end"
                + (alarm.warnsEachStep ? " of each step" : "")
        }
        if let ring = alarm.ring {
            note +=
                "; rings every \(DurationFormatter.compact(seconds: ring.interval)) for up to "
                + DurationFormatter.compact(seconds: ring.limit)
        }
        return note
    }
}
