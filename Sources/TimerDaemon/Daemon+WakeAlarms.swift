import TimerSystem

/// Waking the machine from suspend for wake-marked timers (`timerctl start … --wake`): the two
/// alarm timers of ``WakeAlarmClocks``, armed at the top of each turn for the backend's earliest
/// wake deadlines (docs/time.md, "Waking from suspend").
extension Daemon {
    /// The epoll token of the `CLOCK_BOOTTIME_ALARM` timer.
    static let bootAlarmToken: UInt64 = 7
    /// The epoll token of the `CLOCK_REALTIME_ALARM` timer.
    static let wallAlarmToken: UInt64 = 8

    /// Tries once, at start-up, to create the alarm timers.
    ///
    /// - Returns: the alarm timers, or `nil` and the message `timer.start` with `wake` is refused
    ///   with: ``WakeAlarmClocks/missingCapabilityRefusal`` for `EPERM`, else the error.
    static func openWakeAlarms() -> (clocks: WakeAlarmClocks?, refusal: String?) {
        do {
            return (try WakeAlarmClocks(), nil)
        } catch {
            if error.errno == .notPermitted { return (nil, WakeAlarmClocks.missingCapabilityRefusal) }
            return (nil, "this timerd cannot wake the machine: \(error)")
        }
    }

    /// Registers the alarm timers with epoll.
    ///
    /// - Throws: ``TimerSystem/SystemError`` from `epoll_ctl`.
    func watchWakeAlarms() throws(SystemError) {
        try wakeAlarms?.watch(with: epoll, bootTimeToken: Self.bootAlarmToken, wallClockToken: Self.wallAlarmToken)
    }

    /// Arms the alarm timers for the backend's earliest wake deadlines, when they changed.
    func rearmWakeAlarms() {
        guard let wakeAlarms else { return }
        do {
            try wakeAlarms.arm(backend.wakeDeadlines())
        } catch {
            log("error: \(error)")
        }
    }

    /// An alarm timer expired (the machine may just have resumed): its count is read so that it
    /// stops being readable. The timers it was armed for fire on the loop's own timer.
    ///
    /// - Parameter token: ``bootAlarmToken`` or ``wallAlarmToken``.
    func wakeAlarmExpired(_ token: UInt64) {
        guard let wakeAlarms else { return }
        (token == Self.bootAlarmToken ? wakeAlarms.bootTime : wakeAlarms.wallClock).drain()
    }
}
