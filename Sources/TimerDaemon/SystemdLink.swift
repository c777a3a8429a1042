import Countdown
import TimerModel
import TimerProtocol
import TimerService
import TimerSystem

/// The daemon's side of the service manager: when to send `READY=1`, `STATUS=`, `WATCHDOG=1`,
/// `RELOADING=1` and `STOPPING=1` (man sd_notify(3)). The event loop calls ``turn(now:status:)``
/// once per turn and includes ``millisecondsUntilDue(now:hasLiveTimers:)`` in its `epoll` time-out,
/// so the watchdog is pinged from the loop that fires timers: a wedged loop misses its ping.
///
/// - `WATCHDOG=1` every half of `WATCHDOG_USEC` (only when `WATCHDOG_PID` is ours or unset).
/// - `STATUS=` at most once a second, and only when the text changed.
final class SystemdLink {
    /// The minimum time between two `STATUS=` updates: 1 s, in nanoseconds.
    static let statusIntervalNanoseconds: Int64 = 1_000_000_000

    private let notifier: SystemdNotifier
    private let log: (String) -> Void
    private let pingIntervalNanoseconds: Int64?
    private var nextPing: Int64?
    private var lastStatus: String?
    private var lastStatusAt: Int64 = .min
    private var lastError: String?

    /// - Parameters:
    ///   - notifier: where notifications go (it does nothing when `$NOTIFY_SOCKET` is unset).
    ///   - log: where send failures are reported (once per distinct failure).
    init(notifier: SystemdNotifier, log: @escaping (String) -> Void) {
        self.notifier = notifier
        self.log = log
        pingIntervalNanoseconds = notifier.watchdogMicroseconds.map { Int64(clamping: $0) * 1_000 / 2 }
    }

    /// Whether anything listens.
    var isEnabled: Bool { notifier.isEnabled }

    /// `READY=1` with the current status, after start-up or a reload.
    func ready(now: Int64, status: String) {
        send([.ready, .status(status)])
        lastStatus = status
        lastStatusAt = now
    }

    /// `RELOADING=1` and `MONOTONIC_USEC=` in one datagram, as systemd requires.
    func reloading() {
        send(SystemdNotifier.reloading(monotonicMicroseconds: SystemdNotifier.monotonicMicroseconds()))
    }

    /// `STOPPING=1`, the first thing on SIGTERM.
    func stopping() {
        send([.stopping])
    }

    /// Pings the watchdog when due and sends the status when it changed and a second has passed.
    ///
    /// - Parameters:
    ///   - now: `CLOCK_BOOTTIME` in nanoseconds.
    ///   - status: builds the status line; called at most once a second.
    func turn(now: Int64, status: () -> String) {
        guard notifier.isEnabled else { return }
        var fields: [SystemdNotification] = []
        if let interval = pingIntervalNanoseconds, now >= nextPing ?? .min {
            fields.append(.watchdog)
            nextPing = now + interval
        }
        if now - lastStatusAt >= Self.statusIntervalNanoseconds {
            let text = status()
            if text != lastStatus {
                fields.append(.status(text))
                lastStatus = text
            }
            lastStatusAt = now
        }
        send(fields)
    }

    /// Milliseconds until ``turn(now:status:)`` has something to do: the next watchdog ping, or
    /// the next status update while timers run (their remaining time changes); `nil` for never.
    func millisecondsUntilDue(now: Int64, hasLiveTimers: Bool) -> Int32? {
        guard notifier.isEnabled else { return nil }
        var due: Int64?
        if pingIntervalNanoseconds != nil { due = nextPing ?? now }
        if hasLiveTimers { due = min(due ?? .max, lastStatusAt + Self.statusIntervalNanoseconds) }
        guard let due else { return nil }
        return Int32(clamping: max(0, (due - now + 999_999) / 1_000_000))
    }

    /// The status line: `3 running, 1 paused, next ends in 4m12s`, or `no live timers`.
    ///
    /// - Parameter timers: the live timers.
    /// - Returns: one short line.
    static func statusLine(_ timers: [TimerSnapshot]) -> String {
        let running = timers.filter { $0.state == .running }
        return statusLine(
            EngineStatusSummary(
                running: running.count, paused: timers.count - running.count,
                nextEndSeconds: running.map(\.remaining).min()))
    }

    /// The status line of `engine` now: what the daemon sends as `STATUS=`.
    ///
    /// - Parameter engine: the daemon's engine.
    /// - Returns: one short line.
    /// - Complexity: O(1) records (``TimerEngine/statusSummary()``), whatever the number of timers.
    static func statusLine(of engine: TimerEngine) -> String { statusLine(engine.statusSummary()) }

    /// The status line from the engine's counters (``TimerEngine/statusSummary()``): what the
    /// daemon sends once a second, without listing the timers (a listing takes seconds at
    /// a million timers, and nothing fires meanwhile).
    ///
    /// - Parameter summary: the counts and the time to the next end.
    /// - Returns: one short line, as ``statusLine(_:)-([TimerSnapshot])`` would give.
    static func statusLine(_ summary: EngineStatusSummary) -> String {
        var parts: [String] = []
        if summary.running > 0 { parts.append("\(summary.running) running") }
        if summary.paused > 0 { parts.append("\(summary.paused) paused") }
        if parts.isEmpty { return "no live timers" }
        if summary.running > 0, let next = summary.nextEndSeconds {
            parts.append("next ends in \(DurationFormatter.compact(seconds: max(0, next.rounded(.up))))")
        }
        return parts.joined(separator: ", ")
    }

    private func send(_ fields: [SystemdNotification]) {
        do {
            try notifier.notify(fields)
            lastError = nil
        } catch {
            let text = "\(error)"
            if text != lastError { log("warning: sd_notify: \(text)") }
            lastError = text
        }
    }
}
