import Countdown
import TimerModel
import TimerProtocol

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The parameters of a recurring `timer.start` (docs/protocol.md, "Recurring timers").
extension TimerService {
    /// `on` (a calendar expression, with the requester's `timeZone` when it has one) or `every` (a
    /// period, with an optional first elapse `from`), with `skipMissed` and `randomizedDelay`, and
    /// optionally the group each elapse starts (`durations`, `loops`, `overlap`); `nil` when neither
    /// `on` nor `every` is given (a one-shot timer, whose `at`/`durations` are read after).
    /// Shared mode reads a recurring start by it too (SharedHost+Recurrence.swift).
    ///
    /// - Parameter params: the `timer.start` parameters.
    /// - Returns: the request, or `nil` for a one-shot start.
    /// - Throws: `RPCError` (`-32602`) for a parameter of the wrong type or combination, an unknown
    ///   zone, a bad period or `from`, a bad `overlap` (``overlap(_:)``), or durations that make
    ///   more than `TimerLimits.maximumGroupSize` steps.
    package func recurrenceRequest(_ params: JSONMembers) throws -> TimerEngine.RecurrenceRequest? {
        let on = params["on"] ?? .null
        let every = params["every"] ?? .null
        let overlap = try Self.overlap(params)
        if on == .null, every == .null {
            for key in ["skipMissed", "randomizedDelay", "from"] where params[key] != nil {
                throw RPCError(.invalidParams, "\"\(key)\" of timer.start goes with \"on\" or \"every\"")
            }
            if overlap != nil { throw Self.overlapWithoutGroup }
            return nil
        }
        for key in ["at", "minuteInterval"] where params[key] != nil {
            throw RPCError(.invalidParams, "timer.start takes one of \"durations\", \"at\", \"on\" or \"every\"")
        }
        var group: SeriesGroup?
        if let durations = params["durations"], durations != .null {
            let steps = try Self.repeated(Self.durations(durations), loops: Self.loops(params))
            group = SeriesGroup(durations: steps, overlap: overlap ?? .skip)
        } else if overlap != nil {
            throw Self.overlapWithoutGroup
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
                var local: JSONMembers = ["at": .string(text)]
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
        return TimerEngine.RecurrenceRequest(kind: kind, skipMissed: skipMissed, randomizedDelay: delay, group: group)
    }

    /// The refusal of `overlap` without a group started at each elapse.
    static let overlapWithoutGroup = RPCError(
        .invalidParams,
        "\"overlap\" of timer.start goes with \"durations\" and \"on\" or \"every\" (a group started at each elapse)")

    /// `overlap` of `timer.start`: what an elapse does while the group it started last still runs
    /// (``SeriesGroup/Overlap``).
    ///
    /// - Parameter params: the request's params.
    /// - Returns: the rule, or `nil` when `overlap` is absent or null.
    /// - Throws: `RPCError` `-32602` for anything but `"skip"`, `"queue"` or `"restart"`.
    package static func overlap(_ params: JSONMembers) throws -> SeriesGroup.Overlap? {
        switch params["overlap"] {
        case .none, .some(.null): return nil
        case .some(.string(let text)):
            guard let overlap = SeriesGroup.Overlap(rawValue: text) else {
                throw RPCError(
                    .invalidParams,
                    "\"overlap\" of timer.start must be \"skip\", \"queue\" or \"restart\", got \"\(text)\"")
            }
            return overlap
        case .some(let other):
            throw typeError("overlap", "\"skip\", \"queue\" or \"restart\"", other, .timerStart)
        }
    }
}
