import CalendarEvents
import Foundation
import Testing
import TimerModel

@testable import Countdown

// Recurring timers: a manual clock drives the engine as timerd's loop does (sleep to
// `nextDeadline`, then `fireDueTimers`), and each test asserts the exact elapse instants, the
// number of `elapsed` events and the number of loop wake-ups. Expected instants are worked out by
// hand from the expression (comments), or, around daylight-saving transitions, taken from
// `CalendarExpression.elapses`, which CalendarEventsTests checks against `systemd-analyze calendar`.

/// 2026-11-29T09:00:00Z (a Sunday).
private let nine = Date(timeIntervalSince1970: 1_795_942_800)
private let second: Int64 = 1_000_000_000

private func iso(_ date: Date?) -> String? { date.map { ISO8601.string(from: $0) } }

private func date(_ text: String) -> Date {
    ISO8601.date(from: text) ?? .distantPast
}

/// What a stretch of the loop did.
private struct Run {
    var wakeups = 0
    var elapses: [(date: String, missed: Int)] = []
    var other: [TimerEvent.Name] = []
}

/// Sleeps the loop from deadline to deadline until `seconds` have passed, as timerd does.
private func drive(_ engine: inout TimerEngine, _ clock: ManualClock, forSeconds seconds: Double) -> Run {
    let end = clock.now().advanced(byNanoseconds: Int64((seconds * 1e9).rounded()))
    var run = Run()
    while let next = engine.nextDeadline, next <= end, run.wakeups < 100_000 {
        let now = clock.now()
        if next > now { clock.advance(byNanoseconds: next.nanoseconds(since: now)) }
        run.wakeups += 1
        _ = engine.fireDueTimers()
        collect(&engine, into: &run)
    }
    let now = clock.now()
    if end > now { clock.advance(byNanoseconds: end.nanoseconds(since: now)) }
    return run
}

private func collect(_ engine: inout TimerEngine, into run: inout Run) {
    for event in engine.takeEvents() {
        if case .elapsed(let missed) = event.kind {
            run.elapses.append((ISO8601.string(from: event.date), missed))
        } else {
            run.other.append(event.kind.name)
        }
    }
}

private func makeEngine(wall: Date, spread: Double = 0, zone: String = "UTC") -> (TimerEngine, ManualClock) {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: wall)
    var engine = TimerEngine(clock: clock)
    engine.eventRecording = .buffered
    engine.catchUpSpread = spread
    engine.systemTimeZone = TimeZone(identifier: zone) ?? .gmt
    return (engine, clock)
}

private func calendar(_ expression: String, zone: String? = "UTC", skipMissed: Bool = false)
    -> TimerEngine.RecurrenceRequest
{
    TimerEngine.RecurrenceRequest(
        kind: .calendar(expression: expression, zone: zone.flatMap { TimeZone(identifier: $0) }), skipMissed: skipMissed
    )
}

