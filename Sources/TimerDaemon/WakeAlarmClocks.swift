import TimerSystem

/// The daemon's two alarm timers (``TimerSystem/AlarmTimer``): one on `CLOCK_BOOTTIME_ALARM` for
/// wake-marked countdowns, one on `CLOCK_REALTIME_ALARM` for wake-marked wall-clock deadlines,
/// each armed for the earliest deadline of its clock (``WakeAlarmBook``) and re-armed only when
/// that changes. Their expiry only wakes the loop: the engine's own `CLOCK_BOOTTIME` timer fires
/// the timers as usual once the machine runs again.
///
/// Disarming replaces the timer with a fresh, never-armed one rather than setting a zero
/// `it_value`: the kernel cancels an alarm timer so set, but `timerfd_gettime(2)` and
/// `/proc/PID/fdinfo` go on reporting its old expiry (they read the alarm's stored expiry whether
/// or not it is queued), so only a fresh timer reads as disarmed to whoever inspects the daemon.
final class WakeAlarmClocks {
    /// The boot-time alarm clock.
    private(set) var bootTime: AlarmTimer
    /// The wall-clock alarm clock.
    private(set) var wallClock: AlarmTimer
    /// The deadlines the two timers are armed for now.
    private(set) var armed = WakeAlarmBook.Deadlines()
    /// The loop's epoll and the tokens the timers report, once ``watch(with:bootTimeToken:wallClockToken:)`` ran.
    private var watcher: (epoll: Epoll, bootTimeToken: UInt64, wallClockToken: UInt64)?

    /// The text `timer.start` with `wake` is refused with when the alarm clocks cannot be created
    /// for lack of `CAP_WAKE_ALARM`: it names the system daemon's socket, whose unit grants it.
    static let missingCapabilityRefusal =
        "this timerd cannot wake the machine: it lacks CAP_WAKE_ALARM; start the timer on the system daemon "
        + "(timerctl --socket /run/timerd/timerd.sock start … --wake), whose unit grants it"

    /// Creates both alarm timers, disarmed; ``watch(with:bootTimeToken:wallClockToken:)`` registers them.
    ///
    /// - Throws: ``TimerSystem/SystemError`` from `timerfd_create` (`EPERM` without `CAP_WAKE_ALARM`).
    init() throws(SystemError) {
        bootTime = try AlarmTimer(.bootTime)
        wallClock = try AlarmTimer(.wallClock)
    }

    /// Registers both timers (and each fresh one later) with the loop's epoll.
    ///
    /// - Parameters:
    ///   - epoll: the loop's epoll.
    ///   - bootTimeToken: the token the boot-time alarm reports.
    ///   - wallClockToken: the token the wall-clock alarm reports.
    /// - Throws: ``TimerSystem/SystemError`` from `epoll_ctl`.
    func watch(with epoll: Epoll, bootTimeToken: UInt64, wallClockToken: UInt64) throws(SystemError) {
        try epoll.add(bootTime.descriptor, interest: .readable, token: bootTimeToken)
        try epoll.add(wallClock.descriptor, interest: .readable, token: wallClockToken)
        watcher = (epoll, bootTimeToken, wallClockToken)
    }

    /// Arms each timer whose deadline changed; a `nil` deadline disarms it (a fresh timer).
    ///
    /// - Parameter deadlines: the deadlines to arm.
    /// - Throws: ``TimerSystem/SystemError`` from `timerfd_settime`, `timerfd_create` or
    ///   `epoll_ctl`; the timers armed before the failure keep their new deadline.
    func arm(_ deadlines: WakeAlarmBook.Deadlines) throws(SystemError) {
        if deadlines.bootTime != armed.bootTime {
            if let deadline = deadlines.bootTime {
                try bootTime.arm(atNanoseconds: deadline)
            } else {
                let fresh = try AlarmTimer(.bootTime)
                if let watcher {
                    try watcher.epoll.add(fresh.descriptor, interest: .readable, token: watcher.bootTimeToken)
                }
                bootTime = fresh  // the old descriptor closes, and epoll forgets it
            }
            armed.bootTime = deadlines.bootTime
        }
        if deadlines.wallClock != armed.wallClock {
            if let deadline = deadlines.wallClock {
                try wallClock.arm(atNanoseconds: deadline)
            } else {
                let fresh = try AlarmTimer(.wallClock)
                if let watcher {
                    try watcher.epoll.add(fresh.descriptor, interest: .readable, token: watcher.wallClockToken)
                }
                wallClock = fresh
            }
            armed.wallClock = deadlines.wallClock
        }
    }
}
