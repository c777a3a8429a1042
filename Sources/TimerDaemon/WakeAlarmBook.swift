import Countdown

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The earliest wake alarm of each clock over the live wake-marked timers (`--wake`), which the
/// daemon arms its two alarm timers for (``WakeAlarmClocks``).
///
/// Kept beside the engine rather than in it, so that the engine's hot paths (start, fire, stop) do
/// no work for it: the book remembers the ids of the wake-marked timers it has seen and asks the
/// engine about each of them when the loop re-arms (once a turn). It learns of new timers from the
/// engine's next id (``Countdown/TimerEngine/nextTimerID``): the ids started since the last look
/// are checked for the wake mark; an id whose timer ended or is gone is forgotten.
struct WakeAlarmBook {
    /// The alarm deadlines to arm, `nil` for a clock with nothing to arm.
    struct Deadlines: Hashable {
        /// The earliest boot-time deadline of a wake-marked countdown, nanoseconds of `CLOCK_BOOTTIME`.
        var bootTime: Int64?
        /// The earliest wall-clock deadline of a wake-marked `--at` or calendar timer, nanoseconds
        /// since 1970-01-01T00:00:00Z.
        var wallClock: Int64?
    }

    /// The ids of the wake-marked timers seen live (some may have ended since).
    private(set) var candidates: Set<UInt64>
    /// The engine's next id at the last look: ids from here on are new.
    private var seenNextID: UInt64

    /// Creates the book of an engine: the live wake-marked timers it holds (after a restore).
    ///
    /// - Parameter engine: the engine.
    /// - Complexity: O(n) over the live timers.
    init(engine: TimerEngine) {
        candidates = Set(engine.liveWakeTimerIDs())
        seenNextID = engine.nextTimerID
    }

    /// The earliest alarm of each clock now: picks up the timers started since the last call and
    /// forgets the ended ones. A paused timer needs no alarm (it is kept, for its resume).
    ///
    /// - Parameter engine: the engine the book follows.
    /// - Returns: the deadlines to arm.
    /// - Complexity: O(s + w) for s timers started since the last call and w wake-marked live timers;
    ///   O(1) when neither a timer was started nor any wake-marked one is live.
    mutating func deadlines(in engine: TimerEngine) -> Deadlines {
        let next = engine.nextTimerID
        if next > seenNextID {
            for id in seenNextID..<next where engine.isLiveWakeTimer(id) { candidates.insert(id) }
            seenNextID = next
        }
        var deadlines = Deadlines()
        guard !candidates.isEmpty else { return deadlines }
        for id in candidates {
            guard engine.isLiveWakeTimer(id) else {
                candidates.remove(id)
                continue
            }
            switch engine.wakeAlarm(ofTimer: id) {
            case .bootTime(let instant)?:
                deadlines.bootTime = min(deadlines.bootTime ?? .max, instant.nanoseconds)
            case .wallClock(let date)?:
                let nanoseconds = Int64((date.timeIntervalSince1970 * 1e9).rounded(.up))
                deadlines.wallClock = min(deadlines.wallClock ?? .max, nanoseconds)
            case nil:
                break
            }
        }
        return deadlines
    }
}
