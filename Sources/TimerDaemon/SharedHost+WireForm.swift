import Countdown
import Foundation
import TimerModel
import TimerPostgres
import TimerProtocol
import TimerService
import TimerSystem

/// The wire form of shared mode: a row becomes the one-host daemon's `TimerInfo` (same members, same
/// progress rules, checked by SharedWireShapeTests), and an outbox row a `timer.event` notification.
extension SharedHost {
    /// `3 ("tea")` or `3`.
    static func label(_ row: SharedTimerRow) -> String {
        row.name.map { "\(row.id) (\"\($0)\")" } ?? String(row.id)
    }

    /// A timer as the protocol sends it, with the engine's rules for progress (`TimerRecord.snapshot`):
    /// milliseconds as units, each step's units rounded up, a group's total the sum of its steps'.
    static func info(_ row: SharedTimerRow) -> TimerInfo {
        let segments = row.segmentsNanoseconds
        let total = segments.reduce(0, +)
        let elapsed = row.elapsedNanoseconds
        let state = TimerState(rawValue: row.state) ?? .stopped
        func units(_ nanoseconds: Int64) -> Int64 { nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1) }
        var progress: ProgressSnapshot
        var children: [TimerInfo]?
        var currentChild: Int?
        if segments.count <= 1 {
            var tree = ProgressTree(totalUnitCount: units(total))
            tree.completedUnitCount = state == .finished ? units(total) : elapsed / 1_000_000
            if state == .stopped { tree.cancel() }
            if state == .paused { tree.pause() }
            progress = tree.snapshot
        } else {
            var tree = ProgressTree(totalUnitCount: segments.reduce(Int64(0)) { $0 + units($1) })
            var rows: [(state: TimerState, duration: Double, remaining: Double, elapsed: Double)] = []
            var offset: Int64 = 0
            for (index, segment) in segments.enumerated() {
                let childElapsed = min(max(0, elapsed - offset), segment)
                let childDone = state == .finished || childElapsed == segment
                let childState: TimerState
                if childDone {
                    childState = .finished
                } else if state == .stopped {
                    childState = .stopped
                } else if currentChild == nil {
                    childState = state
                    currentChild = index
                } else {
                    childState = .pending
                }
                tree.addChild(ProgressTree(totalUnitCount: units(segment)), withPendingUnitCount: units(segment))
                tree.updateChild(at: index) { child in
                    child.completedUnitCount = childDone ? units(segment) : childElapsed / 1_000_000
                }
                rows.append(
                    (
                        childState, Double(segment) / 1e9, Double(segment - childElapsed) / 1e9,
                        Double(childElapsed) / 1e9
                    ))
                offset += segment
            }
            if state == .stopped { tree.cancel() }
            if state == .paused { tree.pause() }
            progress = tree.snapshot
            children = rows.enumerated().map { index, child in
                TimerInfo(
                    id: "\(row.id).\(index + 1)", name: nil, state: child.state, duration: child.duration,
                    remaining: child.remaining, elapsed: child.elapsed, progress: tree.children[index].node.snapshot)
            }
        }
        var info = TimerInfo(
            // The engine's duration is the sum of the steps' seconds, added in order (so 0.3 × 3
            // is 0.8999999999999999 there, and here too).
            id: String(row.id), name: row.name, state: state,
            duration: segments.reduce(0.0) { $0 + Double($1) / 1e9 },
            remaining: state == .finished ? 0 : Double(total - elapsed) / 1e9, elapsed: Double(elapsed) / 1e9,
            progress: progress, createdAt: row.createdAt, startedAt: row.startedAt, endedAt: row.endedAt,
            endsAt: state == .running ? row.endsAt : nil, currentChild: children == nil ? nil : currentChild,
            children: children)
        if row.isHeartbeat { info.heartbeat = HeartbeatInfo(beatCount: Int(row.beatCount), lastBeatAt: row.lastBeatAt) }
        if let recurrence = row.recurrence {
            // As `TimerInfo(snapshot:)` writes a series; its next elapse is when it rings (the row's
            // deadline, randomized delay included) while it runs.
            var expression: String?
            var every: Double?
            var zone: String?
            var follows: Bool?
            switch recurrence.rule {
            case .calendar(let text, let name, let followsSystemZone):
                (expression, zone, follows) = (text, name, followsSystemZone)
            case .every(let seconds): every = seconds
            }
            info.recurrence = RecurrenceInfo(
                elapseCount: Int(clamping: recurrence.elapseCount), every: every, expression: expression,
                followsSystemZone: follows, lastElapse: recurrence.lastElapse.map { ISO8601.string(from: $0) },
                lastMissed: Int(recurrence.lastMissed),
                lastResult: row.lastRunOutcome.map { TimerInfo.resultText(Self.outcome($0, row.lastRunCode)) },
                nextElapse: state == .running
                    ? row.dueAt.map { ISO8601.string(from: Date(timeIntervalSince1970: $0)) } : nil,
                persistent: !recurrence.skipMissed, randomizedDelay: recurrence.randomizedDelay, zone: zone,
                group: row.seriesGroup.map { group in
                    SeriesGroupInfo(
                        durations: group.durations, overlap: group.overlap.rawValue, queued: group.queued,
                        run: group.run.map { String($0) }, runCount: Int(clamping: group.runCount),
                        runStep: row.runStep, skippedCount: Int(clamping: group.skippedCount))
                })
        }
        return info
    }

    /// One timer's JSON.
    static func json(_ row: SharedTimerRow) throws -> [UInt8] {
        var writer = JSONBytesWriter()
        try info(row).write(to: &writer)
        return writer.bytes
    }

    /// An array of timers' JSON.
    static func json(_ rows: [SharedTimerRow]) throws -> [UInt8] {
        var writer = JSONBytesWriter(capacity: 512 * rows.count + 2)
        writer.bytes.append(UInt8(ascii: "["))
        for (index, row) in rows.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            try info(row).write(to: &writer)
        }
        writer.bytes.append(UInt8(ascii: "]"))
        return writer.bytes
    }

    /// The `timer.event` notification of an outbox row, in the one-host daemon's form
    /// (`TimerService.notificationLine`): `at`, `event`, `seq`, `timer`, and the kind's own members
    /// as one host writes them (`TimerService.eventMembers(of:)`): `child` for `step` (the row's
    /// step as read), `by` for `extended` and `from` for `renamed` (kept in the row's `detail`).
    static func notificationLine(_ event: SharedEventRow, timer: SharedTimerRow) throws -> [UInt8] {
        var members: [(key: String, json: [UInt8])] = []
        var text = JSONBytesWriter(capacity: 48)
        text.string(event.at)
        members.append(("at", text.bytes))
        text = JSONBytesWriter(capacity: 16)
        text.string(event.kind)
        members.append(("event", text.bytes))
        text = JSONBytesWriter(capacity: 24)
        text.integer(event.seq)
        members.append(("seq", text.bytes))
        // As one host: an event's series carries no `runStep` (status and list fill it in).
        var timer = timer
        timer.runStep = nil
        members.append(("timer", try json(timer)))
        if let kind = eventKind(event, timer: timer) { members += TimerService.eventMembers(of: kind) }
        return TimerService.notificationLine(members: members)
    }

    /// The engine's event kind of an outbox row whose notification has members of its own
    /// (`step`, `extended`, `renamed`, `elapsed`, `action`), with their values; `nil` for the others, and for a row whose
    /// `detail` does not hold them.
    static func eventKind(_ event: SharedEventRow, timer: SharedTimerRow) -> TimerEvent.Kind? {
        switch event.kind {
        case "step":
            return .steppedToChild(timer.step)
        case "action":
            guard let text = event.detail, case .object(let detail)? = JSONValue(parsing: Array(text.utf8)),
                case .string(let kindName)? = detail["kind"], let kind = TimerAction.Kind(rawValue: kindName),
                case .string(let triggerName)? = detail["trigger"],
                let trigger = TimerAction.Trigger(rawValue: triggerName), case .string(let outcome)? = detail["outcome"]
            else { return nil }
            var code: Int32?
            if case .number(let number)? = detail["code"], abs(number) < 1e9 { code = Int32(number) }
            return .action(TimerEvent.ActionReport(kind: kind, trigger: trigger, outcome: Self.outcome(outcome, code)))
        case "elapsed":
            guard let text = event.detail, case .object(let detail)? = JSONValue(parsing: Array(text.utf8)),
                case .number(let missed)? = detail["missed"], missed >= 0, missed < 1e9
            else { return nil }
            return .elapsed(missed: Int(missed))
        case "extended", "renamed":
            guard let text = event.detail, case .object(let detail)? = JSONValue(parsing: Array(text.utf8)) else {
                return nil
            }
            switch (event.kind, detail["by"], detail["from"]) {
            case ("extended", .number(let seconds)?, _): return .extended(by: seconds)
            case ("renamed", _, .string(let name)?): return .renamed(from: name)
            case ("renamed", _, .null?): return .renamed(from: nil)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// An action run's outcome from its name and code as `timerd_action_runs` keeps them
    /// (``PostgresTimerQueue/recordRunEnd(seq:outcome:code:)``); an unknown name reads as `interrupted`.
    static func outcome(_ name: String, _ code: Int32?) -> ActionRun.Outcome {
        switch (name, code) {
        case ("running", _): return .running
        case ("exited", let code?): return .exited(code)
        case ("signalled", let code?): return .signalled(code)
        case ("timed-out", _): return .timedOut
        case ("failed-to-start", let code?): return .failedToStart(code)
        default: return .interrupted
        }
    }

    /// The name and code an outcome is kept as: the inverse of ``outcome(_:_:)``.
    static func outcomeColumns(_ outcome: ActionRun.Outcome) -> (name: String, code: Int32?) {
        switch outcome {
        case .exited(let code), .signalled(let code), .failedToStart(let code): return (outcome.name, code)
        case .running, .timedOut, .interrupted: return (outcome.name, nil)
        }
    }

    /// An action as the request's `action` object (`{"cwd":…,"env":{…},"exec":…,"notify":…}`), the
    /// form stored with the timer and read again, by the same rules, by the completing host.
    static func actionJSON(_ action: TimerAction) -> String {
        var writer = JSONBytesWriter(capacity: 256)
        writer.raw(#"{"cwd":"#)
        writer.string(action.workingDirectory)
        writer.raw(#","env":{"#)
        for (index, variable) in action.environment.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            writer.string(variable.name)
            writer.bytes.append(UInt8(ascii: ":"))
            writer.string(variable.value)
        }
        writer.raw("}")
        if let command = action.command {
            writer.raw(#","exec":"#)
            writer.string(command)
        }
        writer.raw(action.notify ? #","notify":true}"# : #","notify":false}"#)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
