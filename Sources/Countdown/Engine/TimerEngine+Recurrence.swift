// Over 450 lines on purpose: `ringRecurring` is one decision (on time, catch-up or skipped; calendar or
// `--every`) whose halves share this file's private helpers (`Ring`, `apply`, `report`); split across
// files they would have to become internal to the whole engine.
import CalendarEvents
import Foundation
import TimerModel

/// Parsed calendar expressions and zones, so that ringing an elapse does not parse its text again.
struct RecurrenceCache: Sendable {
    var expressions: [String: CalendarExpression] = [:]
    var zones: [String: TimeZone] = [:]
}

/// Recurring timers (`timerctl start --on EXPR`, `--every DURATION`): start, ring each elapse, catch
/// up after an absence, re-time on wall-clock steps and zone changes (docs/calendar.md, "Recurring
/// timers").
extension TimerEngine {
    /// What to start: a calendar rule or a period, and the series' options.
    public struct RecurrenceRequest: Sendable, Hashable {
        /// The rule asked for.
        public enum Kind: Sendable, Hashable {
            /// A systemd.time(7) calendar expression; `zone` is the requester's zone (its `TZ`), or
            /// `nil` to follow the system zone. A zone written in the expression wins over both.
            case calendar(expression: String, zone: TimeZone?)
            /// Every `seconds` on the boot-time clock; the first elapse at `from` (a wall-clock
            /// instant in the next 366 days) when given, else `seconds` from now.
            case every(seconds: Double, from: Date?)
        }

        /// The rule.
        public var kind: Kind
        /// Drop missed elapses instead of ringing one catch-up (`--skip-missed`).
        public var skipMissed: Bool
        /// `--randomized-delay` in seconds (0–366 days).
        public var randomizedDelay: Double
        /// The group each elapse starts (`start --on EXPR 25m 5m`), or `nil` for a series that only
        /// rings; its run fields (``SeriesGroup/run``, counts) are ignored: a series starts with none.
        public var group: SeriesGroup?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - kind: the rule.
        ///   - skipMissed: drop missed elapses (default: one catch-up, persistent).
        ///   - randomizedDelay: seconds, 0 (default) to 366 days.
        ///   - group: the group each elapse starts, or `nil` (default).
        public init(kind: Kind, skipMissed: Bool = false, randomizedDelay: Double = 0, group: SeriesGroup? = nil) {
            self.kind = kind
            self.skipMissed = skipMissed
            self.randomizedDelay = randomizedDelay
            self.group = group
        }
    }

