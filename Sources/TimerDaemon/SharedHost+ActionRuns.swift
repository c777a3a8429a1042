import Countdown
import TimerPostgres
import TimerProtocol
import TimerService

/// `timer.runs` in shared mode: each action run this host starts is a row of
/// `timerd_action_runs` (``PostgresTimerQueue/recordRunStart(timerID:kind:trigger:fence:)``), its
/// end updates the row and writes the `action` outbox row, so every host answers `timer.runs` and
/// every subscriber gets the `action` event; the captured output stays in the memory of the host
/// that ran it, as one host keeps it in memory only (docs/multihost.md, "Action runs").
extension SharedHost {
    /// The key of a timer's run of one kind while it runs on this host.
    private static func runKey(_ launch: ActionLaunch) -> String { "\(launch.timerID):\(launch.kind.rawValue)" }

    /// The most runs whose output this host keeps in memory (the oldest are dropped first).
    static let maximumKeptOutputs = 4_096

    /// Records the start of each run about to be started (outcome `running`), before its process
    /// starts. A database error is logged and the run still starts (at most once): it then has no
    /// record.
    ///
    /// - Parameter launches: the runs the daemon starts now.
    func recordRunStarts(_ launches: [ActionLaunch]) {
        for launch in launches {
            do {
                let seq = try withQueue { queue throws(PostgresError) in
                    try queue.recordRunStart(
                        timerID: Int64(clamping: launch.timerID), kind: launch.kind.rawValue,
                        trigger: launch.trigger.rawValue, fence: launch.firingFence)
                }
                if let seq { runSeqs[Self.runKey(launch), default: []].append(seq) }
            } catch {
                log(
                    "warning: timer \(launch.timerID): the start of its \(launch.kind.rawValue) run is not recorded: \(error)"
                )
            }
        }
    }

    /// Keeps a run's captured output until its outcome is recorded (``recordRunEnd(_:outcome:)``).
    ///
    /// - Parameters:
    ///   - launch: the run.
    ///   - output: what it wrote.
    func keepRunOutput(_ launch: ActionLaunch, output: CapturedOutput) {
        pendingOutputs[Self.runKey(launch)] = output
    }

    /// Records how a run ended, with its `action` outbox row, and keeps its output in memory.
    ///
    /// - Parameters:
    ///   - launch: the run.
    ///   - outcome: how it ended.
    /// - Returns: `false` when its timer was removed meanwhile (nothing is kept).
    func recordRunEnd(_ launch: ActionLaunch, outcome: ActionRun.Outcome) -> Bool {
        let key = Self.runKey(launch)
        let output = pendingOutputs.removeValue(forKey: key)
        guard var seqs = runSeqs[key], !seqs.isEmpty else {
            log("warning: timer \(launch.timerID): its \(launch.kind.rawValue) run had no start record")
            return true
        }
        let seq = seqs.removeFirst()
        runSeqs[key] = seqs.isEmpty ? nil : seqs
        let (name, code) = Self.outcomeColumns(outcome)
        do {
            let kept = try withQueue { queue throws(PostgresError) in
                try queue.recordRunEnd(seq: seq, outcome: name, code: code)
            }
            guard kept else { return false }
        } catch {
            log(
                "warning: timer \(launch.timerID): the outcome of its \(launch.kind.rawValue) run is not recorded: \(error)"
            )
            return true
        }
        changedThisTurn = true
        if let output {
            runOutputs[seq] = (output.bytes, output.truncated)
            if runOutputs.count > Self.maximumKeptOutputs, let oldest = runOutputs.keys.min() {
                runOutputs[oldest] = nil
            }
        }
        return true
    }

    /// `timer.runs`: the timer's kept runs, oldest first, with the output of those this host ran
    /// since it started (as one host shows output only for runs since its start).
    ///
    /// - Parameters:
    ///   - params: the request's parameters (`timer`).
    ///   - owner: the requester's uid, or `nil` to see every owner's timers.
    /// - Returns: the result's JSON (`ActionRunsResult`).
    /// - Throws: `RPCError` for bad parameters, `CountdownError.timerNotFound`, ``PostgresError``.
    func runs(_ params: [String: JSONValue], owner: UInt32?) throws -> [UInt8] {
        let timer = try find(TimerService.timerReference(params, .timerRuns), owner: owner)
        let rows = try withQueue { queue throws(PostgresError) in try queue.actionRuns(timerID: timer.id) }
        let runs = rows.map { row in
            let kept = runOutputs[row.seq]
            return ActionRunInfo(
                kind: row.kind, trigger: row.trigger, startedAt: row.startedAt, endedAt: row.endedAt,
                outcome: row.outcome, exitStatus: Self.outcome(row.outcome, row.code).status,
                output: kept.map { String(decoding: $0.bytes, as: UTF8.self) },
                outputTruncated: kept?.truncated == true ? true : nil)
        }
        var writer = JSONBytesWriter(capacity: 256)
        ActionRunsResult(id: String(timer.id), name: timer.name, runs: runs).write(to: &writer)
        return writer.bytes
    }
}
