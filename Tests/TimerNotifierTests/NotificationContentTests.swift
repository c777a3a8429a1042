import Testing
import TimerModel
import TimerProtocol

@testable import TimerNotifier

/// A timer as timerd reports it (docs/protocol.md, "The timer object").
func timer(
    id: String = "1", name: String? = "tea", state: TimerState, duration: Double = 600, remaining: Double,
    fraction: Double, missed: Bool? = nil, currentChild: Int? = nil, children: [TimerInfo]? = nil
) -> TimerInfo {
    TimerInfo(
        id: id, name: name, state: state, duration: duration, remaining: remaining, elapsed: duration - remaining,
        progress: ProgressSnapshot(
            totalUnitCount: Int64(duration * 1_000), completedUnitCount: Int64(fraction * duration * 1_000),
            fractionCompleted: fraction, isIndeterminate: false, isFinished: state == .finished,
            isCancelled: state == .stopped, isPaused: state == .paused),
        missed: missed, currentChild: currentChild, children: children)
}

@Suite("What a timer's notification says: exact Notify arguments")
struct NotificationContentTests {
    /// dunst 1.9's and GNOME Shell's capabilities include both `body` and `actions`.
    static let full = ServerCapabilities(["body", "actions", "persistence", "body-markup"])

    @Test("A running timer: name, time left, Pause / +1 min / Stop, its percentage, urgency normal")
    func running() throws {
        // 600 s timer with 150 s elapsed: 450 s left (countdown 0:07:30), 25% done.
        let content = try #require(
            NotificationContent.make(
                timer: timer(state: .running, remaining: 450, fraction: 0.25), remaining: 450, fraction: 0.25))
        #expect(
            content.request(replacing: 7, capabilities: Self.full)
                == NotifyRequest(
                    appName: "timerd", replacesID: 7, appIcon: "appointment-soon", summary: "tea",
                    body: "0:07:30 left", actions: ["pause", "Pause", "extend", "+1 min", "stop", "Stop"],
                    hints: [.value(25), .urgency(.normal)], expireTimeout: 0))
    }

    @Test("A paused unnamed timer: 'timer ID', Resume / Stop; seconds shown rounded up, percent rounded down")
    func paused() throws {
        // 299.2 s left shows as 0:05:00 (DurationFormatter.countdown rounds up); 0.5013 → 50%.
        let content = try #require(
            NotificationContent.make(
                timer: timer(id: "4", name: nil, state: .paused, remaining: 299.2, fraction: 0.5013), remaining: 299.2,
                fraction: 0.5013))
        #expect(
            content.request(replacing: 0, capabilities: Self.full)
                == NotifyRequest(
                    appName: "timerd", replacesID: 0, appIcon: "appointment-soon", summary: "timer 4",
                    body: "Paused, 0:05:00 left", actions: ["resume", "Resume", "stop", "Stop"],
                    hints: [.value(50), .urgency(.normal)], expireTimeout: 0))
    }

    @Test("A finished timer: critical, 100%, Dismiss / Restart; a missed finish says so")
    func finished() throws {
        let content = try #require(
            NotificationContent.make(
                timer: timer(state: .finished, remaining: 0, fraction: 1), remaining: 0, fraction: 1))
        #expect(
            content.request(replacing: 3, capabilities: Self.full)
                == NotifyRequest(
                    appName: "timerd", replacesID: 3, appIcon: "appointment-soon", summary: "tea", body: "Finished",
                    actions: ["dismiss", "Dismiss", "restart", "Restart"], hints: [.value(100), .urgency(.critical)],
                    expireTimeout: 0))
        let missed = NotificationContent.make(
            timer: timer(state: .finished, remaining: 0, fraction: 1, missed: true), remaining: 0, fraction: 1)
        #expect(missed?.body == "Finished late: timerd was not running at the deadline")
    }

    @Test("A group's step is named; the value is the group's aggregate fraction")
    func group() throws {
        // The protocol's example group (docs/protocol.md, Events): 60 s + 30 s, after the first step
        // 30 s left of 90, fractionCompleted 0.6666… → 66%.
        let steps = [
            timer(id: "3.1", name: nil, state: .finished, duration: 60, remaining: 0, fraction: 1),
            timer(id: "3.2", name: nil, state: .running, duration: 30, remaining: 30, fraction: 0),
        ]
        let group = timer(
            id: "3", name: "steps", state: .running, duration: 90, remaining: 30, fraction: 0.6666666666666666,
            currentChild: 1, children: steps)
        let content = try #require(NotificationContent.make(timer: group, remaining: 30, fraction: 0.6666666666666666))
        #expect(content.body == "0:00:30 left, step 2 of 2")
        #expect(content.percent == 66)
    }

    @Test("Stopped and pending timers have no notification")
    func none() {
        #expect(
            NotificationContent.make(
                timer: timer(state: .stopped, remaining: 10, fraction: 0.9), remaining: 10, fraction: 0.9) == nil)
        #expect(
            NotificationContent.make(
                timer: timer(state: .pending, remaining: 10, fraction: 0), remaining: 10, fraction: 0) == nil)
    }

    @Test("Without the body capability the text goes in the summary; without actions no buttons are sent")
    func degraded() throws {
        // The specification: "body" — some servers show the summary only; "actions" — without it,
        // servers show no buttons, so none are sent.
        let content = try #require(
            NotificationContent.make(
                timer: timer(state: .running, remaining: 450, fraction: 0.25), remaining: 450, fraction: 0.25))
        #expect(
            content.request(replacing: 0, capabilities: ServerCapabilities(["persistence"]))
                == NotifyRequest(
                    appName: "timerd", replacesID: 0, appIcon: "appointment-soon", summary: "tea — 0:07:30 left",
                    body: "", actions: [], hints: [.value(25), .urgency(.normal)], expireTimeout: 0))
    }
}
