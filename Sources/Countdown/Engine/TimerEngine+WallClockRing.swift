import CalendarEvents
import Foundation

/// Ringing a recurring series on one wall clock alone: timerd's shared mode, whose only clock is
/// the database's (docs/multihost.md, "Recurring timers"). The elapse searches, the fixed randomized
/// delay, the counting of elapses a firing stands for and the minimum interval are the engine's own
/// (``countElapses(_:zone:from:through:)``, ``fixedDelay(id:instant:spread:)``,
/// ``TimerRecurrence/minimumInterval``); the decision is ``ringRecurring(_:deadline:now:wall:wasAway:)``'s
/// for a series with no catch-up waiting.
extension TimerEngine {
    /// What one firing of a recurring series did, on the wall clock it runs by.
    public struct WallClockRing: Sendable, Equatable {
        /// The series after the firing: ``TimerRecurrence/elapseCount``, ``TimerRecurrence/lastElapse``,
        /// ``TimerRecurrence/lastMissed`` and ``TimerRecurrence/nextElapse`` moved on.
        public var recurrence: TimerRecurrence
        /// The `missed` of the `elapsed` event it rings (0 on time; for a catch-up, the elapses it
        /// stands for), or `nil` when it rings nothing (`skipMissed` dropped the elapses).
        public var missed: Int?
        /// Why its actions run: ``TimerAction/Trigger/elapsed`` on time, ``TimerAction/Trigger/missed``
        /// for a catch-up; `nil` when it rings nothing.
        public var trigger: TimerAction.Trigger?
        /// When the next firing is due (the next elapse plus its randomized delay), or `nil` when the
        /// rule never elapses again: the series then ends, finished, after this firing.
        public var ringAt: Date?
    }

    /// Fires a recurring series whose firing was due at `scheduled`, at `wall`: on time (less than
    /// 1 s late) it rings `elapsed` with `missed` = the further elapses that passed meanwhile;
    /// late, it rings one catch-up at once (`missed` = every elapse that passed, trigger `missed`)
    /// or, with ``TimerRecurrence/skipMissed``, nothing; then it schedules the first elapse after
    /// both `wall` and the latest one accounted for, at least ``TimerRecurrence/minimumInterval``
    /// after `wall`. A calendar rule whose stored expression or zone no longer reads rings nothing
    /// and ends.
    ///
    /// Unlike the engine on the boot-time clock, a catch-up does not wait for a part of a spread:
    /// whichever host fires it rings it at once.
    ///
    /// - Parameters:
    ///   - recurrence: the series as stored (its ``TimerRecurrence/nextElapse`` the nominal elapse due).
    ///   - id: the timer's id (its randomized delay is derived from it).
    ///   - scheduled: when the firing was due (the nominal elapse plus its randomized delay).
    ///   - wall: now.
    /// - Returns: the firing.
    /// - Complexity: one elapse search per elapse counted (at most ``TimerRecurrence/maximumCountedElapses``).
    public static func ringOnWallClock(
        _ recurrence: TimerRecurrence, id: UInt64, scheduled: Date, wall: Date
    ) -> WallClockRing {
        var recurrence = recurrence
        let late = wall.timeIntervalSince(scheduled) >= 1
        var counted = 0
        var missed: Int?
        var trigger: TimerAction.Trigger?
        var latest: Date
        var next: Date?
        switch recurrence.rule {
        case .calendar(let text, let zoneName, _):
            guard let expression = try? CalendarExpression.parse(text),
                let zone = expression.timeZone ?? TimeZone(identifier: zoneName)
            else {
                recurrence.nextElapse = nil
                return WallClockRing(recurrence: recurrence, missed: nil, trigger: nil, ringAt: nil)
            }
            let nominal = recurrence.nextElapse ?? scheduled
            let passed = countElapses(expression, zone: zone, from: nominal, through: max(wall, nominal))
            latest = passed.latest ?? nominal
            if !late {
                (counted, missed, trigger) = (passed.count, passed.count - 1, .elapsed)
            } else if !recurrence.skipMissed {
                (counted, missed, trigger) = (passed.count, passed.count, .missed)
            }
            next = expression.nextElapse(after: max(wall, latest), defaultZone: zone)
        case .every(let seconds):
            let period = Double(nanoseconds(max(seconds, TimerRecurrence.minimumInterval))) / 1e9
            let lateness = max(0, wall.timeIntervalSince(scheduled))
            let passed = Int(min(Double(TimerRecurrence.maximumCountedElapses), 1 + (lateness / period).rounded(.down)))
            latest = scheduled.addingTimeInterval(Double(passed - 1) * period)
            var following = latest.addingTimeInterval(period)
            if !late {
                (counted, missed, trigger) = (passed, passed - 1, .elapsed)
            } else if !recurrence.skipMissed {
                (counted, missed, trigger) = (passed, passed, .missed)
                following = wall.addingTimeInterval(period)
            }
            next = following > wall ? following : wall.addingTimeInterval(period)
        }
        if missed != nil {
            recurrence.elapseCount &+= UInt64(max(0, counted))
            recurrence.lastMissed = UInt32(clamping: missed ?? 0)
            recurrence.lastElapse = latest
        }
        recurrence.pendingMissed = 0
        recurrence.nextElapse = next
        guard let next else {
            return WallClockRing(recurrence: recurrence, missed: missed, trigger: trigger, ringAt: nil)
        }
        let ringAt: Date
        if case .calendar = recurrence.rule {
            ringAt = max(
                next.addingTimeInterval(fixedDelay(id: id, instant: next, spread: recurrence.randomizedDelay)),
                wall.addingTimeInterval(TimerRecurrence.minimumInterval))
        } else {
            ringAt = next
        }
        return WallClockRing(recurrence: recurrence, missed: missed, trigger: trigger, ringAt: ringAt)
    }

    /// When a series resumed at `wall` rings next: a calendar rule at the first elapse after `wall`
    /// (those that passed while paused do not ring; ``resume(_:requester:)``), with its fixed
    /// randomized delay; `nil` when it never elapses again (the series ends, finished). Not for
    /// `every`, whose paused period goes on where it stood.
    ///
    /// - Parameters:
    ///   - recurrence: the paused series.
    ///   - id: the timer's id.
    ///   - wall: now.
    /// - Returns: the series with its next elapse, and when it rings; `nil` for an `every` rule or a
    ///   calendar rule that never elapses again.
    public static func resumeOnWallClock(_ recurrence: TimerRecurrence, id: UInt64, wall: Date) -> (
        recurrence: TimerRecurrence, ringAt: Date
    )? {
        guard case .calendar(let text, let zoneName, _) = recurrence.rule,
            let expression = try? CalendarExpression.parse(text),
            let zone = expression.timeZone ?? TimeZone(identifier: zoneName),
            let next = expression.nextElapse(after: wall, defaultZone: zone)
        else { return nil }
        var recurrence = recurrence
        recurrence.nextElapse = next
        recurrence.pendingMissed = 0
        let ringAt = max(
            next.addingTimeInterval(fixedDelay(id: id, instant: next, spread: recurrence.randomizedDelay)),
            wall.addingTimeInterval(0.000_001))
        return (recurrence, ringAt)
    }
}
