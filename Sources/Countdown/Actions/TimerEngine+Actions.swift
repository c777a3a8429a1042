#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// On-finish actions: the engine decides when an action is due and records each run in the timer's
/// record; the owner (the daemon) runs the processes and reports how they ended.
///
/// At most once (docs/actions.md): when a timer with an action finishes (or is finished as missed
/// by ``restore(_:sameBoot:)``), the same record write that finishes it adds a
/// ``ActionRun/Outcome/running`` run per kind and queues a ``DueAction``. The owner commits that
/// record durably *before* it starts the processes, so a crash after the start can never start
/// them again; a crash between the commit and the start loses the run (it is then found
/// ``ActionRun/Outcome/running`` at the next start and marked ``ActionRun/Outcome/interrupted``).
extension TimerEngine {
    /// An action run the owner must start: everything it needs, copied out of the record.
    public struct DueAction: Sendable, Hashable {
        /// The timer's id.
        public var timerID: UInt64
        /// The timer's name, if it has one.
        public var name: String?
        /// The uid that owns the timer.
        public var owner: UInt32
        /// The timer's whole duration in seconds (`TIMER_DURATION`).
        public var duration: Double
        /// What to run.
        public var kind: TimerAction.Kind
        /// The event it follows (`TIMER_EVENT`).
        public var trigger: TimerAction.Trigger
        /// The action's command, directory and captured environment.
        public var action: TimerAction
        /// The timer's alarm (`--ring`, `--warn`) as it was when the run became due, or `nil`: what
        /// the notification says of a ring or a warning.
        public var alarm: TimerAlarm? = nil
        /// How many steps the timer has (1 for a plain timer): what a `--warn-each` warning's
        /// notification counts its step out of.
        public var stepCount: Int = 1
    }

    /// Returns the action runs that became due since the last call, and forgets them.
    ///
    /// - Returns: the runs, in the order their timers ended (exec before notify for one timer).
    /// - Complexity: O(1) (the buffer is handed over).
    public mutating func takeDueActions() -> [DueAction] {
        guard !dueActions.isEmpty else { return [] }
        defer { dueActions = [] }
        return dueActions
    }

    /// Whether action runs wait for ``takeDueActions()``.
    public var hasDueActions: Bool { !dueActions.isEmpty }

    /// Records how a run ended and reports a ``TimerEvent/Kind/action(_:)`` event.
    ///
    /// - Parameters:
    ///   - id: the timer's id.
    ///   - kind: which of its runs ended.
    ///   - outcome: how it ended (not ``ActionRun/Outcome/running``).
    /// - Returns: the timer after the change, or `nil` when it is gone (dropped from the history)
    ///   or has no such run in progress.
    /// - Complexity: O(log n) plus O(r) for r runs.
    @discardableResult
    public mutating func recordActionOutcome(timer id: UInt64, kind: TimerAction.Kind, outcome: ActionRun.Outcome)
        -> TimerSnapshot?
    {
        guard var record = timers[id], var action = record.action,
            let index = action.runs.lastIndex(where: { $0.kind == kind && $0.outcome == .running })
        else { return nil }
        let wall = clock.wallNow()
        action.runs[index].outcome = outcome
        action.runs[index].endedAt = wall
        record.action = action
        timers[id] = record
        let snapshot = record.snapshot(at: clock.now(), wallNow: wall)
        let report = TimerEvent.ActionReport(kind: kind, trigger: action.runs[index].trigger, outcome: outcome)
        self.report(.action(report), owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// Marks every run still recorded as ``ActionRun/Outcome/running`` as
    /// ``ActionRun/Outcome/interrupted``: after ``restore(_:sameBoot:)``, such a run belongs to a
    /// daemon that stopped before it learnt the result. It is not run again (at most once).
    ///
    /// The runs the restore itself just made due (timers that ended while no engine ran, waiting
    /// in ``takeDueActions()``) are not a stopped daemon's: they are left running, to be started
    /// and to have their outcome recorded like any other run.
    ///
    /// - Returns: the timers and kinds marked, by ascending id.
    /// - Complexity: O(n) over the timers.
    public mutating func interruptUnfinishedActionRuns() -> [(timerID: UInt64, kind: TimerAction.Kind)] {
        // The due runs are the last running runs of their timer and kind (scheduleActions appends).
        var due: [UInt64: [TimerAction.Kind]] = [:]
        for run in dueActions { due[run.timerID, default: []].append(run.kind) }
        var marked: [(timerID: UInt64, kind: TimerAction.Kind)] = []
        let ids = timers.values.filter { $0.action?.runs.contains { $0.outcome == .running } == true }.map(\.id)
        for id in ids.sorted() {
            guard var record = timers[id], var action = record.action else { continue }
            var queued = due[id] ?? []
            var interrupted: [Int] = []
            for index in action.runs.indices.reversed() where action.runs[index].outcome == .running {
                if let position = queued.firstIndex(of: action.runs[index].kind) {
                    queued.remove(at: position)
                } else {
                    interrupted.append(index)
                }
            }
            guard !interrupted.isEmpty else { continue }
            for index in interrupted.reversed() {
                action.runs[index].outcome = .interrupted
                marked.append((id, action.runs[index].kind))
            }
            record.action = action
            timers[id] = record
        }
        return marked
    }

    /// The most runs one action keeps (the oldest go first): a timer restarted again and again
    /// keeps a bounded record.
    static let maximumActionRuns = 16

    /// Adds a running run per kind to a timer that just finished, and queues them for the owner;
    /// nothing when the timer has no action. Called once per finish (``end(_:as:at:wall:reportedAs:)``
    /// finishes a timer once; a restored finished timer is not finished again), so each event runs
    /// the action once; a timer started again (a restart) finishes, and acts, again.
    ///
    /// An alarm's later rings pass `only` `[.notify, .sound]` (the notification is shown and the
    /// sound played again, no command runs) and its warning `[.notify]`.
    mutating func scheduleActions(
        of record: inout TimerRecord, trigger: TimerAction.Trigger, only: Set<TimerAction.Kind>? = nil
    ) {
        guard var action = record.action else { return }
        let wall = clock.wallNow()
        for kind in action.kinds where only?.contains(kind) ?? true {
            action.runs.append(ActionRun(kind: kind, trigger: trigger, startedAt: wall))
            dueActions.append(
                DueAction(
                    timerID: record.id, name: record.name, owner: record.owner,
                    duration: record.durations.reduce(0, +), kind: kind,
                    trigger: trigger, action: action, alarm: record.alarm, stepCount: record.segmentCount))
        }
        if action.runs.count > Self.maximumActionRuns {
            action.runs.removeFirst(action.runs.count - Self.maximumActionRuns)
        }
        record.action = action
    }

    /// The action of a timer the requester may see, or `nil`.
    ///
    /// - Parameter id: the timer's id.
    public func action(ofTimer id: UInt64) -> TimerAction? { timers[id]?.action }
}
