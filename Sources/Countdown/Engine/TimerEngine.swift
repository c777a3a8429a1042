// Over 450 lines on purpose: the engine's stored state and the core transitions (start, pause, resume,
// end, fire) that every `TimerEngine+*.swift` extension builds on; the rest is already split out there.
import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The countdown engine: timers and groups that count down on the boot-time clock.
///
/// Every operation returns values (``TimerSnapshot``), never wire text; with
/// ``EventRecording/buffered`` the engine also reports what happened as ``TimerEvent``s, which the
/// owner takes with ``takeEvents()``.
///
/// A value type with no threads and no I/O: the owner calls an operation, the engine reads its
/// injected ``CountdownClock`` and answers. The owner arms one OS timer for ``nextDeadline`` and
/// calls ``fireDueTimers(limit:)`` when it expires (the daemon does so from its event loop); tests drive a
/// ``ManualClock`` instead and never sleep.
///
/// Ownership: every timer belongs to a uid. Operations take a `requester`: a uid sees and changes
/// only its own timers, and someone else's timer is reported exactly like a missing one;
/// `nil` (root, or a program embedding the engine) sees all.
public struct TimerEngine: Sendable {
    /// The most durations one timer (group) may have (`TimerLimits.maximumGroupSize`).
    public static let maximumGroupSize = TimerLimits.maximumGroupSize

    struct NameKey: Hashable, Sendable {
        var owner: UInt32
        var name: String
    }

    /// The clock every operation reads.
    public let clock: any CountdownClock
    /// How many ended timers are kept for `status --all` **per owner** (each uid's oldest dropped
    /// first); ≥ 0. Per owner so that one user's ended timers never evict another's (docs/fairness.md).
    public var historyLimit: Int {
        didSet { if historyLimit < oldValue { trimHistory() } }
    }
    /// How long ended timers are kept, in seconds after their wall-clock `endedAt`, or `nil` for no
    /// age limit. Older ones are dropped when a timer ends, on ``restore(_:sameBoot:)`` and on every
    /// ``fireDueTimers(limit:)`` (which the service runs before each request), so no extra wake-up is needed.
    /// Together with ``historyLimit``: whichever keeps fewer wins.
    public var historyMaximumAge: Double?

