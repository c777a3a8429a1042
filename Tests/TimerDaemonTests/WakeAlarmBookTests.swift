import Countdown
import Foundation
import Testing
import TimerModel

@testable import TimerDaemon

/// The daemon's wake bookkeeping (``WakeAlarmBook``): the earliest alarm of each clock over the live
/// wake-marked timers, followed across start, pause, resume, extend, stop, finish and a restore, on
/// a ``ManualClock`` (exact nanoseconds, no sleeping).
@Suite("Wake alarm bookkeeping")
struct WakeAlarmBookTests {
    /// Boot-time instant 1 s (the manual clock's default start), in nanoseconds.
    private static let boot: Int64 = 1_000_000_000
    /// 2026-12-01T09:00:00Z.
    private static let wall = Date(timeIntervalSince1970: 1_764_579_600)

    private static func engine() -> (TimerEngine, ManualClock) {
        let clock = ManualClock(wall: wall)
        return (TimerEngine(clock: clock), clock)
    }

    @Test("the earliest wake countdown's end, across start, pause, resume, stop and finish")
    func countdowns() throws {
        var (engine, clock) = Self.engine()
        var book = WakeAlarmBook(engine: engine)
        #expect(book.deadlines(in: engine) == .init())
        // An unmarked timer arms nothing.
        _ = try engine.start(durations: [60])
        #expect(book.deadlines(in: engine) == .init())
        // 600 s from boot 1 s: 601 s; 300 s: 301 s, the earlier.
        let long = try engine.start(durations: [600], wake: true)
        #expect(book.deadlines(in: engine) == .init(bootTime: Self.boot + 600_000_000_000))
        let short = try engine.start(durations: [300], name: "short", wake: true)
        #expect(short.wake && long.wake)
        #expect(book.deadlines(in: engine) == .init(bootTime: Self.boot + 300_000_000_000))
        // 100 s later the short one is paused with 200 s left: the long one's 601 s is the earliest.
        clock.advance(bySeconds: 100)
        _ = try engine.pause(.name("short"))
        #expect(book.deadlines(in: engine) == .init(bootTime: Self.boot + 600_000_000_000))
        // Resumed 50 s later (at boot-time 151 s) with 200 s left: it ends at 351 s.
        clock.advance(bySeconds: 50)
        _ = try engine.resume(.name("short"))
        #expect(book.deadlines(in: engine) == .init(bootTime: 351_000_000_000))
        // Extended by 60 s: 411 s.
        _ = try engine.extend(.name("short"), bySeconds: 60)
        #expect(book.deadlines(in: engine) == .init(bootTime: 411_000_000_000))
        // Stopped: the long one again; once it finishes, nothing to arm and nothing remembered.
        _ = try engine.stop(.name("short"))
        #expect(book.deadlines(in: engine) == .init(bootTime: Self.boot + 600_000_000_000))
        clock.advance(bySeconds: 450)  // boot-time 601 s: the unmarked 60 s timer (id 1) is due too
        #expect(engine.fireDueTimers().map(\.timer.id) == [1, long.id])
        #expect(book.deadlines(in: engine) == .init())
        #expect(book.candidates.isEmpty)
    }

    @Test("a wake --at timer arms the wall clock at its instant; a restored engine's book finds its timers")
    func wallClockAndRestore() throws {
        var (engine, clock) = Self.engine()
        var book = WakeAlarmBook(engine: engine)
        // 2026-12-01T10:00:00Z, an hour after the clock's wall time.
        let at = Date(timeIntervalSince1970: 1_764_583_200)
        _ = try engine.start(at: at, wake: true)
        _ = try engine.start(durations: [7_200], wake: true)
        let expected = WakeAlarmBook.Deadlines(
            bootTime: Self.boot + 7_200_000_000_000, wallClock: 1_764_583_200_000_000_000)
        #expect(book.deadlines(in: engine) == expected)
        // The mark survives the engine's snapshot and a restore into a new engine (a daemon restart
        // in the same boot): a new book starts from the live wake timers.
        var restored = TimerEngine(clock: clock)
        _ = restored.restore(engine.snapshot, sameBoot: true)
        book = WakeAlarmBook(engine: restored)
        #expect(book.candidates.count == 2)
        #expect(book.deadlines(in: restored) == expected)
    }
}