@Suite("TimerEngine: recurring timers (--on, --every)")
struct TimerEngineRecurrenceTests {
    @Test("*:0/15 in UTC rings at :15, :30, :45, :00 in an hour: four events, four wake-ups, four actions")
    func calendarOnTime() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(5))
        let action = TimerAction(command: "true", notify: false, workingDirectory: "/", environment: [])
        let started = try engine.start(recurring: calendar("*:0/15"), name: "quarter", action: action)
        #expect(iso(started.endsAt) == "2026-11-29T09:15:00.000Z")
        #expect(
            started.recurrence?.recurrence.rule
                == .calendar(expression: "*:0/15", zone: "UTC", followsSystemZone: false))
        _ = engine.takeEvents()
        var runs = 0
        var run = Run()
        // Drive in steps so that each action run is reported ended before the next elapse.
        for _ in 0..<4 {
            let part = drive(&engine, clock, forSeconds: 900)
            run.wakeups += part.wakeups
            run.elapses += part.elapses
            for due in engine.takeDueActions() {
                #expect(due.trigger == .elapsed)
                runs += 1
                engine.recordActionOutcome(timer: due.timerID, kind: due.kind, outcome: .exited(0))
            }
            _ = engine.takeEvents()
        }
        // 09:00:05 + 3,600 s = 10:00:05: the elapses of :0/15 in between.
        #expect(
            run.elapses.map(\.date) == [
                "2026-11-29T09:15:00.000Z", "2026-11-29T09:30:00.000Z", "2026-11-29T09:45:00.000Z",
                "2026-11-29T10:00:00.000Z",
            ])
        #expect(run.elapses.allSatisfy { $0.missed == 0 })
        #expect(run.wakeups == 4)
        #expect(runs == 4)
        let status = try engine.status(.name("quarter"))
        #expect(status.state == .running)
        #expect(status.recurrence?.recurrence.elapseCount == 4)
        #expect(iso(status.recurrence?.recurrence.lastElapse) == "2026-11-29T10:00:00.000Z")
        #expect(iso(status.endsAt) == "2026-11-29T10:15:00.000Z")
        #expect(status.recurrence?.lastResult == .exited(0))
    }

    /// Found by trying the merged daemon: a series whose expression never elapses again ended
    /// without running the action of its last elapse (the end of a series runs none, and the last
    /// elapse took the ending path before scheduling its own).
    @Test("The last elapse of a series that ends runs its action once; the end itself runs none")
    func lastElapseRunsAction() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(5))
        let action = TimerAction(command: "true", notify: false, workingDirectory: "/", environment: [])
        // Two instants, 09:10 and 09:20 on 2026-11-29 (the test's day), then never again.
        _ = try engine.start(recurring: calendar("2026-11-29 09:10,20:00"), name: "twice", action: action)
        _ = engine.takeEvents()
        var triggers: [TimerAction.Trigger] = []
        for _ in 0..<2 {
            _ = drive(&engine, clock, forSeconds: 600)
            for due in engine.takeDueActions() {
                triggers.append(due.trigger)
                engine.recordActionOutcome(timer: due.timerID, kind: due.kind, outcome: .exited(0))
            }
        }
        #expect(triggers == [.elapsed, .elapsed])
        let status = try engine.status(.name("twice"))
        #expect(status.state == .finished)
        #expect(status.recurrence?.recurrence.elapseCount == 2)
        #expect(iso(status.recurrence?.recurrence.lastElapse) == "2026-11-29T09:20:00.000Z")
        _ = drive(&engine, clock, forSeconds: 600)
        #expect(engine.takeDueActions().isEmpty)
    }

    @Test("--every 90s rings 40 times in an hour, each 90 s after the one before, on the boot-time clock")
    func everyOnTime() throws {
        var (engine, clock) = makeEngine(wall: nine)
        _ = try engine.start(recurring: .init(kind: .every(seconds: 90, from: nil)), name: "walk")
        _ = engine.takeEvents()
        let run = drive(&engine, clock, forSeconds: 3_600)
        // 3,600 / 90 = 40 elapses: 09:01:30, 09:03:00, … 10:00:00.
        #expect(run.elapses.count == 40)
        #expect(run.elapses.first?.date == "2026-11-29T09:01:30.000Z")
        #expect(run.elapses.last?.date == "2026-11-29T10:00:00.000Z")
        #expect(run.wakeups == 40)
        #expect(iso(try engine.status(.name("walk")).endsAt) == "2026-11-29T10:01:30.000Z")
    }

    @Test("--every 1h --from 09:20 rings first at 09:20, then every hour")
    func everyFrom() throws {
        var (engine, clock) = makeEngine(wall: nine)
        _ = try engine.start(
            recurring: .init(kind: .every(seconds: 3_600, from: date("2026-11-29T09:20:00Z"))), name: "from")
        _ = engine.takeEvents()
        let run = drive(&engine, clock, forSeconds: 3 * 3_600)
        #expect(
            run.elapses.map(\.date) == [
                "2026-11-29T09:20:00.000Z", "2026-11-29T10:20:00.000Z", "2026-11-29T11:20:00.000Z",
            ])
    }

    @Test("A suspend over three hourly elapses rings one catch-up at wake-up with missed 3, then goes on")
    func suspendCatchUp() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(1_800))  // 09:30
        _ = try engine.start(recurring: calendar("hourly"), name: "h")
        _ = engine.takeEvents()
        clock.suspend(forNanoseconds: (3 * 3_600 + 600) * second)  // until 12:40
        var run = Run()
        run.wakeups += 1
        _ = engine.fireDueTimers()
        collect(&engine, into: &run)
        // 10:00, 11:00 and 12:00 passed during the suspend: one event, dated 12:00, missed 3.
        #expect(run.elapses.count == 1)
        #expect(run.elapses.first?.date == "2026-11-29T12:00:00.000Z")
        #expect(run.elapses.first?.missed == 3)
        let status = try engine.status(.name("h"))
        #expect(iso(status.endsAt) == "2026-11-29T13:00:00.000Z")
        #expect(status.recurrence?.recurrence.elapseCount == 3)
        let later = drive(&engine, clock, forSeconds: 3_600)  // to 13:40
        #expect(later.elapses.map(\.date) == ["2026-11-29T13:00:00.000Z"])
        #expect(later.elapses.first?.missed == 0)
    }

    @Test("--skip-missed: the same suspend rings nothing; the series goes on at 13:00")
    func suspendSkipMissed() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(1_800))
        _ = try engine.start(recurring: calendar("hourly", skipMissed: true), name: "h")
        _ = engine.takeEvents()
        clock.suspend(forNanoseconds: (3 * 3_600 + 600) * second)
        _ = engine.fireDueTimers()
        var run = Run()
        collect(&engine, into: &run)
        #expect(run.elapses.isEmpty)
        let status = try engine.status(.name("h"))
        #expect(iso(status.endsAt) == "2026-11-29T13:00:00.000Z")
        #expect(status.recurrence?.recurrence.elapseCount == 0)
        #expect(status.recurrence?.recurrence.skipMissed == true)
    }

    @Test("100 catch-ups due at one wake-up are spread over the 5 s default, each rung once")
    func catchUpsSpread() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(1_800), spread: 5)
        for index in 0..<100 { _ = try engine.start(recurring: calendar("hourly"), name: "t\(index)") }
        _ = engine.takeEvents()
        clock.suspend(forNanoseconds: 3_600 * second)  // 10:30: 10:00 passed
        let wake = clock.wallNow()
        var rungAt: [UInt64: Date] = [:]
        var events = 0
        var wakeups = 0
        while let next = engine.nextDeadline, next <= clock.now().advanced(byNanoseconds: 6 * second) {
            let now = clock.now()
            if next > now { clock.advance(byNanoseconds: next.nanoseconds(since: now)) }
            wakeups += 1
            _ = engine.fireDueTimers()
            for event in engine.takeEvents() {
                guard case .elapsed(let missed) = event.kind else { continue }
                #expect(missed == 1)
                #expect(rungAt[event.timer.id] == nil)  // at most once per timer
                rungAt[event.timer.id] = clock.wallNow()
                events += 1
            }
        }
        #expect(events == 100)
        // Each rings at its fixed part of the spread (the same function the engine uses, from the id
        // and the missed elapse 10:00), so they do not all ring in the wake-up instant.
        for (id, at) in rungAt {
            let expected = TimerEngine.fixedDelay(id: id, instant: date("2026-11-29T10:00:00Z"), spread: 5)
            #expect(abs(at.timeIntervalSince(wake) - expected) < 0.000_01)
            #expect(expected >= 0 && expected < 5)
        }
        let distinct = Set(rungAt.values.map { Int($0.timeIntervalSince(wake) * 10) })
        #expect(distinct.count > 30)  // 100 draws over 50 tenths of a second: far from one instant
        #expect(wakeups <= 101)
    }

    @Test("--every 10m across a 35-minute suspend: one catch-up with missed 4, then 10 minutes from it")
    func everySuspend() throws {
        var (engine, clock) = makeEngine(wall: nine)
        _ = try engine.start(recurring: .init(kind: .every(seconds: 600, from: nil)), name: "e")
        _ = engine.takeEvents()
        clock.advance(bySeconds: 300)  // 09:05
        clock.suspend(forNanoseconds: 2_100 * second)  // to 09:40: 09:10, 09:20, 09:30, 09:40 passed
        _ = engine.fireDueTimers()
        var run = Run()
        collect(&engine, into: &run)
        #expect(run.elapses.count == 1)
        #expect(run.elapses.first?.missed == 4)
        #expect(run.elapses.first?.date == "2026-11-29T09:40:00.000Z")
        #expect(iso(try engine.status(.name("e")).endsAt) == "2026-11-29T09:50:00.000Z")
    }

    @Test("Power-off over three elapses and a new boot: one catch-up at start-up (missed 3), none repeated")
    func powerOff() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(1_800))
        _ = try engine.start(recurring: calendar("hourly"), name: "h")
        let run1 = drive(&engine, clock, forSeconds: 1_900)  // rings 10:00, now 10:01:40
        #expect(run1.elapses.map(\.date) == ["2026-11-29T10:00:00.000Z"])
        let saved = engine.snapshot
        // Powered off; back at 13:10 on a new boot (boot-time clock from 2 s).
        let rebooted = ManualClock(boot: BootInstant(nanoseconds: 2 * second), wall: date("2026-11-29T13:10:00Z"))
        var restored = TimerEngine(clock: rebooted)
        restored.eventRecording = .buffered
        restored.catchUpSpread = 0
        #expect(restored.restore(saved, sameBoot: false).isEmpty)  // the series goes on
        var run = Run()
        collect(&restored, into: &run)
        // 11:00, 12:00 and 13:00 passed while off: one event dated 13:00, missed 3; 10:00 not again.
        #expect(run.elapses.count == 1)
        #expect(run.elapses.first?.date == "2026-11-29T13:00:00.000Z")
        #expect(run.elapses.first?.missed == 3)
        let status = try restored.status(.name("h"))
        #expect(status.recurrence?.recurrence.elapseCount == 4)
        #expect(iso(status.endsAt) == "2026-11-29T14:00:00.000Z")
    }

    @Test("--every across a power-off: one catch-up at start-up standing for the periods passed")
    func everyPowerOff() throws {
        var (engine, clock) = makeEngine(wall: nine)
        _ = try engine.start(recurring: .init(kind: .every(seconds: 600, from: nil)), name: "e")
        _ = drive(&engine, clock, forSeconds: 660)  // rings 09:10; now 09:11
        let saved = engine.snapshot
        // Off from 09:11 to 09:45 (new boot): 09:20, 09:30 and 09:40 passed.
        let rebooted = ManualClock(boot: BootInstant(nanoseconds: 2 * second), wall: date("2026-11-29T09:45:00Z"))
        var restored = TimerEngine(clock: rebooted)
        restored.eventRecording = .buffered
        restored.catchUpSpread = 0
        #expect(restored.restore(saved, sameBoot: false).isEmpty)
        var run = Run()
        collect(&restored, into: &run)
        #expect(run.elapses.count == 1)
        #expect(run.elapses.first?.missed == 3)
        #expect(run.elapses.first?.date == "2026-11-29T09:40:00.000Z")
        // The next period runs from the catch-up: 09:55.
        #expect(iso(try restored.status(.name("e")).endsAt) == "2026-11-29T09:55:00.000Z")
        #expect(try restored.status(.name("e")).recurrence?.recurrence.elapseCount == 4)
    }

    @Test("A catch-up waiting for its spread survives a restart: rung once, standing for every elapse passed")
    func pendingCatchUpAcrossRestart() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(1_800), spread: 300)  // 09:30, 5 min spread
        _ = try engine.start(recurring: calendar("*:0/1"), name: "m")  // every minute
        _ = engine.takeEvents()
        clock.suspend(forNanoseconds: 150 * second)  // to 09:32:30: 09:31 and 09:32 passed
        _ = engine.fireDueTimers()
        #expect(engine.takeEvents().isEmpty)  // the catch-up waits for its part of the 300 s
        let wait = TimerEngine.fixedDelay(id: 1, instant: date("2026-11-29T09:32:00Z"), spread: 300)
        #expect(try engine.status(.name("m")).recurrence?.recurrence.pendingMissed == 2)
        let saved = engine.snapshot
        // timerd restarts 1 s later on the same boot; the catch-up rings at its instant, once.
        clock.advance(bySeconds: 1)
        var restored = TimerEngine(clock: clock)
        restored.eventRecording = .buffered
        restored.catchUpSpread = 300
        _ = restored.restore(saved, sameBoot: true)
        let run = drive(&restored, clock, forSeconds: wait + 1)
        // It rings at 09:32:30 + wait and stands for 09:31, 09:32 and each minute up to then.
        let passedWhileWaiting = 2 + Int((30 + wait) / 60)
        #expect(run.elapses.count == 1)
        #expect(run.elapses.first?.missed == passedWhileWaiting)
        #expect(try restored.status(.name("m")).recurrence?.recurrence.elapseCount == UInt64(passedWhileWaiting))
    }

    @Test("A restart on the same boot with no elapse in between neither repeats nor loses one")
    func restartNoDuplicate() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(1_800))
        _ = try engine.start(recurring: calendar("hourly"), name: "h")
        _ = drive(&engine, clock, forSeconds: 1_801)  // rings 10:00, now 10:00:01
        let saved = engine.snapshot
        clock.advance(bySeconds: 2)
        var restored = TimerEngine(clock: clock)
        restored.eventRecording = .buffered
        #expect(restored.restore(saved, sameBoot: true).isEmpty)
        var run = Run()
        collect(&restored, into: &run)
        #expect(run.elapses.isEmpty)
        let next = drive(&restored, clock, forSeconds: 3_600)
        #expect(next.elapses.map(\.date) == ["2026-11-29T11:00:00.000Z"])
        #expect(next.wakeups == 1)
        #expect(try restored.status(.name("h")).recurrence?.recurrence.elapseCount == 2)
    }

    @Test("A step back of 3 h moves the next elapse to the first after the new time (never stuck beyond a period)")
    func stepBackward() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(5_400))  // 10:30
        _ = try engine.start(recurring: calendar("hourly"), name: "h")
        #expect(iso(try engine.status(.name("h")).endsAt) == "2026-11-29T11:00:00.000Z")
        clock.stepWallClock(bySeconds: -3 * 3_600)  // 07:30
        _ = engine.wallClockChanged()
        #expect(iso(try engine.status(.name("h")).endsAt) == "2026-11-29T08:00:00.000Z")
        let run = drive(&engine, clock, forSeconds: 1_800 + 1)
        #expect(run.elapses.map(\.date) == ["2026-11-29T08:00:00.000Z"])
        #expect(run.wakeups == 1)
    }

    @Test("A step back leaves --every alone: it runs on the boot-time clock")
    func stepBackEvery() throws {
        var (engine, clock) = makeEngine(wall: nine)
        _ = try engine.start(recurring: .init(kind: .every(seconds: 600, from: nil)), name: "e")
        clock.advance(bySeconds: 60)
        clock.stepWallClock(bySeconds: -3_600)
        _ = engine.wallClockChanged()
        #expect(try engine.status(.name("e")).remaining == 540)
    }

    @Test("A step forward of 2 h 10 min rings what became due once: missed 2, next at 12:00")
    func stepForward() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(1_800))  // 09:30
        _ = try engine.start(recurring: calendar("hourly"), name: "h")
        _ = engine.takeEvents()
        clock.stepWallClock(bySeconds: 7_800)  // 11:40
        _ = engine.wallClockChanged()
        let run = drive(&engine, clock, forSeconds: 1)
        #expect(run.elapses.count == 1)
        #expect(run.elapses.first?.date == "2026-11-29T11:00:00.000Z")
        #expect(run.elapses.first?.missed == 2)
        #expect(iso(try engine.status(.name("h")).endsAt) == "2026-11-29T12:00:00.000Z")
    }

    @Test("A system zone change re-times timers that follow it; an explicit zone is not touched")
    func zoneChange() throws {
        // 09:00Z = 10:00 in Paris; 07:00 next day in Paris is 06:00Z.
        var (engine, _) = makeEngine(wall: nine, zone: "Europe/Paris")
        _ = try engine.start(recurring: calendar("*-*-* 07:00", zone: nil), name: "system")
        _ = try engine.start(recurring: calendar("*-*-* 07:00", zone: "Europe/Paris"), name: "explicit")
        #expect(iso(try engine.status(.name("system")).endsAt) == "2026-11-30T06:00:00.000Z")
        #expect(
            try engine.status(.name("system")).recurrence?.recurrence.rule
                == .calendar(expression: "*-*-* 07:00", zone: "Europe/Paris", followsSystemZone: true))
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        #expect(engine.systemTimeZoneChanged(to: zone) == 1)
        // 07:00 in New York (EST, -05:00) on 2026-11-29 is 12:00Z, after now (09:00Z).
        #expect(iso(try engine.status(.name("system")).endsAt) == "2026-11-29T12:00:00.000Z")
        #expect(iso(try engine.status(.name("explicit")).endsAt) == "2026-11-30T06:00:00.000Z")
        #expect(engine.systemTimeZoneChanged(to: zone) == 0)  // the same zone again: nothing
    }

    @Test(
        "Each DST boundary: the engine rings exactly the library's elapses, once each, one wake-up each",
        arguments: [
            // zone, expression, start (a day before the transition)
            ("Europe/Paris", "*-*-* 02:30", "2026-03-28T00:00:00Z"),  // gap: 02:30 -> 03:30 CEST
            ("Europe/Paris", "*-*-* 02:30", "2026-10-24T00:00:00Z"),  // overlap: once, at 02:30 CEST
            ("Europe/Paris", "*:0/15", "2026-10-24T22:00:00Z"),
            ("Europe/Paris", "*:0/15", "2026-03-28T22:00:00Z"),
            ("America/New_York", "*-*-* 02:30", "2026-03-07T12:00:00Z"),
            ("America/New_York", "*:0/20", "2026-11-01T03:00:00Z"),
            ("America/New_York", "*-*-* 01:30", "2026-10-31T12:00:00Z"),
            ("Australia/Lord_Howe", "*:0/10", "2026-04-04T12:00:00Z"),  // 30-minute fall-back
            ("Australia/Lord_Howe", "*:0/10", "2026-10-03T12:00:00Z"),  // 30-minute gap
            ("Australia/Lord_Howe", "*-*-* 02:15", "2026-10-02T12:00:00Z"),
        ])
    func dstBoundaries(zone: String, expression: String, start: String) throws {
        var (engine, clock) = makeEngine(wall: date(start), zone: zone)
        _ = try engine.start(recurring: calendar(expression, zone: zone), name: "dst")
        _ = engine.takeEvents()
        let run = drive(&engine, clock, forSeconds: 2 * 86_400)
        let parsed = try CalendarExpression.parse(expression)
        let expected = parsed.elapses(
            after: date(start), defaultZone: try #require(TimeZone(identifier: zone)), count: 400
        )
        .filter { $0 <= clock.wallNow() }.map { ISO8601.string(from: $0) }
        #expect(expected.count >= 2)  // the stretch crosses the transition with several elapses
        #expect(run.elapses.map(\.date) == expected)
        #expect(Set(run.elapses.map(\.date)).count == run.elapses.count)  // never twice
        #expect(run.elapses.allSatisfy { $0.missed == 0 })
        #expect(run.wakeups == expected.count)  // no busy loop: one wake-up per elapse
    }

    @Test("Paris, 2026-03-29: 02:30 (skipped) rings at 03:30 CEST = 01:30Z; 2026-10-25: 02:30 rings once, 00:30Z")
    func parisExactInstants() throws {
        var (engine, clock) = makeEngine(wall: date("2026-03-28T00:00:00Z"), zone: "Europe/Paris")
        _ = try engine.start(recurring: calendar("*-*-* 02:30", zone: "Europe/Paris"), name: "gap")
        let gap = drive(&engine, clock, forSeconds: 3 * 86_400)
        // 03-28 02:30 CET = 01:30Z; 03-29 02:30 does not exist, moved by the 1 h gap to 03:30 CEST = 01:30Z;
        // 03-30 02:30 CEST = 00:30Z (docs/calendar.md, DST gap policy).
        #expect(
            gap.elapses.map(\.date) == [
                "2026-03-28T01:30:00.000Z", "2026-03-29T01:30:00.000Z", "2026-03-30T00:30:00.000Z",
            ])
        var (fall, fallClock) = makeEngine(wall: date("2026-10-24T12:00:00Z"), zone: "Europe/Paris")
        _ = try fall.start(recurring: calendar("*-*-* 02:30", zone: "Europe/Paris"), name: "overlap")
        let overlap = drive(&fall, fallClock, forSeconds: 2 * 86_400)
        // 10-25 02:30 happens twice (CEST 00:30Z, CET 01:30Z): rung once, at the first; 10-26 02:30 CET = 01:30Z.
        #expect(overlap.elapses.map(\.date) == ["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"])
    }

    @Test("*-02-29 12:00 rings on leap days only: 2028-02-29, then 2032-02-29")
    func leapDay() throws {
        var (engine, clock) = makeEngine(wall: date("2027-01-01T00:00:00Z"))
        _ = try engine.start(recurring: calendar("*-02-29 12:00"), name: "leap")
        #expect(iso(try engine.status(.name("leap")).endsAt) == "2028-02-29T12:00:00.000Z")
        let run = drive(&engine, clock, forSeconds: 500 * 86_400)
        #expect(run.elapses.map(\.date) == ["2028-02-29T12:00:00.000Z"])
        #expect(run.wakeups == 1)
        #expect(iso(try engine.status(.name("leap")).endsAt) == "2032-02-29T12:00:00.000Z")
    }

    @Test("*-*~01 18:00 rings on each month's last day: Jan 31, Feb 28, Mar 31")
    func monthEnds() throws {
        var (engine, clock) = makeEngine(wall: date("2026-01-30T00:00:00Z"))
        _ = try engine.start(recurring: calendar("*-*~01 18:00"), name: "eom")
        let run = drive(&engine, clock, forSeconds: 62 * 86_400)  // to 2026-04-01T00:00Z
        #expect(
            run.elapses.map(\.date) == [
                "2026-01-31T18:00:00.000Z", "2026-02-28T18:00:00.000Z", "2026-03-31T18:00:00.000Z",
            ])
        #expect(run.wakeups == 3)
    }

    @Test("Pause and resume: elapses while paused do not ring; the series goes on at the next one after resume")
    func pauseResume() throws {
        var (engine, clock) = makeEngine(wall: nine.addingTimeInterval(1_800))
        _ = try engine.start(recurring: calendar("hourly"), name: "h")
        _ = try engine.pause(.name("h"))
        #expect(try engine.status(.name("h")).recurrence?.nextElapse == nil)
        let paused = drive(&engine, clock, forSeconds: 2 * 3_600 + 600)  // to 11:40
        #expect(paused.wakeups == 0)
        let resumed = try engine.resume(.name("h"))
        #expect(iso(resumed.endsAt) == "2026-11-29T12:00:00.000Z")
        _ = engine.takeEvents()
        let run = drive(&engine, clock, forSeconds: 1_200)
        #expect(run.elapses.map(\.date) == ["2026-11-29T12:00:00.000Z"])
        #expect(run.elapses.first?.missed == 0)
    }

    @Test("Stop ends the series: one stopped event, no more wake-ups")
    func stop() throws {
        var (engine, clock) = makeEngine(wall: nine)
        _ = try engine.start(recurring: calendar("*:0/10"), name: "s")
        _ = drive(&engine, clock, forSeconds: 1_300)  // rings 09:10, 09:20
        let ending = try engine.stop(.name("s"))
        #expect(ending.timer.state == .stopped)
        #expect(ending.timer.recurrence?.nextElapse == nil)
        var run = Run()
        collect(&engine, into: &run)
        #expect(run.other.contains(.stopped))
        #expect(drive(&engine, clock, forSeconds: 3_600).wakeups == 0)
        #expect(engine.takeDueActions().isEmpty)
    }

    @Test("An action still running at the next elapse is not started again (at most one run per kind in flight)")
    func actionOverlap() throws {
        var (engine, clock) = makeEngine(wall: nine)
        let action = TimerAction(command: "sleep 1000", notify: false, workingDirectory: "/", environment: [])
        _ = try engine.start(recurring: calendar("*:0/10"), name: "a", action: action)
        _ = drive(&engine, clock, forSeconds: 600)  // 09:10
        let first = engine.takeDueActions()
        #expect(first.count == 1)
        _ = drive(&engine, clock, forSeconds: 600)  // 09:20: the first run still runs
        #expect(engine.takeDueActions().isEmpty)
        engine.recordActionOutcome(timer: try #require(first.first).timerID, kind: .exec, outcome: .exited(0))
        _ = drive(&engine, clock, forSeconds: 600)  // 09:30
        #expect(engine.takeDueActions().count == 1)
        #expect(try engine.status(.name("a")).recurrence?.recurrence.elapseCount == 3)
    }

    @Test("Bad rules are refused with the parser's token and offset")
    func errors() throws {
        var (engine, _) = makeEngine(wall: nine)
        let parse = try #require(
            {
                do { _ = try CalendarExpression.parse("*-*-* 25:00") } catch { return error }
                return nil
            }())
        #expect(throws: CountdownError.invalidRecurrence("invalid calendar expression '*-*-* 25:00': \(parse)")) {
            try engine.start(recurring: calendar("*-*-* 25:00"))
        }
        #expect("\(parse)".contains("offset 6"))
        #expect(throws: CountdownError.self) { try engine.start(recurring: calendar("2020-01-01")) }
        #expect(throws: CountdownError.self) {
            try engine.start(recurring: .init(kind: .every(seconds: 0.1, from: nil)))
        }
        _ = try engine.start(recurring: calendar("daily"), name: "d")
        #expect(throws: CountdownError.notForRecurring(timer: "timer 1 (\"d\")", operation: "extend")) {
            try engine.extend(.name("d"), bySeconds: 60)
        }
        #expect(engine.liveCount == 1)
    }
}
