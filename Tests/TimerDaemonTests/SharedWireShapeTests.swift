import Countdown
import Foundation
import Testing
import TimerModel
import TimerPostgres
import TimerProtocol
import TimerService

@testable import TimerDaemon

/// Shared mode answers in exactly the one-host daemon's wire shape: a timer read from the database
/// (``SharedTimerRow``) becomes the same ``TimerInfo`` as the engine's snapshot of a timer with the
/// same steps at the same point, except for the instants (each side's own clock).
@Suite("Shared mode's replies have the engine's wire shape")
struct SharedWireShapeTests {
    /// The engine's TimerInfo of a timer of `durations`, `elapsed` seconds after its start, then
    /// paused or stopped as asked; and the shared row in the same state.
    private func pair(
        _ durations: [Double], elapsed: Double, then operation: TimerOperation? = nil
    ) throws -> (engine: TimerInfo, shared: TimerInfo) {
        let clock = ManualClock(wall: Date(timeIntervalSince1970: 1_800_000_000))
        var engine = TimerEngine(clock: clock)
        let started = try engine.start(durations: durations, name: "tea", owner: 1_000)
        clock.advance(bySeconds: elapsed)
        _ = engine.fireDueTimers(limit: 100)  // a timer past its end finishes, as timerd's loop does
        var snapshot = try engine.status(.id(started.id), requester: nil)
        if operation == .pause { snapshot = try engine.pause(.id(started.id), requester: nil) }
        if operation == .stop { snapshot = try engine.stop(.id(started.id), requester: nil).timer }
        let segments = durations.map { Int64(($0 * 1e9).rounded()) }
        // The row as the database holds it: the step that runs and what is left of it.
        var step = 0
        var before: Int64 = 0
        let elapsedNanoseconds = Int64((elapsed * 1e9).rounded())
        while step < segments.count - 1, before + segments[step] <= elapsedNanoseconds {
            before += segments[step]
            step += 1
        }
        let finished = elapsedNanoseconds >= segments.reduce(0, +)
        let state =
            finished ? "finished" : operation == .pause ? "paused" : operation == .stop ? "stopped" : "running"
        let row = SharedTimerRow(
            id: Int64(started.id), owner: 1_000, name: "tea", state: state, step: step,
            segmentsNanoseconds: segments,
            stepRemainingNanoseconds: finished ? 0 : segments[step] - (elapsedNanoseconds - before),
            createdAt: "x", endedAt: nil, endsAt: nil, fence: 1)
        var shared = SharedHost.info(row)
        var expected = TimerInfo(snapshot)
        // The instants come from each side's clock (the database's in shared mode).
        expected.createdAt = nil
        expected.startedAt = nil
        expected.endedAt = nil
        expected.endsAt = nil
        shared.createdAt = nil
        shared.startedAt = nil
        shared.endedAt = nil
        shared.endsAt = nil
        return (expected, shared)
    }

    @Test(
        "Single and group timers, running, paused, stopped and finished: the same fields as the engine's",
        arguments: [
            ([25.0], 10.0, nil), ([25.0], 10.0, TimerOperation.pause), ([25.0], 10.0, TimerOperation.stop),
            ([25.0], 30.0, nil), ([30.0, 60.0], 40.0, nil), ([30.0, 60.0], 40.0, TimerOperation.pause),
            ([0.3, 0.3, 0.3], 0.45, TimerOperation.stop), ([30.0, 60.0], 90.0, nil),
        ] as [([Double], Double, TimerOperation?)])
    func sameShape(durations: [Double], elapsed: Double, operation: TimerOperation?) throws {
        let (engine, shared) = try pair(durations, elapsed: elapsed, then: operation)
        #expect(shared == engine)
    }
}
