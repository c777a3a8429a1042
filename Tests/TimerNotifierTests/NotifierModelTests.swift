import Testing
import TimerModel
import TimerProtocol

@testable import TimerNotifier

@Suite("The notifier's decisions: events, ticks, buttons and closings in; exact effects out")
struct NotifierModelTests {
    static let second: Int64 = 1_000_000_000
    /// An arbitrary boot-time instant.
    static let t0: Int64 = 5_000 * second

    static func notify(_ id: UInt32, _ body: String, _ percent: Int32, _ actions: [String]) -> NotifyRequest {
        NotifyRequest(
            appName: "timerd", replacesID: id, appIcon: "appointment-soon", summary: "tea", body: body,
            actions: actions, hints: [.value(percent), .urgency(.normal)], expireTimeout: 0)
    }
    static let runningActions = ["pause", "Pause", "extend", "+1 min", "stop", "Stop"]

    @Test("One notification per timer, replaced in place; progress ticks at most once a second")
    func replacedInPlace() {
        var model = NotifierModel(capabilities: NotificationContentTests.full)
        // A 100 s timer just started: 0:01:40 left, 0%.
        let started = timer(state: .running, duration: 100, remaining: 100, fraction: 0)
        #expect(
            model.apply(event: "started", timer: started, now: Self.t0)
                == [.notify(timerID: "1", Self.notify(0, "0:01:40 left", 0, Self.runningActions))])
        model.didShow(42, forTimer: "1")
        // Half a second later nothing changed on screen (0:01:40 still, rounded up); the next second
        // is due 0.5 s + 1 ms later.
        #expect(model.tick(now: Self.t0 + Self.second / 2) == [])
        #expect(model.waitMilliseconds(now: Self.t0 + Self.second / 2) == 501)
        // 1.5 s after the start: 98.5 s left shows 0:01:39, 1% done, replacing notification 42.
        #expect(
            model.tick(now: Self.t0 + 3 * Self.second / 2)
                == [.notify(timerID: "1", Self.notify(42, "0:01:39 left", 1, Self.runningActions))])
        // 0.6 s later the text changed (0:01:38) but the last Notify was 0.6 s ago: nothing yet.
        #expect(model.tick(now: Self.t0 + 21 * Self.second / 10) == [])
        #expect(model.waitMilliseconds(now: Self.t0 + 21 * Self.second / 10) == 400)
        // A state change is sent at once, whatever the interval.
        let paused = timer(state: .paused, duration: 100, remaining: 97.9, fraction: 0.021)
        #expect(
            model.apply(event: "paused", timer: paused, now: Self.t0 + 21 * Self.second / 10)
                == [
                    .notify(
                        timerID: "1", Self.notify(42, "Paused, 0:01:38 left", 2, ["resume", "Resume", "stop", "Stop"]))
                ])
        // A paused timer does not tick.
        #expect(model.waitMilliseconds(now: Self.t0 + 5 * Self.second) == -1)
        #expect(model.tick(now: Self.t0 + 5 * Self.second) == [])
    }

    @Test("Buttons become requests to timerd; Dismiss closes; other ids and keys are ignored")
    func buttons() {
        var model = NotifierModel(capabilities: NotificationContentTests.full)
        _ = model.apply(event: "started", timer: timer(state: .running, remaining: 600, fraction: 0), now: Self.t0)
        model.didShow(9, forTimer: "1")
        #expect(
            model.actionInvoked(notificationID: 9, key: "pause") == [.request(.timerPause, timerID: "1", seconds: nil)])
        #expect(
            model.actionInvoked(notificationID: 9, key: "resume") == [
                .request(.timerResume, timerID: "1", seconds: nil)
            ])
        #expect(
            model.actionInvoked(notificationID: 9, key: "extend") == [.request(.timerExtend, timerID: "1", seconds: 60)]
        )
        #expect(
            model.actionInvoked(notificationID: 9, key: "stop") == [.request(.timerStop, timerID: "1", seconds: nil)])
        #expect(
            model.actionInvoked(notificationID: 9, key: "restart") == [
                .request(.timerRestart, timerID: "1", seconds: nil)
            ])
        #expect(model.actionInvoked(notificationID: 9, key: "default") == [])
        #expect(model.actionInvoked(notificationID: 8, key: "pause") == [])
        #expect(model.actionInvoked(notificationID: 9, key: "dismiss") == [.close(9)])
    }

    @Test("A closed notification is forgotten and stays closed until the timer's next event")
    func closedStaysClosed() {
        var model = NotifierModel(capabilities: NotificationContentTests.full)
        _ = model.apply(
            event: "started", timer: timer(state: .running, duration: 100, remaining: 100, fraction: 0), now: Self.t0)
        model.didShow(5, forTimer: "1")
        model.closed(notificationID: 5)
        #expect(model.notificationID(ofTimer: "1") == nil)
        #expect(model.tick(now: Self.t0 + 3 * Self.second) == [])
        #expect(model.waitMilliseconds(now: Self.t0 + 3 * Self.second) == -1)
        // The next event shows a new notification (replaces_id 0).
        let extended = timer(state: .running, duration: 160, remaining: 157, fraction: 0.01875)
        #expect(
            model.apply(event: "extended", timer: extended, now: Self.t0 + 3 * Self.second)
                == [.notify(timerID: "1", Self.notify(0, "0:02:37 left", 1, Self.runningActions))])
    }

    @Test("Stopped and removed timers have their notification closed; a finished one closed is forgotten")
    func endings() {
        var model = NotifierModel(capabilities: NotificationContentTests.full)
        _ = model.apply(event: "started", timer: timer(state: .running, remaining: 600, fraction: 0), now: Self.t0)
        model.didShow(11, forTimer: "1")
        #expect(
            model.apply(event: "stopped", timer: timer(state: .stopped, remaining: 590, fraction: 0.01), now: Self.t0)
                == [.close(11)])
        #expect(model.notificationID(ofTimer: "1") == nil)

        _ = model.apply(
            event: "finished", timer: timer(id: "2", state: .finished, remaining: 0, fraction: 1), now: Self.t0)
        model.didShow(12, forTimer: "2")
        model.closed(notificationID: 12)
        // Forgotten: its removal has nothing to close.
        #expect(
            model.apply(
                event: "removed", timer: timer(id: "2", state: .finished, remaining: 0, fraction: 1), now: Self.t0)
                == [])
    }

    @Test("The listing replaces what was kept: a live timer no longer listed is closed")
    func listing() {
        var model = NotifierModel(capabilities: NotificationContentTests.full)
        _ = model.load([timer(id: "1", state: .running, remaining: 600, fraction: 0)], now: Self.t0)
        model.didShow(20, forTimer: "1")
        let effects = model.load(
            [timer(id: "2", name: "tea", state: .paused, remaining: 60, fraction: 0.9)], now: Self.t0)
        #expect(
            effects == [
                .close(20),
                .notify(
                    timerID: "2", Self.notify(0, "Paused, 0:01:00 left", 90, ["resume", "Resume", "stop", "Stop"])),
            ])
    }
}
