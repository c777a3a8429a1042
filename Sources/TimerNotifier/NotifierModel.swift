import TimerModel
import TimerProtocol

/// What the notifier does, as a value: the timers as timerd's events and listing left them, which
/// desktop notification shows each, and what to send where, with no bus, no socket and no clock
/// of its own, so that tests feed events, signals and instants and read exact effects.
///
/// One notification per timer, replaced in place (`replaces_id`) as the timer changes:
/// - An event (a state change, an extension, a rename …) updates the notification at once.
/// - Between events a running timer's remaining time and progress are counted down from its last
///   report on the boot-time clock, and its notification is refreshed when the shown second
///   changes: at most once per second per timer (``progressIntervalNanoseconds``), and only when
///   the text or the percentage differs from what was sent. timerd is never polled.
/// - A button (`ActionInvoked` on one of our ids) becomes the request to timerd; the notification
///   changes when the resulting event arrives, not before.
/// - `NotificationClosed` forgets the notification's id. The timer's notification stays hidden
///   until its next event (a closed countdown does not come back each second); an ended timer is
///   forgotten altogether. Dismiss closes the notification.
/// - A stopped or removed timer's notification is closed.
public struct NotifierModel: Sendable {
    /// One timer and its notification.
    struct Tracked: Sendable {
        var timer: TimerInfo
        /// Boot-time nanoseconds when `timer` was reported.
        var receivedAt: Int64
        /// The server's id of its notification, once one was shown.
        var notificationID: UInt32?
        /// What was sent last.
        var shown: NotificationContent?
        /// Boot-time nanoseconds of the last `Notify`.
        var shownAt: Int64 = .min
        /// Closed by the user: not shown again until the next event.
        var isHidden = false
    }

    /// Seconds `+1 min` adds (`timer.extend`'s `by`).
    public static let extendSeconds: Double = 60
    /// The shortest time between two progress refreshes of one timer's notification: 1 s.
    public static let progressIntervalNanoseconds: Int64 = 1_000_000_000

    /// What the server supports, from `GetCapabilities`.
    public var capabilities: ServerCapabilities
    private var timers: [String: Tracked] = [:]

    /// Creates a model with no timers.
    ///
    /// - Parameter capabilities: the server's capabilities.
    public init(capabilities: ServerCapabilities) {
        self.capabilities = capabilities
    }

    /// The id of the notification that shows a timer, if one does.
    ///
    /// - Parameter timerID: the timer's id.
    public func notificationID(ofTimer timerID: String) -> UInt32? { timers[timerID]?.notificationID }

    /// The timer's remaining seconds at `now`: the reported remaining time, less the time since the
    /// report while it runs; never below 0.
    static func remaining(_ tracked: Tracked, now: Int64) -> Double {
        guard tracked.timer.state == .running else { return tracked.timer.remaining }
        return max(0, tracked.timer.remaining - Double(now - tracked.receivedAt) / 1e9)
    }

    /// The fraction completed at `now`: the reported `fractionCompleted` plus, while it runs, the
    /// time since the report over the whole duration; 0 … 1.
    static func fraction(_ tracked: Tracked, now: Int64) -> Double {
        var fraction = tracked.timer.progress.fractionCompleted
        if tracked.timer.state == .running, tracked.timer.duration > 0 {
            fraction += (tracked.timer.remaining - remaining(tracked, now: now)) / tracked.timer.duration
        }
        return fraction.isFinite ? min(1, max(0, fraction)) : 0
    }

