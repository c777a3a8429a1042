import Countdown
import Foundation
import Testing
import TimerModel

// One-shot time handling (docs/time.md): wall-clock steps before a reboot, boards
// without a real-time clock, overdue timers in slices, and one rule for missed/endedAt/duration.
// Instants are fixed in UTC (the wall clock of the engine is an instant, not a zone).

/// 2026-11-29T09:00:00Z.
private let nine = Date(timeIntervalSince1970: 1_795_942_800)
private let second: Int64 = 1_000_000_000

private func iso(_ date: Date?) -> String? { date.map { ISO8601.string(from: $0) } }

@Suite("TimerEngine: wall-clock steps, reboots and boards without a real-time clock")
struct TimerEngineWallClockTests {
    @Test("After a step of -20 s and a reboot, a 2 h countdown ends on time")
    func stepBackThenReboot() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [7_200], name: "roast")
        clock.advance(bySeconds: 600)
        clock.stepWallClock(bySeconds: -20)  // NTP: the wall clock was 20 s fast
        #expect(engine.wallClockChanged() == 0)  // no deadline moves: the boot-time clock did not step
        #expect(engine.hasChanges)  // but the wall-clock anchor did, and is saved
        let saved = engine.snapshot
        // Reboot: 60 s of downtime; the new boot's wall clock is right (09:10:40Z on the stepped clock).
        let rebooted = ManualClock(boot: BootInstant(nanoseconds: 3 * second), wall: clock.wallNow() + 60)
        var restored = TimerEngine(clock: rebooted)
        #expect(restored.restore(saved, sameBoot: false).isEmpty)
        // 660 s of the 7,200 have passed in real time: 6,540 s left, ending 2 h after the real start
        // (09:00:00 on the fast clock = 08:59:40 on the right one) = 10:59:40Z.
        let status = try restored.status(.name("roast"))
        #expect(status.remaining == 6_540)
        #expect(iso(status.endsAt) == "2026-11-29T10:59:40.000Z")
        rebooted.advance(bySeconds: 6_540)
        let ended = restored.fireDueTimers()
        #expect(ended.map(\.timer.name) == ["roast"])
        #expect(iso(ended.first?.timer.endedAt) == "2026-11-29T10:59:40.000Z")
        #expect(ended.first?.timer.missed == false)
    }

    @Test("Guard: without the re-anchoring the same reboot ends the countdown 20 s late")
    func stepBackUnseen() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [7_200], name: "roast")
        clock.advance(bySeconds: 600)
        clock.stepWallClock(bySeconds: -20)  // not told to the engine (timerd was not watching)
        let rebooted = ManualClock(boot: BootInstant(nanoseconds: 3 * second), wall: clock.wallNow() + 60)
        var restored = TimerEngine(clock: rebooted)
        _ = restored.restore(engine.snapshot, sameBoot: false)
        #expect(try restored.status(.name("roast")).remaining == 6_560)  // the defect the step watch avoids
    }

    @Test("After a step of +1 h and a reboot, a 30-minute countdown with 1,770 s left keeps 1,770 s")
    func stepForwardThenReboot() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [1_800], name: "tea")
        clock.advance(bySeconds: 30)
        clock.stepWallClock(bySeconds: 3_600)
        _ = engine.wallClockChanged()
        let rebooted = ManualClock(boot: BootInstant(nanoseconds: 2 * second), wall: clock.wallNow())
        var restored = TimerEngine(clock: rebooted)
        #expect(restored.restore(engine.snapshot, sameBoot: false).isEmpty)  // not finished, not missed
        let status = try restored.status(.name("tea"))
        #expect(status.state == .running && status.remaining == 1_770 && status.missed == false)
        #expect(iso(status.endsAt) == "2026-11-29T10:30:00.000Z")  // 09:00:30Z + 1 h step + 1,770 s
    }

    @Test("A step seen while timerd was down is re-anchored at a restart on the same boot")
    func sameBootRestartAfterStep() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [1_800], name: "tea")
        clock.advance(bySeconds: 30)
        let saved = engine.snapshot
        clock.stepWallClock(bySeconds: 3_600)  // while timerd was down
        var restarted = TimerEngine(clock: clock)
        #expect(restarted.restore(saved, sameBoot: true).isEmpty)
        // A later reboot (no downtime) still finds 1,770 s left.
        let rebooted = ManualClock(boot: BootInstant(nanoseconds: 2 * second), wall: clock.wallNow())
        var again = TimerEngine(clock: rebooted)
        _ = again.restore(restarted.snapshot, sameBoot: false)
        #expect(try again.status(.name("tea")).remaining == 1_770)
    }

    @Test("No real-time clock: the first NTP step after boot re-derives restored countdowns")
    func boardWithoutRealTimeClock() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        engine.eventRecording = .buffered
        _ = try engine.start(durations: [600], name: "egg")  // ends 09:10:00Z
        _ = try engine.start(durations: [3_600], name: "bread")  // ends 10:00:00Z
        clock.advance(bySeconds: 100)
        let saved = engine.snapshot  // 09:01:40Z
        // Power off for 1,000 s. The board boots with the last saved time (fake-hwclock), 09:01:40Z,
        // though it is really 09:18:20Z.
        let board = ManualClock(boot: BootInstant(nanoseconds: 2 * second), wall: nine + 100)
        var restored = TimerEngine(clock: board)
        restored.eventRecording = .buffered
        #expect(restored.restore(saved, sameBoot: false).isEmpty)
        #expect(try restored.status(.name("egg")).remaining == 500)  // wrong, as the wall clock is
        board.advance(bySeconds: 30)
        #expect(restored.fireDueTimers().isEmpty)
        _ = restored.takeEvents()
        board.stepWallClock(bySeconds: 1_000)  // NTP: really 09:18:50Z
        #expect(restored.wallClockChanged() == 2)
        // bread ran 1,130 s of 3,600: 2,470 s left, ending 10:00:00Z as set.
        let bread = try restored.status(.name("bread"))
        #expect(bread.remaining == 2_470)
        #expect(iso(bread.endsAt) == "2026-11-29T10:00:00.000Z")
        // egg ended at 09:10:00Z, during the downtime: finished once, missed, and never runs again.
        let ended = restored.fireDueTimers()
        #expect(ended.map(\.timer.name) == ["egg"])
        #expect(ended.first?.timer.missed == true)
        #expect(iso(ended.first?.timer.endedAt) == "2026-11-29T09:10:00.000Z")
        #expect(ended.first?.timer.duration == 600)
        #expect(restored.takeEvents().map(\.kind) == [.missed])
        #expect(restored.liveCount == 1)
        board.advance(bySeconds: 2_470)
        #expect(restored.fireDueTimers().map(\.timer.name) == ["bread"])
        // Later steps only re-anchor: bread is gone, egg finished; nothing is re-derived twice.
        board.stepWallClock(bySeconds: 5)
        #expect(restored.wallClockChanged() == 0)
    }

    /// The same board with `--at` timers: the first step re-derives them as it does countdowns (one rule,
    /// docs/time.md "Boards without a real-time clock"). "tea" (`--at 09:05:00Z`, set at 09:00:00Z for
    /// 300 s) ended during the downtime: finished `missed`, `endedAt` 09:05:00Z, `duration` 300 (before,
    /// it finished at the step as on time, with a duration of the 130 s the board had counted). "soup"
    /// (`--at 09:30:00Z`, 1,800 s) runs on: at 09:18:50Z it has 670 s left, its duration still 1,800.
    @Test("A board without an RTC: --at timers ended during the downtime are missed with their own duration")
    func boardWithoutRealTimeClockAbsolute() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        engine.eventRecording = .buffered
        _ = try engine.start(at: nine + 300, name: "tea")
        _ = try engine.start(at: nine + 1_800, name: "soup")
        _ = try engine.start(durations: [600], name: "egg")  // a countdown in the same run, for comparison
        clock.advance(bySeconds: 100)
        let saved = engine.snapshot  // 09:01:40Z
        // Power off for 1,000 s; the board boots believing it is 09:01:40Z (really 09:18:20Z).
        let board = ManualClock(boot: BootInstant(nanoseconds: 2 * second), wall: nine + 100)
        var restored = TimerEngine(clock: board)
        restored.eventRecording = .buffered
        #expect(restored.restore(saved, sameBoot: false).isEmpty)
        board.advance(bySeconds: 30)
        #expect(restored.fireDueTimers().isEmpty)
        _ = restored.takeEvents()
        board.stepWallClock(bySeconds: 1_000)  // NTP: really 09:18:50Z
        #expect(restored.wallClockChanged() == 3)
        let soup = try restored.status(.name("soup"))
        #expect(soup.remaining == 670)
        #expect(soup.duration == 1_800)
        #expect(iso(soup.endsAt) == "2026-11-29T09:30:00.000Z")
        let ended = restored.fireDueTimers().sorted { $0.timer.name ?? "" < $1.timer.name ?? "" }
        #expect(ended.map(\.timer.name) == ["egg", "tea"])
        #expect(ended.map(\.timer.missed) == [true, true])
        #expect(ended.map { iso($0.timer.endedAt) } == ["2026-11-29T09:10:00.000Z", "2026-11-29T09:05:00.000Z"])
        #expect(ended.map(\.timer.duration) == [600, 300])
        #expect(ended.map(\.timer.elapsed) == [600, 300])
        #expect(restored.takeEvents().map(\.kind) == [.missed, .missed])
        board.advance(bySeconds: 670)
        let late = restored.fireDueTimers()
        #expect(late.map(\.timer.name) == ["soup"] && late.first?.timer.missed == false)
        #expect(late.first?.timer.duration == 1_800)
    }

    @Test("A resume before NTP's step is not taken for the step: the step still re-derives")
    func resumeIsNotAStep() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [600], name: "egg")
        clock.advance(bySeconds: 100)
        let board = ManualClock(boot: BootInstant(nanoseconds: 2 * second), wall: nine + 100)
        var restored = TimerEngine(clock: board)
        _ = restored.restore(engine.snapshot, sameBoot: false)
        board.suspend(forNanoseconds: 60 * second)  // the kernel cancels the step watch on resume too
        #expect(restored.wallClockChanged() == 0)
        #expect(try restored.status(.name("egg")).remaining == 440)
        // Really 1,000 s later than the board believed: egg ran 1,160 s of 600 and is finished, missed.
        board.stepWallClock(bySeconds: 1_000)
        #expect(restored.wallClockChanged() == 1)
        let ended = restored.fireDueTimers()
        #expect(ended.map(\.timer.missed) == [true])
        #expect(iso(ended.first?.timer.endedAt) == "2026-11-29T09:10:00.000Z")
    }

    @Test("A countdown paused and resumed before the first step is not re-derived from its old anchor")
    func resumedBeforeFirstStep() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [600], name: "egg")
        clock.advance(bySeconds: 100)
        let board = ManualClock(boot: BootInstant(nanoseconds: 2 * second), wall: nine + 100)
        var restored = TimerEngine(clock: board)
        _ = restored.restore(engine.snapshot, sameBoot: false)
        _ = try restored.pause(.name("egg"))
        _ = try restored.resume(.name("egg"))
        board.stepWallClock(bySeconds: 1_000)
        #expect(restored.wallClockChanged() == 0)
        #expect(try restored.status(.name("egg")).remaining == 500)
    }
}

