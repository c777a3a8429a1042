import Countdown
import FoundationEssentials
import TimerModel
import TimerProtocol

/// The captured output of recent on-finish action runs, in memory: at most
/// ``maximumRunsPerTimer`` runs per timer (the engine keeps as many run records), each at most
/// ``maximumOutputBytes`` bytes. It is not saved: after timerd restarts, `timer.runs` still shows
/// every kept run's outcome (the engine's durable record) but output only for runs since the start.
struct ActionOutputLog {
    /// The most runs kept per timer, as many as the engine keeps run records for.
    static let maximumRunsPerTimer = 16
    /// The most output bytes kept per run (what the daemon captures, `Daemon.actionOutputLimit`).
    static let maximumOutputBytes = 65_536
    /// How many timers may have output before those no longer in the engine are dropped.
    static let pruneThreshold = 256

    /// One run's output, found again by the run's kind and start.
    struct Entry {
        var kind: TimerAction.Kind
        var startedAt: Date
        var output: [UInt8]
        var truncated: Bool
    }

    private(set) var entries: [UInt64: [Entry]] = [:]

    /// Keeps `entry` for timer `id`, dropping that timer's oldest beyond the limit.
    mutating func keep(_ entry: Entry, timer id: UInt64) {
        var list = entries[id, default: []]
        list.append(entry)
        if list.count > Self.maximumRunsPerTimer { list.removeFirst(list.count - Self.maximumRunsPerTimer) }
        entries[id] = list
    }

    /// Drops the output of the timers for which `isGone` holds.
    mutating func prune(where isGone: (UInt64) -> Bool) {
        for id in entries.keys where isGone(id) { entries[id] = nil }
    }

    /// The output of timer `id`'s run of `kind` started at `startedAt`, or `nil`.
    func entry(timer id: UInt64, kind: TimerAction.Kind, startedAt: Date) -> Entry? {
        entries[id]?.last { $0.kind == kind && $0.startedAt == startedAt }
    }
}

/// `timer.runs`: a timer's kept action runs with their output (docs/protocol.md, docs/actions.md).
extension TimerService {
    /// Keeps the output of the run of `kind` that timer `id` is running now, for `timer.runs`.
    /// Call it before ``recordActionOutcome(timer:kind:outcome:)`` of the same run.
    ///
    /// - Parameters:
    ///   - id: the timer's id.
    ///   - kind: which run.
    ///   - output: what it wrote (only the first `ActionOutputLog.maximumOutputBytes` are kept).
    ///   - truncated: whether it wrote more than `output` holds.
    /// - Returns: whether the timer had such a run in progress (the output was kept).
    @discardableResult
    public mutating func keepActionOutput(timer id: UInt64, kind: TimerAction.Kind, output: [UInt8], truncated: Bool)
        -> Bool
    {
        guard let run = engine.action(ofTimer: id)?.runs.last(where: { $0.kind == kind && $0.outcome == .running })
        else { return false }
        let limit = ActionOutputLog.maximumOutputBytes
        let kept = output.count > limit ? Array(output.prefix(limit)) : output
        actionOutputs.keep(
            .init(kind: kind, startedAt: run.startedAt, output: kept, truncated: truncated || output.count > limit),
            timer: id)
        if actionOutputs.entries.count > ActionOutputLog.pruneThreshold {
            actionOutputs.prune { [engine] in engine.action(ofTimer: $0) == nil }
        }
        return true
    }

    /// The `timer.runs` result: the timer's kept runs, oldest first; another user's timer is "no
    /// such timer", as for `timer.status`.
    ///
    /// - Throws: `RPCError` `-32602` for bad parameters, `-32001` for no such timer (of the requester).
    mutating func runsResult(_ params: JSONMembers, context: RequestContext) throws -> [UInt8] {
        let snapshot = try engine.status(try Self.timerReference(params, .timerRuns), requester: context.requester)
        let runs = (engine.action(ofTimer: snapshot.id)?.runs ?? []).map { run in
            let kept = actionOutputs.entry(timer: snapshot.id, kind: run.kind, startedAt: run.startedAt)
            return ActionRunInfo(
                kind: run.kind.rawValue, trigger: run.trigger.rawValue,
                startedAt: timestamps.string(from: run.startedAt),
                endedAt: run.endedAt.map { timestamps.string(from: $0) }, outcome: run.outcome.name,
                exitStatus: run.outcome.status, output: kept.map { String(decoding: $0.output, as: UTF8.self) },
                outputTruncated: kept?.truncated == true ? true : nil)
        }
        var writer = JSONBytesWriter(capacity: 256)
        ActionRunsResult(id: String(snapshot.id), name: snapshot.name, runs: runs).write(to: &writer)
        return writer.bytes
    }
}
