import Testing
import TimerClient
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

/// A ringing alarm's notification (`timerctl start … --ring`) and its two buttons.
@Suite("A ringing timer's notification: critical, Snooze and Dismiss")
struct RingingNotificationTests {
    /// `tea` ringing its `ring`-th ring: remaining 0, 100 %, the alarm member timerd sends.
    private static func ringing(ring: Int, missed: Bool? = nil) -> TimerInfo {
        var info = timer(state: .ringing, remaining: 0, fraction: 1, missed: missed)
        info.alarm = AlarmInfo(
            outcome: nil, ringCount: ring, ringInterval: 30, ringLimit: 600, snoozeCount: 0, warned: nil, warning: nil)
        return info
    }

    @Test("ring 1 says Ringing, ring 2 names its number; critical; Snooze (timer.snooze) and Dismiss (timer.ack)")
    func content() throws {
        let first = try #require(NotificationContent.make(timer: Self.ringing(ring: 1), remaining: 0, fraction: 1))
        #expect(
            first.request(replacing: 3, capabilities: NotificationContentTests.full)
                == NotifyRequest(
                    appName: "timerd", replacesID: 3, appIcon: "appointment-soon", summary: "tea", body: "Ringing",
                    actions: ["snooze", "Snooze", "ack", "Dismiss"], hints: [.value(100), .urgency(.critical)],
                    expireTimeout: 0))
        let second = NotificationContent.make(timer: Self.ringing(ring: 2), remaining: 0, fraction: 1)
        #expect(second?.body == "Ringing, ring 2")
        let late = NotificationContent.make(timer: Self.ringing(ring: 1, missed: true), remaining: 0, fraction: 1)
        #expect(late?.body == "Ringing late: timerd was not running at the deadline")
        // A server without actions gets no buttons, the body in the summary (the specification's fallback).
        #expect(
            first.request(replacing: 0, capabilities: ServerCapabilities([]))
                == NotifyRequest(
                    appName: "timerd", replacesID: 0, appIcon: "appointment-soon", summary: "tea — Ringing", body: "",
                    actions: [], hints: [.value(100), .urgency(.critical)], expireTimeout: 0))
    }

    @Test("each ring replaces the notification in place; Snooze and Dismiss become timer.snooze and timer.ack")
    func buttons() throws {
        var model = NotifierModel(capabilities: NotificationContentTests.full)
        let t0: Int64 = 5_000_000_000_000
        let first = model.apply(event: "ringing", timer: Self.ringing(ring: 1), now: t0)
        #expect(first.count == 1)
        model.didShow(11, forTimer: "1")
        // Ring 2, 30 s later: the same notification (replaces_id 11) says so.
        guard
            case .notify(_, let request)? = model.apply(
                event: "ringing", timer: Self.ringing(ring: 2), now: t0 + 30_000_000_000
            ).first
        else {
            Issue.record("ring 2 showed nothing")
            return
        }
        #expect(request.replacesID == 11 && request.body == "Ringing, ring 2")
        #expect(
            model.actionInvoked(notificationID: 11, key: "snooze") == [
                .request(.timerSnooze, timerID: "1", seconds: nil)
            ])
        #expect(
            model.actionInvoked(notificationID: 11, key: "ack") == [.request(.timerAck, timerID: "1", seconds: nil)])
        // Through TimerRequest, the one request writer: the daemon's snooze (no "for") and an ack.
        let snooze = try #require(Notifier.request(.timerSnooze, timer: "1", seconds: nil))
        let ack = try #require(Notifier.request(.timerAck, timer: "1", seconds: nil))
        #expect(
            String(decoding: try snooze.line(id: 4), as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":4,"method":"timer.snooze","params":{"timer":"1"}}"# + "\n")
        #expect(
            String(decoding: try ack.line(id: 5), as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":5,"method":"timer.ack","params":{"timer":"1"}}"# + "\n")
    }
}