@Suite("TimerEngine: overdue timers end by one rule, live or after a restart (docs/time.md)")
struct TimerEngineOverdueRuleTests {
    /// A 25-minute "tea" started at 09:00:00Z (boot 5 s); 600 s later the machine sleeps for an hour.
    private func liveResume(at wallDeadline: Bool) throws -> TimerSnapshot {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try start(&engine, wallDeadline)
        clock.advance(bySeconds: 600)
        _ = engine.fireDueTimers()  // the daemon's last look before the suspend
        clock.suspend(forNanoseconds: 3_600 * second)
        return try #require(engine.fireDueTimers().first).timer
    }

    private func start(_ engine: inout TimerEngine, _ wallDeadline: Bool) throws -> TimerSnapshot {
        wallDeadline
            ? try engine.start(at: nine + 1_500, name: "tea") : try engine.start(durations: [1_500], name: "tea")
    }

    /// The same, but timerd stopped at 600 s and started again 3,600 s later, on the same boot or not.
    private func restart(at wallDeadline: Bool, sameBoot: Bool) throws -> TimerSnapshot {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try start(&engine, wallDeadline)
        clock.advance(bySeconds: 600)
        let saved = engine.snapshot
        let later = ManualClock(
            boot: BootInstant(nanoseconds: sameBoot ? 4_205 * second : 2 * second), wall: nine + 4_200)
        var restored = TimerEngine(clock: later)
        return try #require(restored.restore(saved, sameBoot: sameBoot).first).timer
    }

