import Glibc
import TimerClient
import TimerModel
import TimerProtocol
import TimerSystem

/// `timerctl notifier`: the loop that moves bytes between timerd, the session bus and
/// ``NotifierModel``, which decides everything shown.
///
/// It subscribes to every event of the user's timers (`timer.subscribe`) and asks for the live
/// timers once (`timer.list`; again after a `timer.gap` and after connecting again), then waits in
/// `poll` on timerd's socket and the bus's descriptor, with the model's tick (the next second of a
/// shown countdown) and sd-bus's own time-out as the limit. timerd is never polled.
///
/// When timerd goes away (a restart), the notifications stay and the notifier connects again after
/// 0.25 s, then twice as long each time up to 5 s, through `connect` (which does not start a
/// daemon). Losing the session bus ends the run with ``NotifierError/bus(_:)``: the graphical
/// session is over (the systemd unit is `PartOf=graphical-session.target`).
public enum Notifier {
    /// The first wait before connecting to timerd again, in milliseconds.
    public static let firstRetryMilliseconds: Int64 = 250
    /// The longest wait before connecting to timerd again, in milliseconds.
    public static let longestRetryMilliseconds: Int64 = 5_000

    /// An open connection to timerd with its subscription.
    private struct Subscription {
        var link: any TimerdLink
        var subscribeID: Int
        var listID: Int

        init(_ link: any TimerdLink) throws(NotifierError) {
            self.link = link
            subscribeID = try link.send(.subscribe(timer: nil, kinds: nil, afterSeq: nil))
            listID = try link.send(.list(includingEnded: false))
        }
    }

    /// Runs until the session bus is lost or timerd refuses the subscription.
    ///
    /// - Parameters:
    ///   - connect: opens a connection to timerd (the default socket or `--socket`), without
    ///     starting a daemon.
    ///   - warn: writes one line of warning (a refused button request, a failed `Notify`).
    /// - Throws: ``NotifierError/notBuilt`` in a build without the trait `Notifications`;
    ///   ``NotifierError/bus(_:)`` when the session bus or the notification server cannot be
    ///   reached at start, or the bus is lost; ``NotifierError/timerd(_:)`` when timerd cannot be
    ///   reached at start; ``NotifierError/refused(_:)`` when timerd refuses the subscription;
    ///   ``NotifierError/protocolError(_:)`` when timerd sends a line that is not JSON-RPC.
    public static func run(
        connect: () throws(NotifierError) -> any TimerdLink, warn: (String) -> Void
    ) throws(NotifierError) {
        let bus = try SessionBus.openUser()
        try bus.watchNotificationSignals()
        var model = NotifierModel(capabilities: try bus.capabilities())
        var subscription: Subscription? = try Subscription(try connect())
        var retryMilliseconds = firstRetryMilliseconds
        var retryAt: Int64 = 0
        while true {
            var effects: [NotifierEffect] = []
            if var open = subscription {
                do throws(NotifierError) {
                    while let line = try open.link.readLine(timeoutMilliseconds: 0) {
                        let now = Syscall.bootTimeNanoseconds()
                        effects += try receive(line, model: &model, subscription: &open, now: now, warn: warn)
                    }
                    subscription = open
                } catch {
                    guard case .timerd = error else { throw error }
                    warn("timerctl notifier: \(error); connecting again")
                    subscription = nil
                    retryMilliseconds = firstRetryMilliseconds
                    retryAt = Syscall.bootTimeNanoseconds() + retryMilliseconds * 1_000_000
                }
            }
            for signal in try bus.process() {
                switch signal {
                case .actionInvoked(let id, let key): effects += model.actionInvoked(notificationID: id, key: key)
                case .closed(let id, _): model.closed(notificationID: id)
                }
            }
            effects += model.tick(now: Syscall.bootTimeNanoseconds())
            try perform(effects, bus: bus, model: &model, link: subscription?.link, warn: warn)

            let now = Syscall.bootTimeNanoseconds()
            var timeout = model.waitMilliseconds(now: now)
            let busTimeout = bus.timeoutMilliseconds()
            if busTimeout >= 0 { timeout = timeout < 0 ? busTimeout : min(timeout, busTimeout) }
            if subscription == nil {
                let untilRetry = Int32(max(0, (retryAt - now + 999_999) / 1_000_000))
                timeout = timeout < 0 ? untilRetry : min(timeout, untilRetry)
            }
            var descriptors = [pollfd(fd: try bus.fileDescriptor(), events: try bus.pollEvents(), revents: 0)]
            if let open = subscription {
                descriptors.append(pollfd(fd: open.link.fileDescriptor, events: Int16(POLLIN), revents: 0))
            }
            if poll(&descriptors, nfds_t(descriptors.count), timeout) < 0 && errno != EINTR {
                throw .bus("poll: \(SystemError("poll", errno: errno))")
            }
            if subscription == nil && Syscall.bootTimeNanoseconds() >= retryAt {
                do throws(NotifierError) {
                    subscription = try Subscription(try connect())
                } catch {
                    retryMilliseconds = min(retryMilliseconds * 2, longestRetryMilliseconds)
                    retryAt = Syscall.bootTimeNanoseconds() + retryMilliseconds * 1_000_000
                }
            }
        }
    }

