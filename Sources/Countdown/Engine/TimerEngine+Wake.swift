#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When a wake-marked timer (`--wake`, ``TimerExtension/wake``) needs the machine awake: the instant
/// an alarm clock that can resume the machine from suspend is armed for (systemd's `WakeSystem=`,
/// man systemd.timer(5)).
///
/// Two clocks, as man timerfd_create(2) offers them: a countdown's end is an instant of the boot-time
/// clock (`CLOCK_BOOTTIME_ALARM`, which counts suspend like the engine's `CLOCK_BOOTTIME`); a timer
/// that ends at a wall-clock instant (`--at`, `--on`, the first period of `--every … --from`) is
/// armed on the wall clock (`CLOCK_REALTIME_ALARM`), so that a wall-clock step while suspended
/// still wakes the machine at the instant asked for.
public enum WakeAlarm: Sendable, Hashable {
    /// An instant of the boot-time clock.
    case bootTime(BootInstant)
    /// A wall-clock instant.
    case wallClock(Date)
}

extension TimerRecord {
    /// Whether the timer carries the wake mark (extension tag 4); setting it adds or removes the mark.
    ///
    /// - Complexity: O(e) for e extensions (almost always 0 to 3).
    public var isWake: Bool {
        get { extensions.contains { $0.tag == TimerExtension.wakeTag } }
        set {
            guard newValue != isWake else { return }
            if newValue {
                extensions.append(.wake)
            } else {
                extensions.removeAll { $0.tag == TimerExtension.wakeTag }
            }
        }
    }

    /// The alarm a wake-marked running timer needs: its wall-clock deadline when it has one, else
    /// its boot-time deadline (the end of the whole timer; a group's steps do not wake the machine);
    /// `nil` when the timer is not wake-marked or not running.
    var wakeAlarm: WakeAlarm? {
        guard state == .running, isWake, let deadline else { return nil }
        if let wallDeadline { return .wallClock(wallDeadline) }
        return .bootTime(deadline)
    }
}

extension TimerEngine {
    /// The id the next started timer gets: a timer was started since an earlier reading when this
    /// grew (a restart keeps its id). The daemon's wake bookkeeping looks only at the ids in between.
    public var nextTimerID: UInt64 { nextID }

    /// The alarm the timer `id` needs to wake the machine (``WakeAlarm``), or `nil` when it is not
    /// wake-marked, not running, or unknown.
    ///
    /// - Parameter id: the timer's id.
    /// - Returns: its alarm instant.
    /// - Complexity: O(1) expected (one table look-up and its few extensions).
    public func wakeAlarm(ofTimer id: UInt64) -> WakeAlarm? { timers[id]?.wakeAlarm }

    /// Whether the timer `id` exists, is live (running or paused) and carries the wake mark.
    ///
    /// - Parameter id: the timer's id.
    /// - Returns: `false` for an unknown, ended or unmarked timer.
    /// - Complexity: O(1) expected.
    public func isLiveWakeTimer(_ id: UInt64) -> Bool {
        guard let record = timers[id] else { return false }
        return record.state.isLive && record.isWake
    }

    /// The ids of the live wake-marked timers, in no particular order (read once after a restore).
    ///
    /// - Returns: the ids.
    /// - Complexity: O(n) over the live timers.
    public func liveWakeTimerIDs() -> [UInt64] {
        listIDs(includeEnded: false).filter(isLiveWakeTimer)
    }
}