    /// Applies one `timer.event`.
    ///
    /// - Parameters:
    ///   - event: the event kind (`started`, `paused`, `finished`, `removed` …).
    ///   - timer: the timer as the event reports it.
    ///   - now: boot-time nanoseconds when it arrived.
    /// - Returns: what to do: a `Notify` for the timer, or the closing of its notification.
    public mutating func apply(event: String, timer: TimerInfo, now: Int64) -> [NotifierEffect] {
        if event == "removed" || timer.state == .stopped {
            return forget(timer.id)
        }
        var tracked = timers[timer.id] ?? Tracked(timer: timer, receivedAt: now)
        tracked.timer = timer
        tracked.receivedAt = now
        // An action's outcome changes nothing shown: it does not bring back a closed notification.
        if event != "action" { tracked.isHidden = false }
        timers[timer.id] = tracked
        return update(timer.id, now: now, isImmediate: true)
    }

    /// Applies a `timer.list` answer: the live timers replace what was kept; a live timer that is
    /// no longer listed has its notification closed.
    ///
    /// - Parameters:
    ///   - listing: the live timers.
    ///   - now: boot-time nanoseconds when it arrived.
    /// - Returns: the `Notify` calls and closings.
    public mutating func load(_ listing: [TimerInfo], now: Int64) -> [NotifierEffect] {
        var effects: [NotifierEffect] = []
        let listed = Set(listing.map(\.id))
        for (id, tracked) in timers.sorted(by: { $0.key < $1.key })
        where tracked.timer.state.isLive && !listed.contains(id) {
            effects += forget(id)
        }
        for timer in listing.sorted(by: { $0.id < $1.id }) {
            var tracked = timers[timer.id] ?? Tracked(timer: timer, receivedAt: now)
            tracked.timer = timer
            tracked.receivedAt = now
            timers[timer.id] = tracked
            effects += update(timer.id, now: now, isImmediate: true)
        }
        return effects
    }

    /// The progress refreshes due at `now`: each shown running timer whose text or percentage
    /// changed, at most once per ``progressIntervalNanoseconds``.
    ///
    /// - Parameter now: boot-time nanoseconds.
    /// - Returns: the `Notify` calls, in timer id order.
    public mutating func tick(now: Int64) -> [NotifierEffect] {
        timers.keys.sorted().flatMap { update($0, now: now, isImmediate: false) }
    }

    /// Records the id the server gave a timer's notification (`Notify`'s answer).
    ///
    /// - Parameters:
    ///   - notificationID: the id.
    ///   - timerID: the timer it shows.
    public mutating func didShow(_ notificationID: UInt32, forTimer timerID: String) {
        timers[timerID]?.notificationID = notificationID
    }

    /// Records that a `Notify` for the timer failed, so that the next tick tries again.
    ///
    /// - Parameter timerID: the timer.
    public mutating func didFailToShow(timerID: String) {
        timers[timerID]?.shown = nil
    }

    /// A button was pressed (`ActionInvoked`).
    ///
    /// - Parameters:
    ///   - notificationID: the notification's id; another application's is ignored.
    ///   - key: the action key (``NotifierAction``'s raw value); an unknown key (`default`, a click
    ///     on the body) is ignored.
    /// - Returns: the request to send timerd, or for Dismiss the closing of the notification.
    public mutating func actionInvoked(notificationID: UInt32, key: String) -> [NotifierEffect] {
        guard let (timerID, _) = timers.first(where: { $0.value.notificationID == notificationID }),
            let action = NotifierAction(rawValue: key)
        else { return [] }
        switch action {
        case .pause: return [.request(.timerPause, timerID: timerID, seconds: nil)]
        case .resume: return [.request(.timerResume, timerID: timerID, seconds: nil)]
        case .extend: return [.request(.timerExtend, timerID: timerID, seconds: Self.extendSeconds)]
        case .stop: return [.request(.timerStop, timerID: timerID, seconds: nil)]
        case .restart: return [.request(.timerRestart, timerID: timerID, seconds: nil)]
        case .snooze: return [.request(.timerSnooze, timerID: timerID, seconds: nil)]
        case .ack: return [.request(.timerAck, timerID: timerID, seconds: nil)]
        case .dismiss:
            timers[timerID]?.isHidden = true
            return [.close(notificationID)]
        }
    }

