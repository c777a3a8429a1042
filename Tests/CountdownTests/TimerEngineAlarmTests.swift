import Foundation
import Testing
import TimerModel

@testable import Countdown

/// The wall clock when every test starts: 2026-11-29T15:17:33Z.
private let startWall = Date(timeIntervalSince1970: 1_795_965_453)

/// The ring rule of the tests: timerd's defaults, a ring every 30 s for up to 600 s (10 min).
private let rule = TimerAlarm.Ring(interval: 30, limit: 600)

/// A fresh engine recording events, on a manual clock 1 s after boot at `startWall`.
private func makeEngine() -> (engine: TimerEngine, clock: ManualClock) {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: startWall)
    var engine = TimerEngine(clock: clock)
    engine.eventRecording = .buffered
    return (engine, clock)
}

/// An action that only notifies (no command), as `--notify` asks.
private let notifyOnly = TimerAction(command: nil, notify: true, workingDirectory: "/", environment: [])

/// The kinds of the events the engine reported since the last call.
private func kinds(_ engine: inout TimerEngine) -> [TimerEvent.Kind] { engine.takeEvents().map(\.kind) }

/// Expected values are worked out by hand from the rule (30 s, 600 s), the durations and the
/// clock's advances; the boot-time clock starts at 1 s, so an instant t seconds after the start is
/// boot 1 + t s. A ringing timer's ring n is due 30 × (n − 1) s after its first ring.
@Suite("TimerEngine alarms: warning, ringing, acknowledge, snooze, ring limit, restore")
struct TimerEngineAlarmTests {
    @Test("--warn 60s on 300s: the engine wakes at 240 s, reports one warning dated then, and the end at 300 s")
    func warningOnce() throws {
        var (engine, clock) = makeEngine()
        let started = try engine.start(
            durations: [300], name: "tea", action: notifyOnly, alarm: TimerAlarm(ring: nil, warning: 60))
        #expect(started.alarm == TimerAlarm(ring: nil, warning: 60))
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 241_000_000_000))
        _ = engine.takeEvents()
        _ = engine.takeChanges()
        clock.advance(bySeconds: 239.999)
        #expect(engine.fireDueTimers().isEmpty && engine.takeEvents().isEmpty)
        clock.advance(bySeconds: 0.001)
        #expect(engine.fireDueTimers().isEmpty)
        let events = engine.takeEvents()
        #expect(events.map(\.kind) == [.warning])
        #expect(events.first?.date == startWall + 240)
        #expect(events.first?.timer.state == .running && events.first?.timer.remaining == 60)
        #expect(events.first?.timer.alarm?.isWarned == true)
        // The warning's record write, and its notification (notify only, trigger warning).
        #expect(engine.takeChanges().updated.first?.alarm?.isWarned == true)
        #expect(engine.takeDueActions().map { [$0.kind.rawValue, $0.trigger.rawValue] } == [["notify", "warning"]])
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 301_000_000_000))
        // Pausing and resuming does not warn again; the end finishes as usual (no ring).
        _ = try engine.pause(.name("tea"))
        _ = try engine.resume(.name("tea"))
        _ = engine.takeEvents()
        clock.advance(bySeconds: 60)
        #expect(engine.fireDueTimers().map(\.timer.state) == [.finished])
        #expect(kinds(&engine) == [.finished])
    }

    @Test("a warning not shorter than the timer is refused with the text the CLI prints")
    func warningTooLong() throws {
        var (engine, _) = makeEngine()
        #expect(
            throws: CountdownError.invalidAlarm(
                "the warning (5m) must be shorter than the timer (5m): it comes that long before the end")
        ) { try engine.start(durations: [120, 180], alarm: TimerAlarm(ring: nil, warning: 300)) }
        #expect(engine.liveCount == 0)
    }

    @Test("--ring: the end rings (action once), then every 30 s by notification, and gives up unanswered at 600 s")
    func ringsUntilTheLimit() throws {
        var (engine, clock) = makeEngine()
        let action = TimerAction(command: "true", notify: true, workingDirectory: "/", environment: [])
        _ = try engine.start(durations: [60], name: "tea", action: action, alarm: TimerAlarm(ring: rule, warning: nil))
        _ = engine.takeEvents()
        clock.advance(bySeconds: 60)
        #expect(engine.fireDueTimers().isEmpty)
        let first = engine.takeEvents()
        #expect(first.map(\.kind) == [.ringing(ring: 1)])
        #expect(first.first?.date == startWall + 60)
        #expect(first.first?.timer.state == .ringing && first.first?.timer.remaining == 0)
        #expect(first.first?.timer.endedAt == nil && first.first?.timer.progress.fractionCompleted == 1)
        // The first ring is the timer's end: its whole action (exec, notify) with trigger finished.
        #expect(
            engine.takeDueActions().map { [$0.kind.rawValue, $0.trigger.rawValue] } == [
                ["exec", "finished"], ["notify", "finished"],
            ])
        #expect(engine.liveCount == 1)
        // Ring 2 at 90 s: only the notification again.
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 91_000_000_000))
        clock.advance(bySeconds: 29.999)
        #expect(engine.fireDueTimers().isEmpty && engine.takeEvents().isEmpty)
        clock.advance(bySeconds: 0.001)
        _ = engine.fireDueTimers()
        #expect(kinds(&engine) == [.ringing(ring: 2)])
        #expect(engine.takeDueActions().map { [$0.kind.rawValue, $0.trigger.rawValue] } == [["notify", "ringing"]])
        // Rings 3 … 20 at 120 s … 630 s (60 + 30 × 19); none at 660 s: the limit ends it then.
        var rings: [TimerEvent.Kind] = []
        for _ in 3...20 {
            clock.advance(bySeconds: 30)
            #expect(engine.fireDueTimers().isEmpty)
            rings += kinds(&engine)
        }
        #expect(rings == (3...20).map { .ringing(ring: $0) })
        #expect(engine.takeDueActions().count == 18)
        clock.advance(bySeconds: 30)
        let endings = engine.fireDueTimers()
        #expect(endings.count == 1)
        let ended = try #require(endings.first?.timer)
        #expect(ended.state == .finished && ended.endedAt == startWall + 660)
        #expect(ended.alarm?.outcome == .unanswered && ended.alarm?.ringCount == 20)
        #expect(kinds(&engine) == [.unanswered])
        // Giving up runs nothing more, and frees the name.
        #expect(engine.takeDueActions().isEmpty && engine.liveCount == 0 && engine.nextDeadline == nil)
        #expect(try engine.start(durations: [5], name: "tea").state == .running)
    }

    @Test("a suspend of 100 s while ringing sends one ring, numbered as if the others had rung (ring 4)")
    func oneRingAfterASuspend() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [10], alarm: TimerAlarm(ring: rule, warning: nil))
        clock.advance(bySeconds: 10)
        _ = engine.fireDueTimers()
        _ = engine.takeEvents()
        clock.advance(bySeconds: 100)
        _ = engine.fireDueTimers()
        // 100 s after the first ring: rings 2 (30 s), 3 (60 s) and 4 (90 s) were due; one event.
        #expect(kinds(&engine) == [.ringing(ring: 4)])
        #expect(engine.nextDeadline == BootInstant(nanoseconds: (1 + 10 + 120) * 1_000_000_000))
    }

    @Test("ack ends a ringing timer as finished, acknowledged, running no action; others are refused")
    func acknowledge() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(
            durations: [60], name: "tea", action: notifyOnly, alarm: TimerAlarm(ring: rule, warning: nil))
        #expect(
            throws: CountdownError.invalidTransition(timer: "timer 1 (\"tea\")", state: .running, operation: .ack)
        ) { try engine.acknowledge(.name("tea")) }
        #expect(
            CountdownError.invalidTransition(timer: "timer 1 (\"tea\")", state: .running, operation: .ack).description
                == "cannot ack timer 1 (\"tea\"): it is running; only a ringing timer (started with --ring) can be "
                + "acknowledged")
        clock.advance(bySeconds: 60)
        _ = engine.fireDueTimers()
        _ = engine.takeEvents()
        _ = engine.takeDueActions()
        clock.advance(bySeconds: 45)
        _ = engine.fireDueTimers()
        #expect(kinds(&engine) == [.ringing(ring: 2)])
        _ = engine.takeDueActions()
        clock.advance(bySeconds: 1)
        let ending = try engine.acknowledge(.name("tea"))
        #expect(ending.timer.state == .finished && ending.timer.endedAt == startWall + 106)
        #expect(ending.timer.alarm?.outcome == .acknowledged && ending.timer.alarm?.ringCount == 2)
        #expect(kinds(&engine) == [.finished])
        #expect(engine.takeDueActions().isEmpty && engine.nextDeadline == nil)
        #expect(
            throws: CountdownError.invalidTransition(timer: "timer 1 (\"tea\")", state: .finished, operation: .snooze)
        ) { try engine.snooze(.name("tea"), bySeconds: 60) }
    }

    @Test("snooze runs a ringing timer again for the snooze, added to its last step; it rings again from ring 1")
    func snooze() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60, 30], name: "tea", alarm: TimerAlarm(ring: rule, warning: 20))
        clock.advance(bySeconds: 90)
        _ = engine.fireDueTimers()
        _ = engine.takeEvents()
        clock.advance(bySeconds: 15)
        let snoozed = try engine.snooze(.name("tea"), bySeconds: 540)
        // 60 + 30 + 540 s; 90 s counted; ends 540 s from now (105 s after the start).
        #expect(snoozed.state == .running && snoozed.duration == 630 && snoozed.remaining == 540)
        #expect(snoozed.children.map(\.duration) == [60, 570] && snoozed.currentChild == 1)
        #expect(snoozed.endsAt == startWall + 645)
        #expect(snoozed.alarm?.snoozeCount == 1 && snoozed.alarm?.ringCount == 0 && snoozed.alarm?.isWarned == true)
        #expect(kinds(&engine) == [.snoozed(by: 540)])
        // The warning (20 s) was sent before the first end and is not sent again.
        clock.advance(bySeconds: 540)
        _ = engine.fireDueTimers()
        #expect(kinds(&engine) == [.ringing(ring: 1)])
        // A restart runs the durations as started: the snoozes are taken off the last step.
        let restarted = try engine.restart(.name("tea"))
        #expect(restarted.children.map(\.duration) == [60, 30] && restarted.state == .running)
        #expect(restarted.alarm == TimerAlarm(ring: rule, warning: 20))
    }

    @Test("stop ends a ringing timer as stopped; pause and extend are refused while it rings")
    func stopWhileRinging() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", alarm: TimerAlarm(ring: rule, warning: nil))
        clock.advance(bySeconds: 60)
        _ = engine.fireDueTimers()
        #expect(
            throws: CountdownError.invalidTransition(timer: "timer 1 (\"tea\")", state: .ringing, operation: .pause)
        ) { try engine.pause(.name("tea")) }
        #expect(throws: CountdownError.self) { try engine.extend(.name("tea"), bySeconds: 60) }
        #expect(try engine.stop(.name("tea")).timer.state == .stopped)
        #expect(engine.nextDeadline == nil && engine.liveCount == 0)
    }

    @Test("restored on the same boot after ring 3, it rings 4 at 90 s after its first ring, never 3 again")
    func restoreSameBoot() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", alarm: TimerAlarm(ring: rule, warning: nil))
        _ = engine.takeEvents()
        clock.advance(bySeconds: 60)
        _ = engine.fireDueTimers()
        for _ in 0..<2 {
            clock.advance(bySeconds: 30)
            _ = engine.fireDueTimers()
        }
        #expect(kinds(&engine) == [.ringing(ring: 1), .ringing(ring: 2), .ringing(ring: 3)])
        clock.advance(bySeconds: 5)
        var restored = TimerEngine(clock: clock)
        restored.eventRecording = .buffered
        #expect(restored.restore(engine.snapshot, sameBoot: true).isEmpty)
        #expect(restored.takeEvents().isEmpty)
        #expect(try restored.status(.name("tea")).state == .ringing)
        // First ring at boot 61 s: ring 4 due at 151 s.
        #expect(restored.nextDeadline == BootInstant(nanoseconds: 151_000_000_000))
        _ = restored.fireDueTimers()
        #expect(restored.takeEvents().isEmpty)
        clock.advance(bySeconds: 25)
        _ = restored.fireDueTimers()
        #expect(restored.takeEvents().map(\.kind) == [.ringing(ring: 4)])
    }

    @Test("restored after a reboot 95 s into its ringing: ring 4 is due at once, ring 3 is not sent again")
    func restoreAfterReboot() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", alarm: TimerAlarm(ring: rule, warning: nil))
        _ = engine.takeEvents()
        clock.advance(bySeconds: 60)
        _ = engine.fireDueTimers()
        clock.advance(bySeconds: 60)
        _ = engine.fireDueTimers()
        #expect(kinds(&engine) == [.ringing(ring: 1), .ringing(ring: 3)])
        // A new boot: boot clock 2 s, wall 95 s after the first ring (15:19:08Z).
        let after = ManualClock(boot: BootInstant(nanoseconds: 2_000_000_000), wall: startWall + 60 + 95)
        var restored = TimerEngine(clock: after)
        restored.eventRecording = .buffered
        #expect(restored.restore(engine.snapshot, sameBoot: false).isEmpty)
        _ = restored.fireDueTimers()
        #expect(restored.takeEvents().map(\.kind) == [.ringing(ring: 4)])
        // Ring 5 at 120 s after the first ring, that is 25 s after the restore.
        #expect(restored.nextDeadline == BootInstant(nanoseconds: 27_000_000_000))
    }

    @Test("an alarm whose end passed while no daemon ran rings at the restore, missed, its action triggered missed")
    func overdueAtRestore() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(
            durations: [60], name: "tea", action: notifyOnly, alarm: TimerAlarm(ring: rule, warning: 10))
        let saved = engine.snapshot
        clock.advance(bySeconds: 100)
        var restored = TimerEngine(clock: clock)
        restored.eventRecording = .buffered
        #expect(restored.restore(saved, sameBoot: true).isEmpty)
        let events = restored.takeEvents()
        #expect(events.map(\.kind) == [.ringing(ring: 1)])
        #expect(events.first?.date == startWall + 60 && events.first?.timer.missed == true)
        #expect(events.first?.timer.alarm?.isWarned == true)
        #expect(restored.takeDueActions().map { [$0.kind.rawValue, $0.trigger.rawValue] } == [["notify", "missed"]])
        #expect(restored.nextDeadline == BootInstant(nanoseconds: 131_000_000_000))
    }
}
