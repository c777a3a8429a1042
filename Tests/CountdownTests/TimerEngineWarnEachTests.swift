import Foundation
import Testing
import TimerModel

@testable import Countdown

/// The wall clock when every test starts: 2026-11-29T15:17:33Z.
private let startWall = Date(timeIntervalSince1970: 1_795_965_453)

/// A fresh engine recording events, on a manual clock 1 s after boot at `startWall`.
private func makeEngine() -> (engine: TimerEngine, clock: ManualClock) {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: startWall)
    var engine = TimerEngine(clock: clock)
    engine.eventRecording = .buffered
    return (engine, clock)
}

/// An action that only notifies (no command), as `--notify` asks.
private let notifyOnly = TimerAction(command: nil, notify: true, workingDirectory: "/", environment: [])

/// `--warn 1m --warn-each` on groups. Expected instants are worked out by hand: a group of 25 min
/// and 5 min started at 0 s has step ends at 1500 s and 1800 s, so its warnings are due at 1440 s
/// and 1740 s (boot 1441 s and 1741 s: the boot clock starts at 1 s).
@Suite("TimerEngine --warn-each: a warning before every step's end")
struct TimerEngineWarnEachTests {
    @Test("25m 5m --warn 1m --warn-each: warnings at 1440 s and 1740 s, each step's, then the end at 1800 s")
    func eachStep() throws {
        var (engine, clock) = makeEngine()
        let alarm = TimerAlarm(ring: nil, warning: 60, warnsEachStep: true)
        _ = try engine.start(durations: [1500, 300], name: "tea", action: notifyOnly, alarm: alarm)
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 1_441_000_000_000))
        _ = engine.takeEvents()
        clock.advance(bySeconds: 1439.999)
        #expect(engine.fireDueTimers().isEmpty && engine.takeEvents().isEmpty)
        clock.advance(bySeconds: 0.001)
        #expect(engine.fireDueTimers().isEmpty)
        var events = engine.takeEvents()
        #expect(events.map(\.kind) == [.warning])
        #expect(events.first?.date == startWall + 1440)
        #expect(events.first?.timer.remaining == 360 && events.first?.timer.currentChild == 0)
        #expect(events.first?.timer.alarm?.warnedSteps == 1 && events.first?.timer.alarm?.isWarned == false)
        let due = engine.takeDueActions()
        #expect(due.map { [$0.kind.rawValue, $0.trigger.rawValue] } == [["notify", "warning"]])
        #expect(due.first?.stepCount == 2 && due.first?.alarm?.warnedSteps == 1)
        // Next: the step's end at 1500 s (boot 1501 s), then the second warning at 1740 s.
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 1_501_000_000_000))
        clock.advance(bySeconds: 60)
        #expect(engine.fireDueTimers().isEmpty)
        #expect(engine.takeEvents().map(\.kind) == [.steppedToChild(1)])
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 1_741_000_000_000))
        clock.advance(bySeconds: 240)
        #expect(engine.fireDueTimers().isEmpty)
        events = engine.takeEvents()
        #expect(events.map(\.kind) == [.warning] && events.first?.date == startWall + 1740)
        #expect(events.first?.timer.remaining == 60 && events.first?.timer.currentChild == 1)
        #expect(events.first?.timer.alarm?.warnedSteps == 2 && events.first?.timer.alarm?.isWarned == true)
        #expect(engine.takeDueActions().count == 1)
        clock.advance(bySeconds: 60)
        #expect(engine.fireDueTimers().map(\.timer.state) == [.finished])
        #expect(engine.takeEvents().map(\.kind) == [.finished])
    }

    @Test("a step skipped before its warning is not warned; the next step's warning still comes")
    func skippedStep() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(
            durations: [600, 600, 600], name: "tea", alarm: TimerAlarm(ring: nil, warning: 60, warnsEachStep: true))
        clock.advance(bySeconds: 100)
        _ = try engine.skip(.name("tea"))
        _ = engine.takeEvents()
        // The skip ends step 1 at 100 s: step 2 ends at 700 s, so its warning is due at 640 s.
        #expect(engine.fireDueTimers().isEmpty)
        #expect(engine.takeEvents().isEmpty)
        clock.advance(bySeconds: 539.999)
        #expect(engine.fireDueTimers().isEmpty && engine.takeEvents().isEmpty)
        clock.advance(bySeconds: 0.001)
        #expect(engine.fireDueTimers().isEmpty)
        let events = engine.takeEvents()
        #expect(events.map(\.kind) == [.warning] && events.first?.date == startWall + 640)
        #expect(events.first?.timer.currentChild == 1 && events.first?.timer.alarm?.warnedSteps == 2)
    }

    @Test("refusals: a warning not shorter than every step, and --warn-each without a warning")
    func refusals() {
        var (engine, _) = makeEngine()
        #expect(
            throws: CountdownError.invalidAlarm(
                "with --warn-each the warning (5m) must be shorter than every step (the shortest is 5m): it comes "
                    + "that long before each step's end")
        ) { try engine.start(durations: [1500, 300], alarm: TimerAlarm(ring: nil, warning: 300, warnsEachStep: true)) }
        #expect(
            throws: CountdownError.invalidAlarm(
                "--warn-each needs a warning (--warn DURATION): it says how long before each step's end")
        ) { try engine.start(durations: [1500, 300], alarm: TimerAlarm(ring: nil, warning: nil, warnsEachStep: true)) }
    }

    @Test("a restart warns every step again")
    func restartWarnsAgain() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(
            durations: [120, 120], name: "tea", alarm: TimerAlarm(ring: nil, warning: 30, warnsEachStep: true))
        _ = engine.takeEvents()
        clock.advance(bySeconds: 90)
        _ = engine.fireDueTimers()
        #expect(engine.takeEvents().map(\.kind) == [.warning])
        let restarted = try engine.restart(.name("tea"))
        #expect(restarted.alarm?.warnedSteps == 0 && restarted.alarm?.isWarned == false)
        _ = engine.takeEvents()
        clock.advance(bySeconds: 90)
        _ = engine.fireDueTimers()
        #expect(engine.takeEvents().map(\.kind) == [.warning])
    }
}