    @Test("Live resume, restart and reboot give identical missed, endedAt, duration", arguments: [false, true])
    func identical(wallDeadline: Bool) throws {
        let live = try liveResume(at: wallDeadline)
        // The tea's end: 09:25:00Z, 1,500 s after 09:00:00Z; it passed an hour before anyone looked.
        #expect(live.state == .finished && live.missed == true)
        #expect(iso(live.endedAt) == "2026-11-29T09:25:00.000Z")
        #expect(live.duration == 1_500 && live.elapsed == 1_500 && live.remaining == 0)
        #expect(try restart(at: wallDeadline, sameBoot: true) == live)
        #expect(try restart(at: wallDeadline, sameBoot: false) == live)
    }

    @Test("Late without a suspend or a restart is finished late, not missed; endedAt is its end")
    func lateIsNotMissed() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [60], name: "egg")
        clock.advance(bySeconds: 65)  // a busy daemon looks 5 s late
        let ended = try #require(engine.fireDueTimers().first).timer
        #expect(ended.missed == false)
        #expect(iso(ended.endedAt) == "2026-11-29T09:01:00.000Z")
    }

    @Test("A restart half a second after the end: missed all the same (timerd was not running)")
    func quickRestart() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [60], name: "egg")
        let saved = engine.snapshot
        clock.advance(bySeconds: 60.5)
        var restarted = TimerEngine(clock: clock)
        let ended = try #require(restarted.restore(saved, sameBoot: true).first).timer
        #expect(ended.missed == true && ended.state == .finished)
        #expect(iso(ended.endedAt) == "2026-11-29T09:01:00.000Z")
    }

    @Test("A suspend that ended before the deadline makes nothing missed")
    func suspendBeforeTheEnd() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [600], name: "egg")
        clock.suspend(forNanoseconds: 300 * second)
        _ = engine.fireDueTimers()  // the daemon's look at the resume (its timerfds fire then)
        clock.advance(bySeconds: 302)  // 2 s late, awake
        let ended = try #require(engine.fireDueTimers().first).timer
        #expect(ended.missed == false)
        #expect(iso(ended.endedAt) == "2026-11-29T09:10:00.000Z")
    }

    @Test("Suspend readings that grow by less than 100 ms are jitter, not a suspend")
    func suspendJitter() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [60], name: "egg")
        clock.advance(bySeconds: 59.99)
        clock.suspend(forNanoseconds: 50_000_000)  // 50 ms: what two back-to-back clock reads can differ by
        clock.advance(bySeconds: 2)
        #expect(try #require(engine.fireDueTimers().first).timer.missed == false)
    }

    @Test("endedAt never precedes startedAt, even when the boot-time clock shifted")
    func endedAtAfterStart() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        _ = try engine.start(durations: [60], name: "egg")
        // Taken for the same boot, but the boot-time clock reads 10,000 s while only 100 s passed.
        let shifted = ManualClock(boot: BootInstant(nanoseconds: 10_000 * second), wall: nine + 100)
        var restored = TimerEngine(clock: shifted)
        let ended = try #require(restored.restore(engine.snapshot, sameBoot: true).first).timer
        #expect(iso(ended.startedAt) == "2026-11-29T09:00:00.000Z")
        #expect(iso(ended.endedAt) == "2026-11-29T09:00:00.000Z")  // 9,940 s "late": clamped to its start
    }
}

@Suite("TimerEngine: overdue timers are finished in bounded slices")
struct TimerEngineSlicedFiringTests {
    @Test("2,500 timers overdue at a resume: slices of 1,000, 1,000 and 500, earliest first")
    func slices() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * second), wall: nine)
        var engine = TimerEngine(clock: clock)
        for index in 0..<2_500 { _ = try engine.start(durations: [Double(60 + index % 7)]) }
        clock.suspend(forNanoseconds: 3_600 * second)
        var slices: [Int] = []
        var previousEnd = Date.distantPast
        while engine.hasDueTimers {
            let slice = engine.fireDueTimers(limit: 1_000)
            slices.append(slice.count)
            let ends = slice.compactMap(\.timer.endedAt)
            #expect(ends == ends.sorted() && (ends.first ?? .distantFuture) >= previousEnd)
            previousEnd = ends.last ?? previousEnd
        }
        #expect(slices == [1_000, 1_000, 500])
        #expect(engine.liveCount == 0 && engine.nextDeadline == nil)
    }
}
