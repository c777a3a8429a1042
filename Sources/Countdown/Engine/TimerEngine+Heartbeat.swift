import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Heartbeat timers (``TimerHeartbeat``): ``beat(_:requester:)``, the check-in a watched service
/// sends more often than the timer's duration.
extension TimerEngine {
    /// Re-arms a heartbeat timer to its whole duration from now: its new deadline is now plus the
    /// duration, whatever was left before.
    ///
    /// A paused heartbeat timer is resumed by a beat, as a paused check of healthchecks.io is
    /// resumed by its next ping (a service that checks in is watched again). A beat differs from
    /// ``restart(_:requester:quota:)``: it keeps `startedAt` (when the watching began) and the
    /// action's runs, counts itself in ``TimerHeartbeat/beatCount`` and ``TimerHeartbeat/lastBeatAt``,
    /// and never brings an ended timer back: when a heartbeat timer has finished, its alert has
    /// already run, and a late beat is refused so that the service learns it (restart the timer to
    /// watch again).
    ///
    /// A beat counts only when it comes before the deadline: one at or after it is refused even if
    /// the daemon has not finished the timer yet (under load, finishing waits for its slice of the
    /// loop, ``fireDueTimers(limit:)``), so that whether the alert runs never depends on that delay.
    ///
    /// It writes one record and reports one ``TimerEvent/Kind/beat`` event.
    ///
    /// - Parameters:
    ///   - reference: the timer's id or name.
    ///   - requester: the uid asking, or `nil` to see every timer.
    /// - Returns: the timer after the beat, running, its remaining time its whole duration.
    /// - Throws: `CountdownError.timerNotFound(_:)`; `CountdownError.notAHeartbeat(timer:)` for a timer
    ///   started without `--heartbeat`; `CountdownError.invalidTransition(timer:state:operation:)` for
    ///   a finished or stopped one; `CountdownError.beatTooLate(timer:end:)` for a running one whose
    ///   deadline has passed (it is due: the next firing finishes it).
    /// - Complexity: O(log n).
    public mutating func beat(_ reference: TimerReference, requester: UInt32? = nil) throws(CountdownError)
        -> TimerSnapshot
    {
        let id = try resolve(reference, requester: requester)
        guard var record = timers[id] else { throw .timerNotFound(reference) }
        guard var heartbeat = record.heartbeat else { throw .notAHeartbeat(timer: Self.label(record)) }
        try requireState(id, in: [.running, .paused], for: .beat)
        let now = clock.now()
        let wall = clock.wallNow()
        if let deadline = record.deadline, deadline.nanoseconds(since: now) <= 0 {
            let end = wall.addingTimeInterval(Double(deadline.nanoseconds(since: now)) / 1e9)
            throw .beatTooLate(timer: Self.label(record), end: ISO8601.string(from: end))
        }
        if record.state == .paused { notePaused(owner: record.owner, -1) }
        record.state = .running
        record.accumulatedNanoseconds = 0
        record.runStart = now
        record.runStartWall = wall
        heartbeat.beatCount &+= 1
        heartbeat.lastBeatAt = wall
        record.heartbeat = heartbeat
        timers[id] = record
        if let wake = record.nextWake(at: now, stepsChildren: eventRecording == .buffered) {
            queue.schedule(id, at: wake)
        }
        let snapshot = record.snapshot(at: now, wallNow: wall)
        report(.beat, owner: record.owner, date: wall, snapshot)
        return snapshot
    }
}