    /// Applies one line from timerd to the model.
    ///
    /// - Returns: the effects; after a `timer.gap` the listing is asked for again.
    /// - Throws: ``NotifierError/refused(_:)`` when the subscription was refused,
    ///   ``NotifierError/protocolError(_:)`` for a line that is not JSON-RPC or a listing that cannot
    ///   be read, ``NotifierError/timerd(_:)`` when asking for the listing fails.
    private static func receive(
        _ line: [UInt8], model: inout NotifierModel, subscription: inout Subscription, now: Int64,
        warn: (String) -> Void
    ) throws(NotifierError) -> [NotifierEffect] {
        if let notification = try? ServerNotification(line: line) {
            switch notification {
            case .event(let event): return model.apply(event: event.event, timer: event.timer, now: now)
            case .gap:
                subscription.listID = try subscription.link.send(.list(includingEnded: false))
            case .other: break
            }
            return []
        }
        let reply: RPCReply
        do {
            reply = try RPCReply(line: line)
        } catch {
            throw .protocolError(String(decoding: line.prefix(200), as: UTF8.self))
        }
        if let error = reply.error {
            if reply.id == .number(Double(subscription.subscribeID)) || reply.id == .null {
                throw .refused(error)
            }
            warn("timerctl notifier: timerd refused a request: \(error.message)")
            return []
        }
        if reply.id == .number(Double(subscription.listID)), let result = reply.result {
            do {
                return model.load(try [TimerInfo](json: result), now: now)
            } catch {
                throw .protocolError("timer.list: \(error)")
            }
        }
        return []
    }

    /// Carries out the model's effects: bus calls and requests to timerd. A failed `Notify` or
    /// `CloseNotification` is a warning (the next tick tries again); a request with timerd away is
    /// dropped with a warning.
    ///
    /// - Throws: ``NotifierError/bus(_:)`` when the bus connection itself is gone.
    private static func perform(
        _ effects: [NotifierEffect], bus: SessionBus, model: inout NotifierModel, link: (any TimerdLink)?,
        warn: (String) -> Void
    ) throws(NotifierError) {
        for effect in effects {
            switch effect {
            case .notify(let timerID, let request):
                do throws(NotifierError) {
                    model.didShow(try bus.notify(request), forTimer: timerID)
                } catch {
                    model.didFailToShow(timerID: timerID)
                    warn("timerctl notifier: \(error)")
                }
            case .close(let id):
                do throws(NotifierError) {
                    try bus.closeNotification(id)
                } catch {
                    warn("timerctl notifier: \(error)")
                }
            case .request(let method, let timerID, let seconds):
                guard let link else {
                    warn("timerctl notifier: timerd is not connected; \(method.rawValue) of \(timerID) not sent")
                    continue
                }
                guard let request = Self.request(method, timer: timerID, seconds: seconds) else {
                    warn("timerctl notifier: \(method.rawValue) is not a button's request; not sent")
                    continue
                }
                do throws(NotifierError) {
                    _ = try link.send(request)
                } catch {
                    warn("timerctl notifier: \(error)")
                }
            }
        }
        _ = try bus.fileDescriptor()
    }
}

extension Notifier {
    /// The request a button asks for: `timer.pause`, `timer.resume`, `timer.stop`, `timer.restart`,
    /// `timer.extend` by `seconds`, `timer.snooze` (for `seconds`, or the daemon's default when
    /// `nil`) or `timer.ack`; `nil` for any other method.
    ///
    /// - Parameters:
    ///   - method: the method the model chose.
    ///   - timer: the timer's id.
    ///   - seconds: for `timer.extend`, the seconds to add.
    /// - Returns: the request, or `nil`.
    static func request(_ method: RPCMethod, timer: String, seconds: Double?) -> TimerRequest? {
        switch method {
        case .timerPause: return .pause(timer)
        case .timerResume: return .resume(timer)
        case .timerStop: return .stop(timer)
        case .timerRestart: return .restart(timer)
        case .timerExtend: return seconds.map { .extend(timer, seconds: $0) }
        case .timerSnooze: return .snooze(timer, seconds: seconds)
        case .timerAck: return .ack(timer)
        default: return nil
        }
    }
}
