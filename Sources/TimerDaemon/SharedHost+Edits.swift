import Countdown
import TimerModel
import TimerPostgres
import TimerProtocol
import TimerService

/// The edits of shared mode (`timer.extend`, `timer.restart`, `timer.rename`, `timer.skip`,
/// `timer.beat`): the
/// parameters, rules, errors, replies and log lines of the one-host daemon (`TimerService+Edits`,
/// `TimerEngine+Edits`), each edit one transaction of ``PostgresTimerQueue`` under the requester's
/// uid.
extension SharedHost {
    /// Runs one edit; returns the timer after it, as the reply's result.
    ///
    /// - Throws: `RPCError` for bad parameters, `CountdownError` for what the rules refuse (with the
    ///   one-host daemon's texts), ``PostgresError`` when the database fails.
    func edit(_ method: RPCMethod, params: [String: JSONValue], context: RequestContext, outcome: inout Outcome)
        throws -> [UInt8]
    {
        let owner: UInt32? = context.seesAll ? nil : context.uid
        let edited: PostgresTimerQueue.EditOutcome
        let timer: SharedTimerRow
        let reference: TimerReference
        var name: String?
        var quota: Int?
        switch method {
        case .timerExtend:
            reference = try TimerService.editReference(params, method, extra: ["by"])
            let seconds = try TimerService.signedDuration(params["by"])
            timer = try find(reference, owner: owner)
            // The engine's order: an ended timer is a wrong state (the queue's refusal), a live
            // recurring one is refused as such.
            if timer.isLive, timer.recurrence != nil {
                throw CountdownError.notForRecurring(timer: "timer \(Self.label(timer))", operation: "extend")
            }
            let change = Int64((seconds * 1e9).rounded())
            edited = try withQueue { queue throws(PostgresError) in
                try queue.extend(
                    id: timer.id, owner: owner, byNanoseconds: change,
                    maximumTotalSeconds: DurationParser.maximumSeconds,
                    actionLeaseSeconds: Self.leaseSeconds)
            }
            let amount = DurationFormatter.compact(seconds: seconds.magnitude)
            outcome.event = "\(seconds < 0 ? "shortened" : "extended") timer \(Self.label(timer)) by \(amount)"
        case .timerRestart:
            reference = try TimerService.editReference(params, method)
            timer = try find(reference, owner: owner)
            if timer.recurrence != nil {
                throw CountdownError.notForRecurring(timer: "timer \(Self.label(timer))", operation: "restart")
            }
            name = timer.name
            quota = context.seesAll ? nil : self.quota
            edited = try renaming(timer.name, owner: timer.owner) { () throws(PostgresError) in
                try withQueue { queue throws(PostgresError) in
                    try queue.restart(id: timer.id, owner: owner, quota: quota)
                }
            }
            outcome.event = "restarted timer \(Self.label(timer))"
        case .timerRename:
            reference = try TimerService.editReference(params, method, extra: ["name"])
            let requested = try TimerService.newName(params["name"])
            let newName = TimerName.normalized(requested)
            guard TimerName.isValid(newName) else { throw CountdownError.invalidName(requested) }
            timer = try find(reference, owner: owner)
            name = newName
            edited = try renaming(newName, owner: timer.owner) { () throws(PostgresError) in
                try withQueue { queue throws(PostgresError) in
                    try queue.rename(id: timer.id, owner: owner, to: newName)
                }
            }
            var renamed = timer
            renamed.name = newName
            outcome.event = "renamed timer \(Self.label(renamed))"
        case .timerBeat:
            reference = try TimerService.editReference(params, method)
            timer = try find(reference, owner: owner)
            edited = try withQueue { queue throws(PostgresError) in try queue.beat(id: timer.id, owner: owner) }
            outcome.event = "beat timer \(Self.label(timer))"
        default:
            reference = try TimerService.editReference(params, method)
            let named = try find(reference, owner: owner)
            // A series that starts groups passes the skip to its live run (the engine's order).
            if let run = named.seriesGroup?.run, let row = try? find(.id(run), owner: owner), row.isLive {
                timer = row
            } else if named.seriesGroup != nil, named.isLive {
                throw CountdownError.noRunInProgress(timer: "timer \(Self.label(named))")
            } else {
                timer = named
            }
            if timer.recurrence != nil {
                throw CountdownError.notForRecurring(timer: "timer \(Self.label(timer))", operation: "skip")
            }
            edited = try withQueue { queue throws(PostgresError) in
                try queue.skip(id: timer.id, owner: owner, actionLeaseSeconds: Self.leaseSeconds)
            }
            outcome.event = "skipped a step of timer \(Self.label(timer))"
        }
        switch edited {
        case .refused(let refusal):
            outcome.event = nil
            throw Self.editError(
                refusal, method: method, timer: timer, reference: reference, name: name, quota: quota)
        case .applied(let applied):
            changedThisTurn = true
            deadlineMovedThisTurn = true
            if let finished = applied.finished {
                // A step ended by the edit finished the timer: its action runs as after a completion.
                launch(id: timer.id, fence: applied.fence, finished)
            }
            if applied.stepEnd == .finished {
                log("timer \(timer.id) finished (fence \(applied.fence), ended early by \(method.rawValue))")
            }
        }
        return try Self.json(try find(.id(UInt64(timer.id)), owner: owner))
    }