    var timers = RecordTable()
    var liveNames: [NameKey: UInt64] = [:]
    /// Each owner's ended timers, oldest end first (the history is kept per owner).
    var endedByOwner: [UInt32: [UInt64]] = [:]
    /// Each owner's number of timers finished by ``fireDueTimers(limit:)`` since start-up.
    var firedByOwner: [UInt32: Int] = [:]
    var queue = DeadlineQueue()
    var nextID: UInt64 = 1
    /// What the engine knows of clock steps, suspends and restores (docs/time.md).
    var clockHistory = ClockHistory()
    var liveTotal = 0
    /// Each owner's record ids, live count and paused count (TimerEngine+Owners.swift).
    var ownerTimers = OwnerTable()
    /// The number of paused timers.
    var pausedTotal = 0
    /// The lower bound of every owner's oldest `endedAt` (`nil` with no history), so that age
    /// trimming skips the owners when nothing can be due (TimerEngine+History.swift).
    var oldestEndedAt: Date?
    /// Counts the records visited, for tests (``RecordProbe``); `nil` in production.
    package var recordProbe: RecordProbe? {
        didSet { timers.probe = recordProbe }
    }
    /// Events not yet taken by the owner (only with ``EventRecording/buffered``).
    var events: [TimerEvent] = []
    /// On-finish action runs not yet taken by the owner (``takeDueActions()``).
    var dueActions: [DueAction] = []
    /// Whether the engine keeps ``TimerEvent``s for its owner; `discarded` (the default) costs nothing.
    ///
    /// Switching it reschedules the running timers, O(n): with events, a group also wakes the engine
    /// at the end of each child.
    public var eventRecording: EventRecording = .discarded {
        didSet {
            guard eventRecording != oldValue else { return }
            let now = clock.now()
            for id in queue.ids {
                guard let record = timers[id],
                    let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered)
                else { continue }
                queue.schedule(id, at: wake)
            }
        }
    }
    /// How late each timer finished on the loop's account by ``fireDueTimers(limit:)`` was, for the
    /// most recent firings; catch-ups (``catchUpCount``) are not in it.
    public private(set) var lateness = LatenessRecorder()
    /// Timers ``fireDueTimers(limit:)`` finished as catch-ups since start-up: overdue because their end
    /// passed during a suspend or before the restore (`passedWhileAway(_:)`), or because a wall-clock
    /// step moved their end into the past. Their lateness is the machine's, not the loop's, so it is
    /// counted here and kept out of ``lateness``.
    public private(set) var catchUpCount = 0
    /// Every timer ``fireDueTimers(limit:)`` finished since start-up: on the loop's account
    /// (`lateness.totalCount`) and as catch-ups (``catchUpCount``).
    public var firedTotal: Int { lateness.totalCount + catchUpCount }
    /// The system's time zone, in which calendar timers without an explicit zone read their
    /// expression (set it before ``restore(_:sameBoot:)``; change it with
    /// ``systemTimeZoneChanged(to:)``). Defaults to `TimeZone.current` at creation.
    public var systemTimeZone: TimeZone = TimeZone.current
    /// Seconds over which catch-ups of recurring timers without a `--randomized-delay` are spread
    /// (each delayed by a fixed pseudo-random part of it), so that hundreds due at once after a resume
    /// do not all ring in one instant; ≥ 0, default 5 s. Elapses on time are never delayed by it.
    public var catchUpSpread: Double = 5
    /// Alarm transitions ``fireDueTimers(limit:)`` made without ending a timer since start-up: first
    /// rings, later rings and warnings (TimerEngine+Alarm.swift). Each changed a record, so an owner
    /// that compares it before and after a firing knows there is a change to save.
    public internal(set) var alarmTransitionCount = 0
    /// Parsed calendar expressions by text, and zones by identifier (TimerEngine+Recurrence.swift).
    var recurrenceCache = RecurrenceCache()

    /// Creates an empty engine.
    ///
    /// - Parameters:
    ///   - clock: the clocks to count on (``SystemClock`` in production, ``ManualClock`` in tests).
    ///   - historyLimit: how many ended timers to keep visible (default 1,000).
    ///   - historyMaximumAge: how many seconds after ending a timer stays visible (default 7 days,
    ///     604,800 s), or `nil` for no age limit; negative counts as 0.
    public init(clock: any CountdownClock, historyLimit: Int = 1_000, historyMaximumAge: Double? = 604_800) {
        self.clock = clock
        self.historyLimit = max(0, historyLimit)
        self.historyMaximumAge = historyMaximumAge.map { max(0, $0) }
        self.clockHistory.lastLook = (clock.now(), clock.suspendedNanoseconds())
    }

    // MARK: - Operations

    /// Starts a timer, or a group when given several durations (run one after another).
    ///
    /// - Parameters:
    ///   - durations: seconds, each > 0 and ≤ 366 days, together ≤ 366 days; 1 to 100 of them.
    ///   - name: an optional name (see `TimerName`), unique among the owner's live timers.
    ///   - owner: the uid the timer belongs to.
    ///   - quota: the most live timers `owner` may have, or `nil` for no limit.
    ///   - action: what to do when it finishes (``TimerAction``; its runs must be empty), or `nil`.
    ///   - wake: mark it to wake the machine from suspend at its end (``TimerExtension/wake``).
    ///   - alarm: its warning and ring (``TimerAlarm``, `--warn`, `--ring`), or `nil`.
    /// - Returns: the new timer, running.
    /// - Throws: `CountdownError.groupSizeOutOfRange(_:)`, `CountdownError.durationOutOfRange(_:)`,
    ///   `CountdownError.groupTooLong(_:)`, `CountdownError.invalidName(_:)`,
    ///   `CountdownError.nameInUse(_:id:)`, `CountdownError.quotaExceeded(limit:)`,
    ///   `CountdownError.invalidAlarm(_:)` for a warning not shorter than the timer.
    /// - Complexity: O(log n) plus O(k) for k durations; the quota check reads a counter (O(1)).
    public mutating func start(
        durations: [Double], name: String? = nil, owner: UInt32 = 0, quota: Int? = nil, action: TimerAction? = nil,
        wake: Bool = false, alarm: TimerAlarm? = nil
    ) throws(CountdownError) -> TimerSnapshot {
        try start(
            durations: durations, wallDeadline: nil, name: name, owner: owner, quota: quota, action: action,
            wake: wake, alarm: alarm)
    }

    /// Starts a timer that ends at a wall-clock instant (`timerctl start --at`).
    ///
    /// Its countdown runs on the boot-time clock like any other, from now to `deadline`, but when the
    /// wall clock steps (``wallClockChanged()``) the deadline is recomputed so that the timer still
    /// ends at `deadline`: a step forward past it finishes it at once, a step backward postpones it
    /// and never fires it early.
    ///
    /// - Parameters:
    ///   - deadline: the wall-clock instant; more than 0 and at most 366 days from now.
    ///   - name: an optional name (see `TimerName`), unique among the owner's live timers.
    ///   - owner: the uid the timer belongs to.
    ///   - quota: the most live timers `owner` may have, or `nil` for no limit.
    ///   - action: what to do when it finishes (``TimerAction``), or `nil`.
    ///   - wake: mark it to wake the machine from suspend at `deadline` (``TimerExtension/wake``).
    ///   - alarm: its warning and ring (``TimerAlarm``, `--warn`, `--ring`), or `nil`.
    /// - Returns: the new timer, running.
    /// - Throws: `CountdownError.deadlineOutOfRange(_:now:)` when `deadline` is not in the next 366 days,
    ///   and the errors of ``start(durations:name:owner:quota:action:wake:alarm:)`` for the name, the
    ///   quota and the alarm.
    public mutating func start(
        at deadline: Date, name: String? = nil, owner: UInt32 = 0, quota: Int? = nil, action: TimerAction? = nil,
        wake: Bool = false, alarm: TimerAlarm? = nil
    ) throws(CountdownError) -> TimerSnapshot {
        let wall = clock.wallNow()
        let seconds = deadline.timeIntervalSince(wall)
        guard seconds.isFinite, seconds > 0, seconds <= DurationParser.maximumSeconds else {
            throw .deadlineOutOfRange(ISO8601.string(from: deadline), now: ISO8601.string(from: wall))
        }
        return try start(
            durations: [seconds], wallDeadline: deadline, name: name, owner: owner, quota: quota, action: action,
            wake: wake, alarm: alarm)
    }

    /// Starts a heartbeat timer (`timerctl start DURATION --heartbeat`): a plain countdown of
    /// `seconds` that ``beat(_:requester:)`` re-arms to its whole duration, so that it finishes (and
    /// its action runs) only when no beat came for `seconds` (``TimerHeartbeat``).
    ///
    /// - Parameters:
    ///   - seconds: the longest silence allowed between beats; > 0 and ≤ 366 days.
    ///   - name: an optional name (see `TimerName`), unique among the owner's live timers.
    ///   - owner: the uid the timer belongs to.
    ///   - quota: the most live timers `owner` may have, or `nil` for no limit.
    ///   - action: what to do when it finishes, the alert (``TimerAction``), or `nil`.
    ///   - wake: mark it to wake the machine from suspend at its end (``TimerExtension/wake``).
    /// - Returns: the new timer, running, with a ``TimerSnapshot/heartbeat`` of no beats.
    /// - Throws: the errors of ``start(durations:name:owner:quota:action:wake:alarm:)``.
    /// - Complexity: O(log n).
    public mutating func start(
        heartbeat seconds: Double, name: String? = nil, owner: UInt32 = 0, quota: Int? = nil,
        action: TimerAction? = nil, wake: Bool = false
    ) throws(CountdownError) -> TimerSnapshot {
        try start(
            durations: [seconds], wallDeadline: nil, name: name, owner: owner, quota: quota, action: action,
            heartbeat: TimerHeartbeat(), wake: wake)
    }

    /// Recomputes the boot-time deadline of every running timer started with an absolute deadline,
    /// after the wall clock stepped (the daemon learns it from a `CLOCK_REALTIME` timerfd armed with
    /// `TFD_TIMER_CANCEL_ON_SET`, man timerfd_create(2)). Countdowns keep their boot-time deadline
    /// (the boot-time clock never steps), but their wall-clock anchor (`runStartWall`, what carries
    /// them across a reboot) is re-anchored, so that after a step of -20 s and a reboot a 2 h
    /// countdown still ends on time. On the first step after a boot, countdowns and `--at` timers restored
    /// from the earlier boot are re-derived from the corrected wall clock (``restore(_:sameBoot:)``;
    /// docs/time.md, "Wall-clock steps").
    ///
    /// - Returns: how many timers were rescheduled (a re-anchored countdown keeps its deadline and is
    ///   not counted; ``hasChanges`` tells whether anything is to be saved).
    /// - Complexity: O(n) over the running timers.
    @discardableResult
    public mutating func wallClockChanged() -> Int {
        let now = clock.now()
        let wall = clock.wallNow()
        let rederived = rederiveRestoredTimers(now: now, wall: wall)
        var count = rederived.count
        reanchorCountdowns(now: now, wall: wall)
        retimeRecurringAfterStep(now: now, wall: wall)
        for id in queue.ids where !rederived.contains(id) {
            guard var record = timers[id], let wallDeadline = record.wallDeadline else { continue }
            let remaining = wallDeadline.timeIntervalSince(wall)
            if remaining <= 0 { clockHistory.steppedPastEnd.insert(id) }
            record.rebase(
                now: now, elapsed: record.elapsedNanoseconds(at: now),
                remaining: Int64((min(max(remaining, 0), 4e9) * 1e9).rounded()))
            timers[id] = record
            if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
                queue.schedule(id, at: wake)
            }
            count += 1
        }
        return count
    }

    /// Starts a countdown or group; `alarm` is its warning and ringing (`--warn`, `--ring`), `marks`
    /// further extensions (a series' run mark).
    mutating func start(
        durations: [Double], wallDeadline: Date?, name: String?, owner: UInt32, quota: Int?, action: TimerAction?,
        heartbeat: TimerHeartbeat? = nil, wake: Bool, alarm: TimerAlarm? = nil, marks: [TimerExtension] = []
    ) throws(CountdownError) -> TimerSnapshot {
        try Self.validateGroup(durations)
        if let alarm { try Self.validate(alarm, durations: durations) }
        let name = name.map(TimerName.normalized)
        if let name {
            guard TimerName.isValid(name) else { throw .invalidName(name) }
            if let holder = liveNames[NameKey(owner: owner, name: name)] { throw .nameInUse(name, id: String(holder)) }
        }
        if let quota, liveCount(owner: owner) >= quota {
            throw .quotaExceeded(limit: quota)
        }
        let now = clock.now()
        let wall = clock.wallNow()
        let id = nextID
        nextID += 1
        // A plain timer's segments without building any array (one heap allocation less per start).
        let segments: TimerRecord.Segments =
            durations.count == 1
            ? .single(seconds: durations[0], nanoseconds: Self.nanoseconds(ofSeconds: durations[0]))
            : .group(seconds: durations, nanoseconds: durations.map(Self.nanoseconds(ofSeconds:)))
        let record = TimerRecord(
            id: id, name: name, segments: segments, state: .running, accumulatedNanoseconds: 0, runStart: now,
            runStartWall: wall, createdAt: wall, startedAt: wall, endedAt: nil, missed: false, owner: owner,
            wallDeadline: wallDeadline,
            extensions: (action.map { [.action($0)] } ?? []) + (heartbeat.map { [.heartbeat($0)] } ?? [])
                + (wake ? [.wake] : []) + (alarm.map { [.alarm($0)] } ?? []) + marks)
        // The reply's instants are those the timer was just created with (one clock reading). The
        // snapshot and the wake are read before the record moves into the table, so that the
        // record is not copied.
        let snapshot = record.snapshot(at: now, wallNow: wall)
        let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered)
        timers.insertNew(consume record)
        liveTotal += 1
        noteCreated(id, owner: owner)  // the owner's id list and live count (no hash for the last owner)
        if let name { liveNames[NameKey(owner: owner, name: name)] = id }
        if let wake { queue.schedule(id, at: wake) }
        report(.started, owner: owner, date: wall, snapshot)
        return snapshot
    }

    /// Checks the durations of a timer or group: 1 to ``maximumGroupSize`` of them, each valid, together
    /// at most 366 days.
    ///
    /// - Throws: `CountdownError.groupSizeOutOfRange(_:)`, `CountdownError.durationOutOfRange(_:)`,
    ///   `CountdownError.groupTooLong(_:)`.
    static func validateGroup(_ durations: [Double]) throws(CountdownError) {
        guard (1...Self.maximumGroupSize).contains(durations.count) else {
            throw .groupSizeOutOfRange(durations.count)
        }
        for duration in durations { try DurationParser.validate(seconds: duration) }
        let sum = durations.reduce(0, +)
        guard sum <= DurationParser.maximumSeconds else { throw .groupTooLong(sum) }
    }

    /// A validated duration in seconds as whole nanoseconds, at least 1 (what every start stores).
    static func nanoseconds(ofSeconds seconds: Double) -> Int64 { max(1, Int64((seconds * 1e9).rounded())) }

    /// Stops (cancels) a running, paused or ringing timer; for a group, every unfinished child.
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the stopped timer.
    /// - Throws: `CountdownError.timerNotFound(_:)`; `CountdownError.invalidTransition(timer:state:operation:)`
    ///   when it already finished or was stopped.
    /// - Complexity: O(log n).
    public mutating func stop(
        _ reference: TimerReference, requester: UInt32? = nil
    ) throws(CountdownError) -> TimerEnding {
        let id = try resolve(reference, requester: requester)
        try requireState(id, in: [.running, .paused, .ringing], for: .stop)
        let now = clock.now()
        return end(id, as: .stopped, at: now, wall: clock.wallNow())
    }

    /// Pauses a running timer: its remaining time stops moving.
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the paused timer.
    /// - Throws: `CountdownError.timerNotFound(_:)`; `CountdownError.invalidTransition(timer:state:operation:)`
    ///   unless it is running.
    /// - Complexity: O(log n).
    public mutating func pause(_ reference: TimerReference, requester: UInt32? = nil) throws(CountdownError)
        -> TimerSnapshot
    {
        let id = try resolve(reference, requester: requester)
        try requireState(id, in: [.running], for: .pause)
        let now = clock.now()
        guard var record = timers[id] else { throw .timerNotFound(reference) }
        record.accumulatedNanoseconds = record.elapsedNanoseconds(at: now)
        record.state = .paused
        record.runStart = nil
        record.runStartWall = nil
        record.wallDeadline = nil
        if var recurrence = record.recurrence {
            // A paused series rings nothing; a catch-up waiting for its spread is dropped with it.
            recurrence.nextElapse = nil
            recurrence.pendingMissed = 0
            record.recurrence = recurrence
        }
        if var group = record.seriesGroup, group.queued {
            // A paused series starts nothing: its queued run is dropped (the live run goes on).
            group.queued = false
            record.seriesGroup = group
        }
        timers[id] = record
        notePaused(owner: record.owner, 1)
        queue.remove(id)
        let wall = clock.wallNow()
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.paused, owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// Resumes a paused timer from where it was paused.
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the running timer.
    /// - Throws: `CountdownError.timerNotFound(_:)`; `CountdownError.invalidTransition(timer:state:operation:)`
    ///   unless it is paused.
    /// - Complexity: O(log n).
    public mutating func resume(_ reference: TimerReference, requester: UInt32? = nil) throws(CountdownError)
        -> TimerSnapshot
    {
        let id = try resolve(reference, requester: requester)
        try requireState(id, in: [.paused], for: .resume)
        let now = clock.now()
        guard var record = timers[id] else { throw .timerNotFound(reference) }
        let wall = clock.wallNow()
        record.state = .running
        record.runStart = now
        record.runStartWall = wall
        if var recurrence = record.recurrence {
            switch recurrence.rule {
            case .calendar:
                // The series goes on at the first elapse after now; those that passed while paused
                // do not ring (pausing asked for silence; docs/calendar.md).
                timers[id] = record
                notePaused(owner: record.owner, -1)
                guard retimeCalendar(&record, after: wall, now: now) else {
                    return end(id, as: .finished, at: now, wall: wall).timer
                }
                timers[id] = record
                let snapshot = record.snapshot(at: now, wallNow: wall)
                report(.resumed, owner: record.owner, date: wall, snapshot)
                return snapshot
            case .every:
                // The period's clock stood still while paused: what was left of it runs now.
                let left = record.totalNanoseconds - record.accumulatedNanoseconds
                recurrence.nextElapse = wall.addingTimeInterval(Double(left) / 1e9)
                record.recurrence = recurrence
            }
        }
        timers[id] = record
        notePaused(owner: record.owner, -1)
        if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
            queue.schedule(id, at: wake)
        }
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.resumed, owner: record.owner, date: wall, snapshot)
        return snapshot
    }

    /// Finishes every running timer whose deadline has passed (at most `limit` of them), earliest
    /// first, and moves running groups past the children that ended (reported as
    /// ``TimerEvent/Kind/steppedToChild(_:)``).
    ///
    /// With a `limit`, the timers not taken stay due (``hasDueTimers``): the daemon finishes 1,000
    /// per turn of its loop and serves its clients between the slices, so 100k timers overdue at a
    /// resume do not block it for seconds. A timer whose end passed during a suspend is `missed`,
    /// with `endedAt` at its end (`overdueEnding(of:deadline:now:wall:wasAway:)`, docs/time.md).
    ///
    /// - Parameter limit: the most timers to take in this call (default: all that are due).
    /// - Returns: the finished timers.
    /// - Complexity: O(k log n) for k ≤ `limit` due timers (plus O(c) per group of c children).
    public mutating func fireDueTimers(limit: Int = .max) -> [TimerEnding] {
        trimHistoryByAge()
        let now = clock.now()
        noteSuspend(now: now)
        let due = queue.popDue(at: now, limit: limit)
        guard !due.isEmpty else { return [] }
        let wall = clock.wallNow()
        var endings: [TimerEnding] = []
        for entry in due {
            if timers[entry.id]?.state == .ringing {
                if let ending = ringAgain(entry.id, now: now, wall: wall) { endings.append(ending) }
                continue
            }
            guard let record = timers[entry.id], let deadline = record.deadline else { continue }
            reportSteps(of: record, since: entry.deadline, now: now, wall: wall)
            // A step that moved the end into the past makes a catch-up too (recorded by wallClockChanged).
            let stepped = clockHistory.steppedPastEnd.remove(entry.id) != nil
            if deadline <= now, record.recurrence != nil {
                let wasAway = passedWhileAway(deadline)
                recordFiring(lateness: now.nanoseconds(since: deadline), catchUp: wasAway || stepped)
                firedByOwner[record.owner, default: 0] += 1
                if let ending = ringRecurring(entry.id, deadline: deadline, now: now, wall: wall, wasAway: wasAway) {
                    endings.append(ending)
                }
            } else if deadline <= now, record.alarm?.ring != nil {
                let wasAway = passedWhileAway(deadline)
                recordFiring(lateness: now.nanoseconds(since: deadline), catchUp: wasAway || stepped)
                firedByOwner[record.owner, default: 0] += 1
                startRinging(entry.id, deadline: deadline, now: now, wall: wall, wasAway: wasAway)
            } else if deadline <= now {
                let wasAway = passedWhileAway(deadline)
                recordFiring(lateness: now.nanoseconds(since: deadline), catchUp: wasAway || stepped)
                firedByOwner[record.owner, default: 0] += 1
                let ending = overdueEnding(of: record, deadline: deadline, now: now, wall: wall, wasAway: wasAway)
                timers[entry.id]?.missed = ending.missed
                endings.append(
                    end(
                        entry.id, as: .finished, at: now, wall: ending.endedAt,
                        reportedAs: ending.missed ? .missed : nil))
            } else {
                // Not yet at its end: a group's step (reported above) or an alarm's warning.
                let record = warnIfDue(entry.id, now: now, wall: wall) ?? record
                if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
                    queue.schedule(entry.id, at: wake)
                }
            }
        }
        return endings
    }

    // MARK: - Internals

    /// Counts one firing: a catch-up, or a firing on the loop's account whose lateness is sampled.
    private mutating func recordFiring(lateness nanoseconds: Int64, catchUp: Bool) {
        if catchUp {
            catchUpCount += 1
        } else {
            lateness.record(nanoseconds: nanoseconds)
        }
    }

    func resolve(_ reference: TimerReference, requester: UInt32?) throws(CountdownError) -> UInt64 {
        switch reference {
        case .id(let id):
            guard let record = timers[id], requester == nil || record.owner == requester else {
                throw .timerNotFound(reference)
            }
            return id
        case .step(let group, let step):
            guard let record = timers[group], requester == nil || record.owner == requester,
                record.durations.count > 1, (1...record.durations.count).contains(step)
            else {
                throw .timerNotFound(reference)
            }
            return group
        case .name(let name):
            if let id = liveNames[NameKey(owner: requester ?? 0, name: name)] { return id }
            let candidates = visibleRecords(requester: requester, includeEnded: true).filter { $0.name == name }
            if let live = candidates.filter(\.state.isLive).min(by: { $0.id < $1.id }) { return live.id }
            let latest = candidates.max {
                ($0.endedAt ?? .distantPast, $0.id) < ($1.endedAt ?? .distantPast, $1.id)
            }
            guard let latest else { throw .timerNotFound(reference) }
            return latest.id
        }
    }

    func requireState(_ id: UInt64, in allowed: Set<TimerState>, for operation: TimerOperation)
        throws(CountdownError)
    {
        guard let record = timers[id] else { throw .timerNotFound(.id(id)) }
        guard allowed.contains(record.state) else {
            let label = record.name.map { "timer \(id) (\"\($0)\")" } ?? "timer \(id)"
            throw .invalidTransition(timer: label, state: record.state, operation: operation)
        }
    }

    /// Ends a timer as `state`; `runsActions` is `false` for an alarm whose ringing ends (its action
    /// ran at its first ring).
    mutating func end(
        _ id: UInt64, as state: TimerState, at now: BootInstant, wall: Date, reportedAs kind: TimerEvent.Kind? = nil,
        runsActions: Bool = true
    ) -> TimerEnding {
        guard var record = timers[id] else { return TimerEnding(timer: missingSnapshot(id, at: wall)) }
        if record.state.isLive { countLiveEnd(of: record.owner) }
        if record.state == .paused { notePaused(owner: record.owner, -1) }
        record.accumulatedNanoseconds =
            state == .finished ? record.totalNanoseconds : record.elapsedNanoseconds(at: now)
        record.state = state
        record.runStart = nil
        record.runStartWall = nil
        record.endedAt = wall
        if var recurrence = record.recurrence {
            // The end of a series: its elapses ran their actions; the end itself runs none.
            recurrence.nextElapse = nil
            recurrence.pendingMissed = 0
            record.recurrence = recurrence
        } else if state == .finished, runsActions {
            scheduleActions(of: &record, trigger: kind == .missed ? .missed : .finished)
        }
        timers[id] = record
        queue.remove(id)
        if let name = record.name, liveNames[NameKey(owner: record.owner, name: name)] == id {
            liveNames[NameKey(owner: record.owner, name: name)] = nil
        }
        endedByOwner[record.owner, default: []].append(id)
        oldestEndedAt = min(oldestEndedAt ?? wall, wall)
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(kind ?? (state == .finished ? .finished : .stopped), owner: record.owner, date: wall, snapshot)
        trimHistory(owner: record.owner)
        if let series = record.seriesOfRun {
            runEnded(id, series: series, now: now, wall: wall)
        } else if state == .stopped, let run = record.seriesGroup?.run {
            // Stopping a series stops its run; a series that finishes lets its run finish.
            if timers[run]?.state.isLive == true { _ = end(run, as: .stopped, at: now, wall: wall) }
        }
        return TimerEnding(timer: snapshot)
    }

    func missingSnapshot(_ id: UInt64, at wall: Date) -> TimerSnapshot {
        TimerSnapshot(
            id: id, name: nil, state: .stopped, duration: 0, remaining: 0, elapsed: 0,
            progress: ProgressTree().snapshot, createdAt: wall, startedAt: wall, endedAt: wall, endsAt: nil,
            missed: false, currentChild: nil, children: [])
    }
}
