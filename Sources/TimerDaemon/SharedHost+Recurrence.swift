import Countdown
import Foundation
import TimerModel
import TimerPostgres
import TimerProtocol
import TimerService

/// Recurring timers in shared mode (docs/multihost.md, "Recurring timers"): started with the
/// engine's rules on the database clock's now, fired by whichever host claims them, each elapse
/// rung and the next one armed in one transaction under the claim's fence.
extension SharedHost {
    /// `timer.start` with `on` or `every`: the one-host parameters (`TimerService.recurrenceRequest`,
    /// read by the caller), then the engine's first elapse (``TimerEngine/firstElapse(of:id:wall:systemZone:)``)
    /// from the database clock's now, in the requester's zone or this host's system zone. A series
    /// that starts a group at each elapse (`durations` with `on`/`every`) keeps it in its row
    /// (schema version 8); its runs are started by its firings (``fireRecurring(_:)``).
    ///
    /// - Parameters:
    ///   - request: the rule and options as the one-host daemon reads them.
    ///   - name: the requested name (NFC), or `nil`.
    ///   - params: the request's parameters (for `action`).
    ///   - context: the requester.
    ///   - outcome: gets the log line.
    /// - Returns: the reply's result (the new timer).
    /// - Throws: the one-host errors (`CountdownError.invalidRecurrence`, `invalidName`, `nameInUse`,
    ///   `quotaExceeded`, …), ``PostgresError``.
    func startRecurring(
        _ request: TimerEngine.RecurrenceRequest, name: String?, params: [String: JSONValue], context: RequestContext,
        outcome: inout Outcome
    ) throws -> [UInt8] {
        var actionText: String?
        var action: TimerAction?
        if params["action"] != nil && params["action"] != .null {
            guard let actionParser, let parsed = try actionParser(params["action"], context) else {
                throw RPCError(.invalidParams, "this timerd does not run on-finish actions")
            }
            action = parsed
            actionText = Self.actionJSON(parsed)
        }
        let now = try withQueue { queue throws(PostgresError) in try queue.databaseNow() }
        let wall = Date(timeIntervalSince1970: now)
        let zone = systemTimeZone
        // Checked before anything is written: the rule's errors do not depend on the id.
        let provisional = try TimerEngine.firstElapse(of: request, id: 0, wall: wall, systemZone: zone)
        if let name, !TimerName.isValid(name) { throw CountdownError.invalidName(name) }
        if let quota, !context.seesAll {
            let live = try withQueue { queue throws(PostgresError) in
                try queue.liveCount(owner: context.uid, atMost: quota)
            }
            if live >= quota { throw CountdownError.quotaExceeded(limit: quota) }
        }
        let row: SharedTimerRow
        do {
            row = try withQueue { queue throws(PostgresError) in
                let id = try queue.startRecurring(
                    owner: context.uid, name: name, action: actionText, createdAt: now,
                    provisionalRingAt: provisional.ringAt.timeIntervalSince1970, group: request.group
                ) { id in
                    let first =
                        (try? TimerEngine.firstElapse(of: request, id: UInt64(id), wall: wall, systemZone: zone))
                        ?? provisional
                    let period = max(1, Int64((first.ringAt.timeIntervalSince(wall) * 1e9).rounded()))
                    return (first.recurrence, first.ringAt.timeIntervalSince1970, period)
                }
                guard let row = try queue.timer(id: id, owner: context.uid) else {
                    throw .server(sqlState: "TD003", message: "timer \(id) vanished after its start")
                }
                return row
            }
        } catch {
            guard case .constraint(_, let constraint, _) = error, constraint == "timerd_timers_live_name", let name
            else { throw error }
            let holder = try? withQueue { queue throws(PostgresError) in
                try queue.timer(named: name, owner: context.uid)
            }
            throw CountdownError.nameInUse(name, id: holder.map { String($0.id) } ?? "?")
        }
        changedThisTurn = true
        deadlineMovedThisTurn = true
        figures.timerCounts.started += 1
        let rule = row.recurrence?.ruleText ?? ""
        outcome.event =
            "started recurring timer \(Self.label(row)), \(rule), next elapse \(row.endsAt ?? "never")"
            + (action.map { "; action at each elapse: " + $0.kinds.map(\.rawValue).joined(separator: ", ") } ?? "")
        return try Self.json(row)
    }

    /// Fires the recurring timers among this host's claims, one transaction each
    /// (``PostgresTimerQueue/completeRecurring(_:)``, which also starts, queues or skips the run of a
    /// series' group by its overlap rule), and queues the actions of the elapses rung.
    ///
    /// - Parameter claims: claims of this host on recurring timers.
    /// - Returns: how many firings were accepted.
    /// - Throws: ``PostgresError`` (the claims not fired yet stay claimed and are rescued after their lease).
    func fireRecurring(_ claims: [PostgresTimerQueue.Claim]) throws(PostgresError) -> Int {
        var accepted = 0
        for claim in claims {
            let firing = try withQueue { queue throws(PostgresError) in try queue.completeRecurring(claim) }
            figures.claims += 1
            if claim.isRescue { figures.rescues += 1 }
            figures.lateness.record(nanoseconds: Int64(claim.lateness * 1e9))
            guard let firing else {
                figures.fencesLost += 1
                continue
            }
            accepted += 1
            figures.completions += 1
            if let run = firing.run {
                figures.timerCounts.started += 1
                deadlineMovedThisTurn = true
                log("timer \(claim.id) started run \(run) of its group")
            }
            if let missed = firing.ring.missed {
                log(
                    "timer \(claim.id) elapsed\(missed > 0 ? " (missed \(missed))" : "") (fence \(claim.fence)"
                        + "\(claim.isRescue ? ", rescued" : ""))")
                if let trigger = firing.ring.trigger, firing.timer.action != nil {
                    launch(id: claim.id, fence: claim.fence, firing.timer, trigger: trigger, recordsStart: false)
                }
            }
            if firing.ring.ringAt == nil {
                figures.timerCounts.finished += 1
                log("timer \(claim.id) finished: its rule never elapses again")
            }
        }
        return accepted
    }
}