    /// Runs an edit that gives a live timer `name`: a live timer given the same name on another
    /// host meanwhile makes the unique index refuse it (SQLSTATE 23505 on
    /// `timerd_timers_live_name`), which becomes the one-host daemon's error with the holder's id.
    private func renaming(
        _ name: String?, owner: UInt32, _ body: () throws(PostgresError) -> PostgresTimerQueue.EditOutcome
    ) throws -> PostgresTimerQueue.EditOutcome {
        do {
            return try body()
        } catch {
            guard case .constraint(_, let constraint, _) = error, constraint == "timerd_timers_live_name", let name
            else { throw error }
            let holder = try? withQueue { queue throws(PostgresError) in try queue.timer(named: name, owner: owner) }
            throw CountdownError.nameInUse(name, id: holder.map { String($0.id) } ?? "?")
        }
    }

    /// The one-host daemon's error for what an edit's rule refused.
    ///
    /// - Parameters:
    ///   - refusal: what the queue refused.
    ///   - method: the edit.
    ///   - timer: the timer as the request found it.
    ///   - reference: how the request named it.
    ///   - name: the name the edit gives a live timer (a rename's new name, a restart's own), or `nil`.
    ///   - quota: the quota a restart was checked against.
    /// - Returns: the error.
    static func editError(
        _ refusal: PostgresTimerQueue.EditRefusal, method: RPCMethod, timer: SharedTimerRow, reference: TimerReference,
        name: String?, quota: Int?
    ) -> CountdownError {
        let label = "timer \(Self.label(timer))"
        switch refusal {
        case .notFound:
            return .timerNotFound(reference)
        case .wrongState(let state):
            return .invalidTransition(
                timer: label, state: TimerState(rawValue: state) ?? .stopped,
                operation: method == .timerSkip ? .skip : method == .timerBeat ? .beat : .extend)
        case .notAGroup:
            return .notAGroup(timer: label)
        case .nameInUse(let holder):
            return .nameInUse(name ?? "", id: String(holder))
        case .quotaExceeded:
            return .quotaExceeded(limit: quota ?? 0)
        case .tooLong(let total, let isGroup):
            return isGroup ? .groupTooLong(total) : .durationOutOfRange(DurationFormatter.compact(seconds: total))
        case .notAHeartbeat:
            return .notAHeartbeat(timer: label)
        case .beatTooLate(let end):
            return .beatTooLate(timer: label, end: end)
        }
    }
}
