import Countdown
import TimerModel
import TimerProtocol

extension TimerInfo {
    /// The wire form of an engine snapshot: ids as text, instants as ISO 8601 strings (UTC, milliseconds).
    ///
    /// Timestamps go through `timestamps`, which hands out the same string again for the same
    /// millisecond (`createdAt` and `startedAt` of a new timer, and the timers started within one
    /// millisecond under load), so a reply formats (and allocates) as few strings as before the
    /// engine stopped formatting them (docs/performance.md).
    ///
    /// - Parameters:
    ///   - snapshot: the engine's values.
    ///   - timestamps: the cache of recently formatted instants.
    init(_ snapshot: TimerSnapshot, timestamps: inout TimestampCache) {
        let isGroup = !snapshot.children.isEmpty
        let created = timestamps.string(from: snapshot.createdAt)
        let started = timestamps.string(from: snapshot.startedAt)
        self.init(
            id: String(snapshot.id), name: snapshot.name, state: snapshot.state, duration: snapshot.duration,
            remaining: snapshot.remaining, elapsed: snapshot.elapsed, progress: snapshot.progress,
            createdAt: created, startedAt: started,
            endedAt: snapshot.endedAt.map { timestamps.string(from: $0) },
            endsAt: snapshot.endsAt.map { timestamps.string(from: $0) },
            missed: snapshot.missed ? true : nil, currentChild: isGroup ? snapshot.currentChild : nil,
            children: isGroup
                ? snapshot.children.map { child in
                    TimerInfo(
                        id: "\(snapshot.id).\(child.index + 1)", name: nil, state: child.state,
                        duration: child.duration, remaining: child.remaining, elapsed: child.elapsed,
                        progress: child.progress)
                } : nil)
        if snapshot.wake { wake = true }
        if let alarm = snapshot.alarm {
            self.alarm = AlarmInfo(
                outcome: alarm.outcome?.rawValue, ringCount: Int(alarm.ringCount), ringInterval: alarm.ring?.interval,
                ringLimit: alarm.ring?.limit, snoozeCount: Int(alarm.snoozeCount),
                warned: alarm.warning == nil ? nil : alarm.isWarned, warning: alarm.warning,
                warnEach: alarm.warnsEachStep ? true : nil,
                warnedSteps: alarm.warnsEachStep ? Int(alarm.warnedSteps) : nil)
        }
        if let heartbeat = snapshot.heartbeat {
            self.heartbeat = HeartbeatInfo(
                beatCount: Int(clamping: heartbeat.beatCount),
                lastBeatAt: heartbeat.lastBeatAt.map { timestamps.string(from: $0) })
        }
        if let series = snapshot.recurrence {
            let recurrence = series.recurrence
            var expression: String?
            var every: Double?
            var zone: String?
            var follows: Bool?
            switch recurrence.rule {
            case .calendar(let text, let name, let followsSystemZone):
                (expression, zone, follows) = (text, name, followsSystemZone)
            case .every(let seconds):
                every = seconds
            }
            self.recurrence = RecurrenceInfo(
                elapseCount: Int(clamping: recurrence.elapseCount), every: every, expression: expression,
                followsSystemZone: follows, lastElapse: recurrence.lastElapse.map { timestamps.string(from: $0) },
                lastMissed: Int(recurrence.lastMissed), lastResult: series.lastResult.map(Self.resultText),
                nextElapse: series.nextElapse.map { timestamps.string(from: $0) }, persistent: !recurrence.skipMissed,
                randomizedDelay: recurrence.randomizedDelay, zone: zone,
                group: series.group.map { group in
                    SeriesGroupInfo(
                        durations: group.durations, overlap: group.overlap.rawValue, queued: group.queued,
                        run: group.run.map { String($0) }, runCount: Int(clamping: group.runCount),
                        runStep: series.runStep, skippedCount: Int(clamping: group.skippedCount))
                })
        }
    }

    /// How an action run ended, for ``RecurrenceInfo/lastResult`` (shared mode writes it too).
    package static func resultText(_ outcome: ActionRun.Outcome) -> String {
        switch outcome {
        case .running: return "running"
        case .exited(let status): return "exited \(status)"
        case .signalled(let signal): return "signalled \(signal)"
        case .timedOut: return "timed out"
        case .failedToStart(let error): return "failed to start (errno \(error))"
        case .interrupted: return "interrupted"
        }
    }

    /// The wire form of an engine snapshot, formatting its instants afresh.
    ///
    /// - Parameter snapshot: the engine's values.
    public init(_ snapshot: TimerSnapshot) {
        var timestamps = TimestampCache()
        self.init(snapshot, timestamps: &timestamps)
    }
}