    /// Starts a recurring timer: its first period runs to its first elapse.
    ///
    /// - Parameters:
    ///   - request: the rule and options.
    ///   - name: an optional name (see `TimerName`), unique among the owner's live timers.
    ///   - owner: the uid the timer belongs to.
    ///   - quota: the most live timers `owner` may have, or `nil` for no limit.
    ///   - action: what to do at each elapse (``TimerAction``), or `nil`.
    ///   - wake: mark it to wake the machine from suspend at each elapse (``TimerExtension/wake``).
    /// - Returns: the new timer, running, with ``TimerSnapshot/recurrence`` set.
    /// - Throws: `CountdownError.invalidRecurrence(_:)` for an expression that does not parse (the
    ///   parser's message, with token and offset), one that never elapses again, a period shorter than ``TimerRecurrence/minimumInterval`` or longer than 366 days, or a
    ///   randomized delay outside 0–366 days; `CountdownError.deadlineOutOfRange(_:now:)` for a
    ///   `from` not in the next 366 days; for a ``TimerEngine/RecurrenceRequest/group``,
    ///   `CountdownError.groupSizeOutOfRange(_:)`, `CountdownError.durationOutOfRange(_:)` and
    ///   `CountdownError.groupTooLong(_:)` as ``start(durations:name:owner:quota:action:wake:alarm:)``; `CountdownError.invalidName(_:)`,
    ///   `CountdownError.nameInUse(_:id:)`, `CountdownError.quotaExceeded(limit:)`.
    /// - Complexity: O(log n) plus one elapse search (O(n) with a quota).
    public mutating func start(
        recurring request: RecurrenceRequest, name: String? = nil, owner: UInt32 = 0, quota: Int? = nil,
        action: TimerAction? = nil, wake: Bool = false
    ) throws(CountdownError) -> TimerSnapshot {
        let wall = clock.wallNow()
        let now = clock.now()
        let id = nextID
        let (recurrence, firstWall, wallDeadline) = try Self.firstElapse(
            of: request, id: id, wall: wall, systemZone: systemTimeZone)
        let name = name.map(TimerName.normalized)
        if let name {
            guard TimerName.isValid(name) else { throw .invalidName(name) }
            if let holder = liveNames[NameKey(owner: owner, name: name)] { throw .nameInUse(name, id: String(holder)) }
        }
        if let quota, liveCount(owner: owner) >= quota { throw .quotaExceeded(limit: quota) }
        nextID += 1
        let period = Self.nanoseconds(firstWall.timeIntervalSince(wall))
        var extensions: [TimerExtension] = [.recurrence(recurrence)]
        if let action { extensions.insert(.action(action), at: 0) }
        if wake { extensions.append(.wake) }
        if let group = request.group {
            extensions.append(.seriesGroup(SeriesGroup(durations: group.durations, overlap: group.overlap)))
        }
        let record = TimerRecord(
            id: id, name: name, durations: [Double(period) / 1e9], segmentNanoseconds: [period], state: .running,
            accumulatedNanoseconds: 0, runStart: now, runStartWall: wall, createdAt: wall, startedAt: wall,
            endedAt: nil, missed: false, owner: owner, wallDeadline: wallDeadline, extensions: extensions)
        timers[id] = record
        liveTotal += 1
        noteCreated(id, owner: owner)  // the owner's id list and live count
        if let name { liveNames[NameKey(owner: owner, name: name)] = id }
        if let wake = record.nextWake(at: now, stepsChildren: false) { queue.schedule(id, at: wake) }
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.started, owner: owner, date: wall, snapshot)
        return snapshot
    }

    /// The first elapse of a recurring series started at `wall`: the rule checked, the zone chosen (the
    /// expression's own, else `request`'s, else `systemZone`, followed), the first calendar elapse after
    /// `wall` with its fixed randomized delay, or `every`'s first period. ``start(recurring:name:owner:quota:action:wake:)``
    /// and timerd's shared mode (on the database clock) both start a series by it.
    ///
    /// - Parameters:
    ///   - request: the rule and options.
    ///   - id: the timer's id (the randomized delay is derived from it).
    ///   - wall: now on the clock the series runs by.
    ///   - systemZone: the zone a calendar rule follows when neither the expression nor the request names one.
    /// - Returns: the recurrence (with its ``TimerRecurrence/nextElapse``), when the first period ends
    ///   (`ringAt`), and the wall-clock deadline (`nil` for `every` without `from`: it counts on the
    ///   boot-time clock).
    /// - Throws: `CountdownError.invalidRecurrence(_:)` and `CountdownError.deadlineOutOfRange(_:now:)`,
    ///   and for a ``TimerEngine/RecurrenceRequest/group`` the group's errors, as ``start(recurring:name:owner:quota:action:wake:)``.
    public static func firstElapse(
        of request: RecurrenceRequest, id: UInt64, wall: Date, systemZone: TimeZone
    ) throws(CountdownError) -> (recurrence: TimerRecurrence, ringAt: Date, wallDeadline: Date?) {
        if let group = request.group { try validateGroup(group.durations) }
        guard request.randomizedDelay.isFinite, (0...DurationParser.maximumSeconds).contains(request.randomizedDelay)
        else {
            throw .invalidRecurrence(
                "the randomized delay must be 0 to 366 days, got \(DurationFormatter.compact(seconds: request.randomizedDelay))"
            )
        }
        var recurrence: TimerRecurrence
        let firstWall: Date
        let wallDeadline: Date?
        switch request.kind {
        case .calendar(let text, let requesterZone):
            let expression: CalendarExpression
            do { expression = try CalendarExpression.parse(text) } catch {
                throw .invalidRecurrence("invalid calendar expression '\(text)': \(error.description)")
            }
            let zone: TimeZone
            let zoneName: String
            let follows: Bool
            if let own = expression.timeZone {
                (zone, zoneName, follows) = (own, expression.timeZoneName ?? own.identifier, false)
            } else if let requesterZone {
                // Foundation names UTC "GMT"; shown and stored as UTC, as systemd writes it.
                let name = requesterZone.identifier == "GMT" ? "UTC" : requesterZone.identifier
                (zone, zoneName, follows) = (requesterZone, name, false)
            } else {
                (zone, zoneName, follows) = (systemZone, systemZone.identifier, true)
            }
            guard let next = expression.nextElapse(after: wall, defaultZone: zone) else {
                throw .invalidRecurrence(
                    "calendar expression '\(text)' never elapses after \(ISO8601.string(from: wall)) (normalized: "
                        + "\(expression.normalized))")
            }
            recurrence = TimerRecurrence(
                rule: .calendar(expression: text, zone: zoneName, followsSystemZone: follows),
                skipMissed: request.skipMissed, randomizedDelay: request.randomizedDelay)
            recurrence.nextElapse = next
            firstWall = max(
                next.addingTimeInterval(Self.fixedDelay(id: id, instant: next, spread: request.randomizedDelay)),
                wall.addingTimeInterval(0.000_001))
            wallDeadline = firstWall
        case .every(let seconds, let from):
            guard seconds.isFinite, seconds >= TimerRecurrence.minimumInterval, seconds <= DurationParser.maximumSeconds
            else {
                throw .invalidRecurrence(
                    "the period of --every must be \(TimerRecurrence.minimumInterval)s to 366 days, got "
                        + DurationFormatter.compact(seconds: seconds))
            }
            recurrence = TimerRecurrence(
                rule: .every(seconds: seconds), skipMissed: request.skipMissed,
                randomizedDelay: request.randomizedDelay)
            if let from {
                let ahead = from.timeIntervalSince(wall)
                guard ahead.isFinite, ahead > 0, ahead <= DurationParser.maximumSeconds else {
                    throw .deadlineOutOfRange(ISO8601.string(from: from), now: ISO8601.string(from: wall))
                }
                firstWall = from
                wallDeadline = from
            } else {
                firstWall = wall.addingTimeInterval(seconds)
                wallDeadline = nil
            }
            recurrence.nextElapse = firstWall
        }
        return (recurrence, firstWall, wallDeadline)
    }

    /// Re-times the calendar timers that follow the system zone after it changed (`/etc/localtime`
    /// replaced): each reads its expression in `zone` from now on, and its next elapse is the first
    /// after now in that zone. Timers whose zone was explicit (in the expression, or the requester's
    /// `TZ`) are not touched. Setting the same zone again changes nothing.
    ///
    /// - Parameter zone: the new system zone.
    /// - Returns: how many timers were re-timed (running or paused).
    /// - Complexity: O(n) over the timers, plus one elapse search per re-timed timer.
    @discardableResult
    public mutating func systemTimeZoneChanged(to zone: TimeZone) -> Int {
        systemTimeZone = zone
        let now = clock.now()
        let wall = clock.wallNow()
        var count = 0
        for record in timers.values where record.state.isLive {
            guard var recurrence = record.recurrence,
                case .calendar(let text, let old, true) = recurrence.rule, old != zone.identifier
            else { continue }
            var record = record
            recurrence.rule = .calendar(expression: text, zone: zone.identifier, followsSystemZone: true)
            record.recurrence = recurrence
            if record.state == .running, recurrence.pendingMissed == 0 {
                guard retimeCalendar(&record, after: wall, now: now) else {
                    timers[record.id] = record
                    _ = end(record.id, as: .finished, at: now, wall: wall)
                    count += 1
                    continue
                }
            }
            timers[record.id] = record
            count += 1
        }
        return count
    }

    // MARK: - Internals

    /// Nanoseconds of a number of seconds, at least 1 and at most 4e18.
    static func nanoseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return seconds > 0 ? 4_000_000_000_000_000_000 : 1 }
        return Int64((min(max(seconds, 1e-9), 4e9) * 1e9).rounded())
    }

    /// A fixed pseudo-random part of `spread` (seconds, in [0, spread)) for one timer and one elapse:
    /// the same on every run (a restart does not move it), different from timer to timer, so that
    /// elapses due at once spread evenly (splitmix64 of the id and the instant's milliseconds).
    static func fixedDelay(id: UInt64, instant: Date, spread: Double) -> Double {
        guard spread > 0, spread.isFinite else { return 0 }
        let millis = instant.timeIntervalSince1970 * 1000
        let bits = millis.isFinite && abs(millis) < 9e18 ? UInt64(bitPattern: Int64(millis.rounded())) : 0
        var x = (id &* 0x9E37_79B9_7F4A_7C15) ^ bits
        x ^= x >> 30
        x &*= 0xBF58_476D_1CE4_E5B9
        x ^= x >> 27
        x &*= 0x94D0_49BB_1331_11EB
        x ^= x >> 31
        return Double(x >> 11) / 9_007_199_254_740_992 * spread
    }

    /// The parsed expression and zone of a calendar rule (cached), or `nil` when the stored text no
    /// longer parses or the zone is unknown on this system.
    mutating func calendar(_ text: String, zone name: String) -> (CalendarExpression, TimeZone)? {
        let expression: CalendarExpression
        if let cached = recurrenceCache.expressions[text] {
            expression = cached
        } else {
            guard let parsed = try? CalendarExpression.parse(text) else { return nil }
            if recurrenceCache.expressions.count > 10_000 { recurrenceCache.expressions = [:] }
            recurrenceCache.expressions[text] = parsed
            expression = parsed
        }
        if let own = expression.timeZone { return (expression, own) }
        if let zone = recurrenceCache.zones[name] { return (expression, zone) }
        guard let zone = TimeZone(identifier: name) else { return nil }
        recurrenceCache.zones[name] = zone
        return (expression, zone)
    }

    /// The elapses from `first` through `last` (inclusive): how many (at most
    /// ``TimerRecurrence/maximumCountedElapses``) and the latest; `(0, nil)` when `first` is after `last`.
    static func countElapses(
        _ expression: CalendarExpression, zone: TimeZone, from first: Date, through last: Date
    ) -> (count: Int, latest: Date?) {
        guard first <= last else { return (0, nil) }
        var count = 1
        var latest = first
        while count < TimerRecurrence.maximumCountedElapses,
            let next = expression.nextElapse(after: latest, defaultZone: zone), next <= last
        {
            count += 1
            latest = next
        }
        return (count, latest)
    }

    /// Sets a running calendar timer's next elapse to the first after `after` and re-times its
    /// period; `false` when the expression never elapses again (the caller ends the series).
    mutating func retimeCalendar(_ record: inout TimerRecord, after: Date, now: BootInstant) -> Bool {
        guard var recurrence = record.recurrence, case .calendar(let text, let zoneName, _) = recurrence.rule,
            let (expression, zone) = calendar(text, zone: zoneName),
            let next = expression.nextElapse(after: after, defaultZone: zone)
        else { return false }
        let wall = clock.wallNow()
        recurrence.nextElapse = next
        record.recurrence = recurrence
        let ring = max(
            next.addingTimeInterval(Self.fixedDelay(id: record.id, instant: next, spread: recurrence.randomizedDelay)),
            wall.addingTimeInterval(0.000_001))
        record.wallDeadline = ring
        let since = recurrence.lastElapse.map { max(0, wall.timeIntervalSince($0)) } ?? 0
        record.rebase(
            now: now, elapsed: Int64((min(since, 4e9) * 1e9).rounded()),
            remaining: Self.nanoseconds(ring.timeIntervalSince(wall)))
        record.runStartWall = wall
        if let wake = record.nextWake(at: now, stepsChildren: false) { queue.schedule(record.id, at: wake) }
        return true
    }

    /// After a wall-clock step: a calendar timer whose next elapse lies further ahead than the first
    /// elapse after the new wall-clock time (a step backward) is moved to that one, so that no timer
    /// waits more than one period; a pending catch-up waits at most its spread from now. Elapses that
    /// a step forward passed stay due and ring once, as a catch-up.
    ///
    /// - Complexity: O(r) over the running recurring timers, one elapse search each.
    mutating func retimeRecurringAfterStep(now: BootInstant, wall: Date) {
        for id in queue.ids {
            guard var record = timers[id], var recurrence = record.recurrence, record.state == .running,
                case .calendar(let text, let zoneName, _) = recurrence.rule, let deadline = record.wallDeadline,
                deadline > wall
            else { continue }
            if recurrence.pendingMissed > 0 {
                let spread = recurrence.randomizedDelay > 0 ? recurrence.randomizedDelay : catchUpSpread
                let latest = wall.addingTimeInterval(spread)
                if deadline > latest {
                    record.wallDeadline = latest
                    timers[id] = record
                }
                continue
            }
            guard let nominal = recurrence.nextElapse, let (expression, zone) = calendar(text, zone: zoneName),
                let next = expression.nextElapse(after: wall, defaultZone: zone), next < nominal
            else { continue }
            recurrence.nextElapse = next
            record.recurrence = recurrence
            record.wallDeadline = max(
                next.addingTimeInterval(Self.fixedDelay(id: id, instant: next, spread: recurrence.randomizedDelay)),
                wall.addingTimeInterval(0.000_001))
            timers[id] = record
        }
    }

    /// What one firing of a recurring timer rings: how many elapses it accounts for, its `missed`, the
    /// nominal instant it is dated with, and why its action runs.
    private struct Ring {
        var counted: Int
        var missed: Int
        var date: Date
        var trigger: TimerAction.Trigger
    }

    /// Rings a recurring timer whose deadline came (at most once per elapse), then schedules its next
    /// elapse; ends the series (finished, no action) when its expression never elapses again.
    ///
    /// On time (neither away nor 1 s or more late): one `elapsed` event, `missed` 0 (or the number of
    /// further elapses that passed in the same instant), action trigger `elapsed`. Late after an absence
    /// (`wasAway`: a suspend, timerd not running) or a wall-clock step forward: with `skipMissed`
    /// nothing rings and the series goes on at the next future elapse; else one catch-up, delayed by its
    /// fixed part of the spread (``TimerRecurrence/randomizedDelay``, else ``catchUpSpread``), standing
    /// for every elapse that passed until it rings (`missed`), action trigger `missed`.
    ///
    /// - Returns: the ending when the series ended, else `nil`.
    mutating func ringRecurring(
        _ id: UInt64, deadline: BootInstant, now: BootInstant, wall: Date, wasAway: Bool
    ) -> TimerEnding? {
        guard var record = timers[id], var recurrence = record.recurrence else { return nil }
        var ring: Ring?
        switch recurrence.rule {
        case .calendar(let text, let zoneName, _):
            guard let (expression, zone) = calendar(text, zone: zoneName) else {
                return end(id, as: .finished, at: now, wall: wall)
            }
            let nominal = recurrence.nextElapse ?? record.wallDeadline ?? wall
            let scheduled = record.wallDeadline ?? nominal
            var latest: Date?
            if recurrence.pendingMissed > 0 {
                let extra = Self.countElapses(expression, zone: zone, from: nominal, through: wall)
                let missed = Int(recurrence.pendingMissed) + extra.count
                latest = extra.latest ?? recurrence.lastElapse
                ring = Ring(counted: missed, missed: missed, date: latest ?? wall, trigger: .missed)
            } else {
                let passed = Self.countElapses(expression, zone: zone, from: nominal, through: max(wall, nominal))
                latest = passed.latest ?? nominal
                let late = wasAway || wall.timeIntervalSince(scheduled) >= 1
                if !late {
                    ring = Ring(
                        counted: passed.count, missed: passed.count - 1, date: latest ?? nominal, trigger: .elapsed)
                } else if !recurrence.skipMissed {
                    let spread = recurrence.randomizedDelay > 0 ? recurrence.randomizedDelay : catchUpSpread
                    let wait = Self.fixedDelay(id: id, instant: latest ?? nominal, spread: spread)
                    if wait >= 0.001 {
                        // The catch-up waits for its part of the spread; elapses until then join it.
                        recurrence.pendingMissed = UInt32(clamping: passed.count)
                        recurrence.lastElapse = latest
                        recurrence.nextElapse = latest.flatMap { expression.nextElapse(after: $0, defaultZone: zone) }
                        record.recurrence = recurrence
                        let ringAt = wall.addingTimeInterval(wait)
                        record.wallDeadline = ringAt
                        record.rebase(now: now, elapsed: 0, remaining: Self.nanoseconds(wait))
                        record.runStartWall = wall
                        timers[id] = record
                        if let wake = record.nextWake(at: now, stepsChildren: false) { queue.schedule(id, at: wake) }
                        return nil
                    }
                    ring = Ring(counted: passed.count, missed: passed.count, date: latest ?? nominal, trigger: .missed)
                }
            }
            if let ring { apply(ring, to: &recurrence) }
            recurrence.pendingMissed = 0
            record.recurrence = recurrence
            // The next elapse after now (and after the latest one accounted for), at least
            // `minimumInterval` after this firing.
            let base = max(wall, latest ?? wall)
            guard let next = expression.nextElapse(after: base, defaultZone: zone) else {
                // The last elapse of a series runs its actions like every other one; the end that
                // follows runs none (`end(_:as:at:wall:reportedAs:)`).
                if let ring { scheduleRecurringActions(of: &record, trigger: ring.trigger) }
                timers[id] = record
                if let ring {
                    report(ring, record: record, now: now, wall: wall)
                    startSeriesRun(of: id, now: now, wall: wall)
                }
                return end(id, as: .finished, at: now, wall: wall)
            }
            recurrence.nextElapse = next
            record.recurrence = recurrence
            let ringAt = max(
                next.addingTimeInterval(Self.fixedDelay(id: id, instant: next, spread: recurrence.randomizedDelay)),
                wall.addingTimeInterval(TimerRecurrence.minimumInterval))
            record.wallDeadline = ringAt
            let since = max(0, wall.timeIntervalSince(latest ?? wall))
            record.rebase(
                now: now, elapsed: Int64((min(since, 4e9) * 1e9).rounded()),
                remaining: Self.nanoseconds(ringAt.timeIntervalSince(wall)))
        case .every(let seconds):
            // A stored period below the minimum (only a damaged store has one) is read as the minimum.
            let period = Self.nanoseconds(max(seconds, TimerRecurrence.minimumInterval))
            let late = now.nanoseconds(since: deadline)
            var nextBoot: BootInstant
            var sinceLast: Int64 = 0
            if recurrence.pendingMissed > 0 {
                let missed = Int(recurrence.pendingMissed)
                ring = Ring(counted: missed, missed: missed, date: recurrence.lastElapse ?? wall, trigger: .missed)
                nextBoot = now.advanced(byNanoseconds: period)
            } else {
                let passed = Int(min(Int64(TimerRecurrence.maximumCountedElapses), 1 + max(0, late) / period))
                let latestBoot = deadline.advanced(byNanoseconds: Int64(passed - 1) * period)
                sinceLast = now.nanoseconds(since: latestBoot)
                let latestWall = wall.addingTimeInterval(-Double(sinceLast) / 1e9)
                nextBoot = latestBoot.advanced(byNanoseconds: period)
                if !(wasAway || late >= 1_000_000_000) {
                    ring = Ring(counted: passed, missed: passed - 1, date: latestWall, trigger: .elapsed)
                } else if !recurrence.skipMissed {
                    let spread = recurrence.randomizedDelay > 0 ? recurrence.randomizedDelay : catchUpSpread
                    let wait = Self.fixedDelay(id: id, instant: latestWall, spread: spread)
                    if wait >= 0.001 {
                        recurrence.pendingMissed = UInt32(clamping: passed)
                        recurrence.lastElapse = latestWall
                        recurrence.nextElapse = wall.addingTimeInterval(wait)
                        record.recurrence = recurrence
                        record.wallDeadline = nil
                        record.rebase(now: now, elapsed: 0, remaining: Self.nanoseconds(wait))
                        record.runStartWall = wall
                        timers[id] = record
                        if let wake = record.nextWake(at: now, stepsChildren: false) { queue.schedule(id, at: wake) }
                        return nil
                    }
                    ring = Ring(counted: passed, missed: passed, date: latestWall, trigger: .missed)
                    nextBoot = now.advanced(byNanoseconds: period)
                    sinceLast = 0
                }
            }
            if nextBoot <= now { nextBoot = now.advanced(byNanoseconds: period) }
            if let ring { apply(ring, to: &recurrence) }
            recurrence.pendingMissed = 0
            let remaining = nextBoot.nanoseconds(since: now)
            recurrence.nextElapse = wall.addingTimeInterval(Double(remaining) / 1e9)
            record.recurrence = recurrence
            record.wallDeadline = nil
            record.rebase(now: now, elapsed: max(0, sinceLast), remaining: remaining)
        }
        record.runStartWall = wall
        if let ring {
            scheduleRecurringActions(of: &record, trigger: ring.trigger)
            timers[id] = record
            report(ring, record: record, now: now, wall: wall)
            startSeriesRun(of: id, now: now, wall: wall)
        } else {
            timers[id] = record
        }
        if let wake = record.nextWake(at: now, stepsChildren: false) { queue.schedule(id, at: wake) }
        return nil
    }

    private func apply(_ ring: Ring, to recurrence: inout TimerRecurrence) {
        recurrence.elapseCount &+= UInt64(max(0, ring.counted))
        recurrence.lastMissed = UInt32(clamping: ring.missed)
        recurrence.lastElapse = ring.date
    }

    private mutating func report(_ ring: Ring, record: TimerRecord, now: BootInstant, wall: Date) {
        report(
            .elapsed(missed: ring.missed), owner: record.owner, date: ring.date, record.snapshot(at: now, wallNow: wall)
        )
    }

    /// Adds a running run per kind for one elapse and queues it, like a one-shot finish; a kind whose
    /// run from an earlier elapse still runs is not started again (as systemd does not start a unit
    /// that is still active), so at most one run of each kind is in flight per timer.
    mutating func scheduleRecurringActions(of record: inout TimerRecord, trigger: TimerAction.Trigger) {
        guard var action = record.action else { return }
        let wall = clock.wallNow()
        for kind in action.kinds where !action.runs.contains(where: { $0.kind == kind && $0.outcome == .running }) {
            action.runs.append(ActionRun(kind: kind, trigger: trigger, startedAt: wall))
            dueActions.append(
                DueAction(
                    timerID: record.id, name: record.name, owner: record.owner,
                    duration: record.durations.reduce(0, +), kind: kind, trigger: trigger, action: action))
        }
        if action.runs.count > Self.maximumActionRuns {
            action.runs.removeFirst(action.runs.count - Self.maximumActionRuns)
        }
        record.action = action
    }
}