    /// A notification was closed (`NotificationClosed`, any reason): its id is forgotten; an ended
    /// timer is forgotten too, a live one stays hidden until its next event.
    ///
    /// - Parameter notificationID: the id; another application's is ignored.
    public mutating func closed(notificationID: UInt32) {
        guard let (timerID, tracked) = timers.first(where: { $0.value.notificationID == notificationID }) else {
            return
        }
        guard tracked.timer.state.isLive else {
            timers[timerID] = nil
            return
        }
        timers[timerID]?.notificationID = nil
        timers[timerID]?.shown = nil
        timers[timerID]?.isHidden = true
    }

    /// How long until a shown notification's text may change without an event: until the next
    /// whole second of some shown running timer's remaining time (shown seconds are rounded up),
    /// 1 ms after, and not before its 1 s refresh interval is over; for a timer whose text changed
    /// already but was held back by that interval, until the interval is over. At most 1 s.
    ///
    /// - Complexity: O(n) in the timers kept.
    ///
    /// - Parameter now: boot-time nanoseconds.
    /// - Returns: milliseconds, or -1 when nothing ticks.
    public func waitMilliseconds(now: Int64) -> Int32 {
        var wait: Int32 = -1
        for tracked in timers.values where tracked.timer.state == .running && !tracked.isHidden {
            let left = Self.remaining(tracked, now: now)
            let intervalOver = tracked.shownAt == .min ? now : tracked.shownAt + Self.progressIntervalNanoseconds
            let untilIntervalOver = Int32(min(1_000, max(0, (intervalOver - now + 999_999) / 1_000_000)))
            let current = NotificationContent.make(
                timer: tracked.timer, remaining: left, fraction: Self.fraction(tracked, now: now))
            var milliseconds: Int32
            if current != tracked.shown {
                // Changed already, held back by the interval: due when the interval is over.
                milliseconds = untilIntervalOver
            } else {
                guard left > 0 else { continue }
                let part = left - left.rounded(.down)
                milliseconds = part == 0 ? 1_000 : Int32(min(1_000, max(1, (part * 1_000).rounded(.up) + 1)))
                milliseconds = max(milliseconds, untilIntervalOver)
            }
            wait = wait < 0 ? milliseconds : min(wait, milliseconds)
        }
        return wait
    }

    /// The effect that brings a timer's notification up to date, if any.
    private mutating func update(_ timerID: String, now: Int64, isImmediate: Bool) -> [NotifierEffect] {
        guard var tracked = timers[timerID], !tracked.isHidden else { return [] }
        let content = NotificationContent.make(
            timer: tracked.timer, remaining: Self.remaining(tracked, now: now),
            fraction: Self.fraction(tracked, now: now))
        guard let content else {
            return forget(timerID)
        }
        guard content != tracked.shown else { return [] }
        if !isImmediate && now - tracked.shownAt < Self.progressIntervalNanoseconds { return [] }
        tracked.shown = content
        tracked.shownAt = now
        timers[timerID] = tracked
        return [
            .notify(
                timerID: timerID,
                content.request(replacing: tracked.notificationID ?? 0, capabilities: capabilities))
        ]
    }

    /// Forgets a timer, closing its notification.
    private mutating func forget(_ timerID: String) -> [NotifierEffect] {
        let id = timers[timerID]?.notificationID
        timers[timerID] = nil
        return id.map { [.close($0)] } ?? []
    }
}

/// Something the notifier must do, as ``NotifierModel`` decides it.
public enum NotifierEffect: Equatable, Sendable {
    /// Call `Notify`, then record the id with ``NotifierModel/didShow(_:forTimer:)``.
    case notify(timerID: String, NotifyRequest)
    /// Call `CloseNotification` with the id.
    case close(UInt32)
    /// Send timerd a request for the timer (`seconds`: `timer.extend`'s `by`).
    case request(RPCMethod, timerID: String, seconds: Double?)
}
