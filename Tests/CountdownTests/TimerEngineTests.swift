import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol
import TimerService

@testable import Countdown

// MARK: - Fixtures

/// The wall clock when every test starts.
private let startWall = FixedInstant.engineStart  // 2026-11-29T15:17:33Z

/// The boot-time clock when every test starts: 1 s after boot.
private let startBoot = BootInstant(nanoseconds: 1_000_000_000)

private let nanosecondsPerSecond: Int64 = 1_000_000_000

/// A fresh engine on a fresh manual clock at `startBoot` / `startWall`.
private func makeEngine(historyLimit: Int = 1_000) -> (engine: TimerEngine, clock: ManualClock) {
    let clock = ManualClock(boot: startBoot, wall: startWall)
    return (TimerEngine(clock: clock, historyLimit: historyLimit), clock)
}

/// A determinate progress snapshot (the timer engine never produces an indeterminate one).
private func progress(
    _ completed: Int64, of total: Int64, fraction: Double, isFinished: Bool = false, isCancelled: Bool = false,
    isPaused: Bool = false
) -> ProgressSnapshot {
    ProgressSnapshot(
        totalUnitCount: total, completedUnitCount: completed, fractionCompleted: fraction, isIndeterminate: false,
        isFinished: isFinished, isCancelled: isCancelled, isPaused: isPaused)
}

/// Checks both the exact error value and the exact text a person reads.
private func expectFailure(
    _ expected: CountdownError, _ message: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    #expect(expected.description == message, sourceLocation: sourceLocation)
    #expect(throws: expected, sourceLocation: sourceLocation) { try body() }
}

/// Runs one state-changing operation.
private func perform(_ operation: TimerOperation, _ reference: TimerReference, on engine: inout TimerEngine) throws {
    switch operation {
    case .stop: _ = try engine.stop(reference)
    case .pause: _ = try engine.pause(reference)
    case .resume: _ = try engine.resume(reference)
    case .extend: _ = try engine.extend(reference, bySeconds: 60)
    case .skip: _ = try engine.skip(reference)
    case .remove: _ = try engine.remove(reference)
    case .beat: _ = try engine.beat(reference)
    case .ack: _ = try engine.acknowledge(reference)
    case .snooze: _ = try engine.snooze(reference, bySeconds: 60)
    }
}

/// An engine holding timer 1 (90 s, optionally named) in `state`, reached the ordinary way.
private func makeEngine(withTimerIn state: TimerState, name: String? = nil) throws -> (TimerEngine, ManualClock) {
    var (engine, clock) = makeEngine()
    _ = try engine.start(
        durations: [90], name: name,
        alarm: state == .ringing ? TimerAlarm(ring: TimerAlarm.Ring(interval: 30, limit: 600), warning: nil) : nil)
    switch state {
    case .running, .pending: break
    case .ringing:
        clock.advance(byNanoseconds: 90 * nanosecondsPerSecond)
        _ = engine.fireDueTimers()
    case .paused: _ = try engine.pause(.id(1))
    case .stopped: _ = try engine.stop(.id(1))
    case .finished:
        clock.advance(byNanoseconds: 90 * nanosecondsPerSecond)
        _ = engine.fireDueTimers()
    }
    return (engine, clock)
}

// MARK: - Transitions

@Suite("TimerEngine state transitions")
struct TimerEngineTransitionTests {
    @Test("start returns a running timer with every field set")
    func startSingle() throws {
        var (engine, _) = makeEngine()
        let info = try engine.start(durations: [90], name: "tea")
        #expect(
            TimerInfo(info)
                == TimerInfo(
                    id: "1", name: "tea", state: .running, duration: 90, remaining: 90, elapsed: 0,
                    progress: progress(0, of: 90_000, fraction: 0),
                    createdAt: "2026-11-29T15:17:33.000Z", startedAt: "2026-11-29T15:17:33.000Z",
                    endsAt: "2026-11-29T15:19:03.000Z"))
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 91 * nanosecondsPerSecond))
        #expect(engine.liveCount == 1 && engine.runningCount == 1)
    }

    @Test("start with several durations returns a running group: first child running, the rest pending")
    func startGroup() throws {
        var (engine, _) = makeEngine()
        let info = try engine.start(durations: [60, 30])
        #expect(info.id == 1 && info.name == nil && info.state == .running)
        #expect(info.duration == 90 && info.remaining == 90 && info.elapsed == 0)
        #expect(info.currentChild == 0)
        let children = info.children
        #expect(children.map { "1.\($0.index + 1)" } == ["1.1", "1.2"])
        #expect(children.map(\.state) == [.running, .pending])
        #expect(children.map(\.duration) == [60, 30])
        #expect(
            TimerInfo(info).children?.allSatisfy { $0.name == nil && $0.createdAt == nil && $0.children == nil } == true
        )
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 91 * nanosecondsPerSecond))
    }

    @Test("A plain timer has no children and no currentChild")
    func plainTimerHasNoChildren() throws {
        var (engine, _) = makeEngine()
        let info = try engine.start(durations: [5])
        #expect(info.children.isEmpty && info.currentChild == nil && info.endedAt == nil && info.missed == false)
    }

    @Test("pause keeps the remaining time; resume counts on from there")
    func pauseAndResume() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [90])
        clock.advance(byNanoseconds: 30 * nanosecondsPerSecond)
        let paused = try engine.pause(.id(1))
        #expect(paused.state == .paused && paused.remaining == 60 && paused.elapsed == 30)
        #expect(paused.progress == progress(30_000, of: 90_000, fraction: 1.0 / 3.0, isPaused: true))
        #expect(engine.nextDeadline == nil && engine.runningCount == 0 && engine.liveCount == 1)

        clock.advance(byNanoseconds: 100 * nanosecondsPerSecond)
        #expect(try engine.status(.id(1)).remaining == 60)
        #expect(engine.fireDueTimers().isEmpty)

        let resumed = try engine.resume(.id(1))
        #expect(resumed.state == .running && resumed.remaining == 60 && resumed.elapsed == 30)
        #expect(resumed.progress == progress(30_000, of: 90_000, fraction: 1.0 / 3.0))
        #expect(ISO8601.string(from: resumed.startedAt) == "2026-11-29T15:17:33.000Z")
        // Resumed at 131 s after boot with 60 s left.
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 191 * nanosecondsPerSecond))

        clock.advance(byNanoseconds: 15 * nanosecondsPerSecond)
        #expect(try engine.status(.id(1)).remaining == 45)
    }

    @Test("stop from running ends the timer with what was left, cancelled, and tells its end time")
    func stopRunning() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [90])
        clock.advance(byNanoseconds: 10 * nanosecondsPerSecond)
        let ending = try engine.stop(.id(1))
        #expect(
            TimerInfo(ending.timer)
                == TimerInfo(
                    id: "1", name: nil, state: .stopped, duration: 90, remaining: 80, elapsed: 10,
                    progress: progress(10_000, of: 90_000, fraction: 1.0 / 9.0, isCancelled: true),
                    createdAt: "2026-11-29T15:17:33.000Z", startedAt: "2026-11-29T15:17:33.000Z",
                    endedAt: "2026-11-29T15:17:43.000Z"))
        #expect(engine.nextDeadline == nil && engine.liveCount == 0 && engine.runningCount == 0)
        clock.advance(byNanoseconds: 100 * nanosecondsPerSecond)
        #expect(engine.fireDueTimers().isEmpty)
        #expect(try engine.status(.id(1)) == ending.timer)
    }

    @Test("stop from paused ends the timer with the paused remaining time")
    func stopPaused() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [90])
        clock.advance(byNanoseconds: 20 * nanosecondsPerSecond)
        _ = try engine.pause(.id(1))
        clock.advance(byNanoseconds: 50 * nanosecondsPerSecond)
        let ending = try engine.stop(.id(1))
        #expect(ending.timer.state == .stopped && ending.timer.remaining == 70 && ending.timer.elapsed == 20)
        #expect(ending.timer.endedAt.map { ISO8601.string(from: $0) } == "2026-11-29T15:18:43.000Z")
        #expect(ending.timer.progress == progress(20_000, of: 90_000, fraction: 2.0 / 9.0, isCancelled: true))
        #expect(engine.liveCount == 0)
    }

    @Test("A timer that runs out is finished: remaining 0, full progress, ended at its deadline")
    func finish() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [90], name: "tea")
        clock.advance(byNanoseconds: 95 * nanosecondsPerSecond)
        let endings = engine.fireDueTimers()
        #expect(endings.count == 1)
        let ended = try #require(endings.first).timer
        #expect(
            TimerInfo(ended)
                == TimerInfo(
                    id: "1", name: "tea", state: .finished, duration: 90, remaining: 0, elapsed: 90,
                    progress: progress(90_000, of: 90_000, fraction: 1, isFinished: true),
                    createdAt: "2026-11-29T15:17:33.000Z", startedAt: "2026-11-29T15:17:33.000Z",
                    // The deadline, not the (5 s late) moment fireDueTimers ran.
                    endedAt: "2026-11-29T15:19:03.000Z"))
        #expect(engine.liveCount == 0 && engine.nextDeadline == nil)
    }

    struct InvalidTransition: Sendable, CustomStringConvertible {
        var state: TimerState
        var operation: TimerOperation
        var message: String
        var description: String { "\(operation.rawValue) when \(state.rawValue)" }
    }

    static let invalidTransitions: [InvalidTransition] = [
        InvalidTransition(
            state: .running, operation: .resume,
            message: "cannot resume timer 1: it is running; only paused timers can be resumed"),
        InvalidTransition(
            state: .paused, operation: .pause,
            message: "cannot pause timer 1: it is paused; only running timers can be paused"),
        InvalidTransition(
            state: .finished, operation: .pause,
            message: "cannot pause timer 1: it has finished; only running timers can be paused"),
        InvalidTransition(
            state: .finished, operation: .resume,
            message: "cannot resume timer 1: it has finished; only paused timers can be resumed"),
        InvalidTransition(
            state: .finished, operation: .stop,
            message: "cannot stop timer 1: it has finished; only running, paused or ringing timers can be stopped"),
        InvalidTransition(
            state: .stopped, operation: .pause,
            message: "cannot pause timer 1: it was stopped; only running timers can be paused"),
        InvalidTransition(
            state: .stopped, operation: .resume,
            message: "cannot resume timer 1: it was stopped; only paused timers can be resumed"),
        InvalidTransition(
            state: .stopped, operation: .stop,
            message: "cannot stop timer 1: it was stopped; only running, paused or ringing timers can be stopped"),
    ]

    @Test(
        "Invalid transitions throw invalidTransition with the exact message and change nothing",
        arguments: invalidTransitions)
    func invalidTransition(_ transition: InvalidTransition) throws {
        var (engine, _) = try makeEngine(withTimerIn: transition.state)
        let before = try engine.status(.id(1))
        expectFailure(
            .invalidTransition(timer: "timer 1", state: transition.state, operation: transition.operation),
            transition.message
        ) {
            try perform(transition.operation, .id(1), on: &engine)
        }
        #expect(try engine.status(.id(1)) == before)
    }

    @Test("A named timer is labelled with its name in transition errors")
    func invalidTransitionNamed() throws {
        var (engine, _) = try makeEngine(withTimerIn: .stopped, name: "tea")
        expectFailure(
            .invalidTransition(timer: "timer 1 (\"tea\")", state: .stopped, operation: .stop),
            "cannot stop timer 1 (\"tea\"): it was stopped; only running, paused or ringing timers can be stopped"
        ) {
            _ = try engine.stop(.name("tea"))
        }
    }

    @Test("Operations on a timer that does not exist throw timerNotFound with its reference")
    func missingTimer() throws {
        var (engine, _) = makeEngine()
        expectFailure(.timerNotFound(.id(7)), "no timer with id 7") { _ = try engine.stop(.id(7)) }
        expectFailure(.timerNotFound(.id(7)), "no timer with id 7") { _ = try engine.pause(.id(7)) }
        expectFailure(.timerNotFound(.id(7)), "no timer with id 7") { _ = try engine.resume(.id(7)) }
        expectFailure(.timerNotFound(.id(7)), "no timer with id 7") { _ = try engine.status(.id(7)) }
        expectFailure(.timerNotFound(.name("tea")), "no timer named \"tea\"") {
            _ = try engine.status(.name("tea"))
        }
    }
}

// MARK: - Starting: durations, names, ids

@Suite("TimerEngine start validation, names and ids")
struct TimerEngineNamingTests {
    struct StartFailure: Sendable, CustomStringConvertible {
        var durations: [Double]
        var error: CountdownError
        var message: String
        var description: String { "\(durations.count) durations: \(message)" }
    }

    static let startFailures: [StartFailure] = [
        StartFailure(durations: [], error: .groupSizeOutOfRange(0), message: "a timer takes 1 to 100 durations, got 0"),
        StartFailure(
            durations: Array(repeating: 1, count: 101), error: .groupSizeOutOfRange(101),
            message: "a timer takes 1 to 100 durations, got 101"),
        StartFailure(
            durations: [0], error: .durationOutOfRange("0"), message: "duration must be > 0 and ≤ 366 days, got \"0\""),
        StartFailure(
            durations: [60, -1], error: .durationOutOfRange("-1"),
            message: "duration must be > 0 and ≤ 366 days, got \"-1\""),
        StartFailure(
            durations: [.infinity], error: .durationOutOfRange("inf"),
            message: "duration must be > 0 and ≤ 366 days, got \"inf\""),
        StartFailure(
            durations: [31_622_401], error: .durationOutOfRange("31622401"),
            message: "duration must be > 0 and ≤ 366 days, got \"31622401\""),
        // 200 days + 200 days.
        StartFailure(
            durations: [17_280_000, 17_280_000], error: .groupTooLong(34_560_000),
            message: "the durations of a group must add up to ≤ 366 days, got 400d"),
        StartFailure(
            durations: [31_622_400, 1], error: .groupTooLong(31_622_401),
            message: "the durations of a group must add up to ≤ 366 days, got 366d1s"),
    ]

    @Test("start rejects bad durations and group sizes with the exact error", arguments: startFailures)
    func startFailure(_ failure: StartFailure) {
        var (engine, _) = makeEngine()
        expectFailure(failure.error, failure.message) { _ = try engine.start(durations: failure.durations) }
        #expect(engine.liveCount == 0)
    }

    @Test("100 durations and exactly 366 days are accepted")
    func startLimits() throws {
        var (engine, _) = makeEngine()
        #expect(try engine.start(durations: Array(repeating: 1, count: 100)).children.count == 100)
        #expect(try engine.start(durations: [31_622_400]).remaining == 31_622_400)
        #expect(try engine.start(durations: [31_622_399, 1]).duration == 31_622_400)
    }

    /// Names the rule of TimerName refuses, each with the reason `TimerName.problem(with:)` gives.
    static let invalidNames: [(String, String)] = [
        ("", "a name cannot be empty"),
        (String(repeating: "a", count: 65), "at most 64 characters"),
        ("-", "names may not start with '-' (a command line would read it as an option)"),
        ("-tea", "names may not start with '-' (a command line would read it as an option)"),
        (" tea", "no space at the start or the end"),
        ("tea ", "no space at the start or the end"),
        ("123", "all digits is an id, not a name"),
        ("0", "all digits is an id, not a name"),
        ("5.1", "digits.digits is a group step's id, not a name"),
        ("tea\ttime", "U+0009 is not a printable character"),  // Cc
        ("tea\u{7}", "U+0007 is not a printable character"),  // Cc (BEL)
        ("a\u{202E}b", "U+202E is not a printable character"),  // Cf: RIGHT-TO-LEFT OVERRIDE
        ("no\u{A0}break", "U+00A0 is not a printable character"),  // Zs other than U+0020
        ("a\u{2028}b", "U+2028 is not a printable character"),  // Zl
        ("\u{E000}", "U+E000 is not a printable character"),  // Co
    ]

    @Test("Invalid names are refused with invalidName, the reason and the rule", arguments: invalidNames)
    func invalidName(_ name: String, _ problem: String) {
        var (engine, _) = makeEngine()
        expectFailure(
            .invalidName(name),
            "invalid timer name \"\(name)\": \(problem); a name is 1 to 64 printable characters in any script "
                + "(spaces only inside), not starting with '-', and not all digits (an id) or digits.digits (a group step)"
        ) {
            _ = try engine.start(durations: [60], name: name)
        }
        #expect(!TimerName.isValid(name))
    }

    static let validNames = [
        String(repeating: "a", count: 64), "a", "tea.time_2-b", "1a", "007x", "Z9", "tea time", "tea!", "tea/1",
        "café", "お茶", "чай", "شاي", "👩\u{200D}💻", String(repeating: "é", count: 64), "1.2.3", "v1.",
    ]

    @Test("Valid names are accepted", arguments: validNames)
    func validName(_ name: String) throws {
        var (engine, _) = makeEngine()
        #expect(try engine.start(durations: [60], name: name).name == name)
        #expect(TimerName.isValid(name))
    }

    @Test("A name held by a live timer (running or paused) is refused with nameInUse")
    func nameInUse() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea")
        let message = "a live timer is already named \"tea\" (id 1); stop it or choose another name"
        expectFailure(.nameInUse("tea", id: "1"), message) { _ = try engine.start(durations: [30], name: "tea") }
        _ = try engine.pause(.name("tea"))
        expectFailure(.nameInUse("tea", id: "1"), message) { _ = try engine.start(durations: [30], name: "tea") }
        #expect(engine.liveCount == 1)
    }

    @Test("A name can be used again once its timer was stopped or has finished")
    func nameReusable() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea")
        _ = try engine.stop(.name("tea"))
        #expect(try engine.start(durations: [5], name: "tea").id == 2)
        clock.advance(byNanoseconds: 5 * nanosecondsPerSecond)
        #expect(engine.fireDueTimers().map(\.timer.id) == [2])
        #expect(try engine.start(durations: [5], name: "tea").id == 3)
    }

    @Test("A name reference finds the live timer first, else the most recently ended one")
    func lookupByName() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea")
        _ = try engine.stop(.name("tea"))
        _ = try engine.start(durations: [60], name: "tea")
        _ = try engine.stop(.name("tea"))
        #expect(try engine.status(.name("tea")).id == 2)
        _ = try engine.start(durations: [60], name: "tea")
        _ = try engine.start(durations: [60], name: "other")
        #expect(try engine.status(.name("tea")).id == 3)
        _ = try engine.pause(.name("tea"))
        #expect(try engine.status(.name("tea")).id == 3)
        _ = try engine.stop(.name("tea"))
        #expect(try engine.status(.name("tea")).id == 3)
        #expect(try engine.status(.name("other")).id == 4)
    }

    @Test("For a root lookup across owners, the most recently ended timer wins, not the highest id")
    func lookupMostRecentlyEndedAcrossOwners() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", owner: 1_000)  // id 1, ends second (stopped at 5 s)
        _ = try engine.start(durations: [1], name: "tea", owner: 1_001)  // id 2, ends first (at 1 s)
        clock.advance(byNanoseconds: 1 * nanosecondsPerSecond)
        #expect(engine.fireDueTimers().map(\.timer.id) == [2])
        clock.advance(byNanoseconds: 4 * nanosecondsPerSecond)
        _ = try engine.stop(.id(1))
        // TimerReference.name: "the live timer of that name, else the most recently ended one".
        #expect(try engine.status(.name("tea")).id == 1)
    }

    @Test("Ids are never reused, even after their timers left the history")
    func idsNeverReused() throws {
        var (engine, _) = makeEngine(historyLimit: 0)
        #expect(try engine.start(durations: [60]).id == 1)
        _ = try engine.stop(.id(1))
        expectFailure(.timerNotFound(.id(1)), "no timer with id 1") { _ = try engine.status(.id(1)) }
        #expect(try engine.start(durations: [60]).id == 2)
        #expect(try engine.start(durations: [60]).id == 3)
        #expect(engine.snapshot.nextID == 4)
    }

    struct ReferenceCase: Sendable, CustomStringConvertible {
        var text: String
        var reference: TimerReference
        var description: String { "\"\(text)\"" }
    }

    static let references: [ReferenceCase] = [
        ReferenceCase(text: "3", reference: .id(3)),
        ReferenceCase(text: "007", reference: .id(7)),
        ReferenceCase(text: "18446744073709551615", reference: .id(UInt64.max)),
        ReferenceCase(text: "tea", reference: .name("tea")),
        ReferenceCase(text: "3a", reference: .name("3a")),
    ]

    @Test("TimerReference reads all digits as an id, anything else as a name", arguments: references)
    func parseReference(_ referenceCase: ReferenceCase) throws {
        #expect(try TimerReference(parsing: referenceCase.text) == referenceCase.reference)
    }

    @Test("TimerReference rejects an impossible id and an invalid name")
    func parseReferenceFailures() {
        #expect(throws: CountdownError.timerNotFound(.name("18446744073709551616"))) {
            try TimerReference(parsing: "18446744073709551616")
        }
        #expect(throws: CountdownError.invalidName("")) { try TimerReference(parsing: "") }
        #expect(throws: CountdownError.invalidName("-tea")) { try TimerReference(parsing: "-tea") }
        #expect(throws: CountdownError.timerNotFound(.name("5.0"))) { try TimerReference(parsing: "5.0") }
    }
}

// MARK: - Counting and deadlines

@Suite("TimerEngine counting, deadlines and firing")
struct TimerEngineCountingTests {
    @Test("remaining, elapsed and progress are exact after the clock moves")
    func exactCounting() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60])
        clock.advance(byNanoseconds: 12_500_000_000)
        let info = try engine.status(.id(1))
        #expect(info.remaining == 47.5 && info.elapsed == 12.5)
        #expect(info.progress == progress(12_500, of: 60_000, fraction: 12_500.0 / 60_000.0))
        clock.advance(byNanoseconds: 999_999)
        // Progress counts whole milliseconds only.
        #expect(try engine.status(.id(1)).progress.completedUnitCount == 12_500)
        clock.advance(byNanoseconds: 1)
        #expect(try engine.status(.id(1)).progress.completedUnitCount == 12_501)
        #expect(try engine.status(.id(1)).remaining == 47.499)
    }

    struct UnitCase: Sendable, CustomStringConvertible {
        var seconds: Double
        var units: Int64
        var description: String { "\(seconds) s" }
    }

    static let unitCases: [UnitCase] = [
        UnitCase(seconds: 1.5, units: 1_500),
        UnitCase(seconds: 1_500, units: 1_500_000),
        UnitCase(seconds: 0.0005, units: 1),  // 500 µs: rounded up to 1 ms
        UnitCase(seconds: 0.0015, units: 2),  // 1.5 ms: rounded up
        // 1 µs, the shortest duration (DurationParser.minimumSeconds; 1e-10 s is refused).
        UnitCase(seconds: 1e-6, units: 1),
        UnitCase(seconds: 31_622_400, units: 31_622_400_000),
    ]

    @Test("Progress is counted in milliseconds, any positive duration being at least 1 unit", arguments: unitCases)
    func progressUnits(_ unitCase: UnitCase) throws {
        var (engine, _) = makeEngine()
        #expect(try engine.start(durations: [unitCase.seconds]).progress.totalUnitCount == unitCase.units)
    }

    @Test("fireDueTimers never fires 1 ns early, and fires at the deadline exactly")
    func notEarly() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1])
        clock.advance(byNanoseconds: 999_999_999)
        #expect(engine.fireDueTimers().isEmpty)
        #expect(try engine.status(.id(1)).state == .running)
        #expect(try engine.status(.id(1)).remaining == 1e-9)
        clock.advance(byNanoseconds: 1)
        let endings = engine.fireDueTimers()
        #expect(endings.map(\.timer.id) == [1])
        #expect(endings.map { $0.timer.endedAt.map { ISO8601.string(from: $0) } } == ["2026-11-29T15:17:34.000Z"])
    }

    @Test("Timers due together fire in one batch, earliest deadline first, ties by id, each ended at its deadline")
    func batch() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [3])  // 1
        _ = try engine.start(durations: [1])  // 2
        _ = try engine.start(durations: [2])  // 3
        _ = try engine.start(durations: [1])  // 4, same deadline as 2
        _ = try engine.start(durations: [1])  // 5, paused: does not fire
        _ = try engine.pause(.id(5))
        _ = try engine.start(durations: [4])  // 6, not due yet
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 2 * nanosecondsPerSecond))
        clock.advance(byNanoseconds: 3 * nanosecondsPerSecond)
        let endings = engine.fireDueTimers()
        #expect(endings.map(\.timer.id) == [2, 4, 3, 1])
        #expect(endings.allSatisfy { $0.timer.state == .finished && $0.timer.remaining == 0 })
        #expect(
            endings.map { $0.timer.endedAt.map { ISO8601.string(from: $0) } } == [
                "2026-11-29T15:17:34.000Z", "2026-11-29T15:17:34.000Z", "2026-11-29T15:17:35.000Z",
                "2026-11-29T15:17:36.000Z",
            ])
        #expect(engine.fireDueTimers().isEmpty)
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 5 * nanosecondsPerSecond))
        #expect(engine.list().map(\.id) == [5, 6])
        #expect(engine.runningCount == 1 && engine.liveCount == 2)
    }

    @Test("A suspend counts towards the countdown, as CLOCK_BOOTTIME does")
    func suspendCounts() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1_500])
        clock.suspend(forNanoseconds: 600 * nanosecondsPerSecond)
        #expect(try engine.status(.id(1)).remaining == 900)
        clock.suspend(forNanoseconds: 900 * nanosecondsPerSecond)
        #expect(engine.fireDueTimers().map(\.timer.id) == [1])
    }

    @Test("Stepping the wall clock changes neither remaining time nor the deadline")
    func wallClockStep() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60])
        clock.advance(byNanoseconds: 10 * nanosecondsPerSecond)
        clock.stepWallClock(bySeconds: 3_600)
        #expect(try engine.status(.id(1)).remaining == 50)
        #expect(engine.fireDueTimers().isEmpty)
        clock.stepWallClock(bySeconds: -7_200)
        #expect(try engine.status(.id(1)).remaining == 50)
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 61 * nanosecondsPerSecond))
    }

    @Test("list shows live timers by id, and ended ones too with includeEnded")
    func list() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60])
        _ = try engine.start(durations: [60])
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(2))
        #expect(engine.list().map(\.id) == [1, 3])
        #expect(engine.list(includeEnded: true).map(\.id) == [1, 2, 3])
    }

    @Test("The history keeps only the most recent ended timers; live ones are never dropped")
    func historyLimit() throws {
        var (engine, _) = makeEngine(historyLimit: 2)
        _ = try engine.start(durations: [60])  // 1, stays live
        for id: UInt64 in 2...4 {
            _ = try engine.start(durations: [60])
            _ = try engine.stop(.id(id))
        }
        #expect(engine.list(includeEnded: true).map(\.id) == [1, 3, 4])
        expectFailure(.timerNotFound(.id(2)), "no timer with id 2") { _ = try engine.status(.id(2)) }
        #expect(engine.snapshot.timers.map(\.id) == [1, 3, 4])
    }

    @Test("A negative history limit keeps nothing")
    func negativeHistoryLimit() throws {
        var (engine, _) = makeEngine(historyLimit: -3)
        #expect(engine.historyLimit == 0)
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(1))
        #expect(engine.list(includeEnded: true).isEmpty)
    }
}

// MARK: - Groups

@Suite("TimerEngine groups")
struct TimerEngineGroupTests {
    @Test("Halfway through the second child: states, currentChild, children's figures and aggregated progress")
    func midway() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1, 2, 3])
        clock.advance(byNanoseconds: 1_500_000_000)
        let info = try engine.status(.id(1))
        #expect(info.state == .running && info.currentChild == 1)
        #expect(info.remaining == 4.5 && info.elapsed == 1.5 && info.duration == 6)
        // The finished first child's 1000 pending units are credited; the second adds 500/2000 × 2000.
        #expect(info.progress == progress(1_000, of: 6_000, fraction: 0.25))
        let children = info.children
        #expect(children.map { "1.\($0.index + 1)" } == ["1.1", "1.2", "1.3"])
        #expect(children.map(\.state) == [.finished, .running, .pending])
        #expect(children.map(\.remaining) == [0, 1.5, 3])
        #expect(children.map(\.elapsed) == [1, 0.5, 0])
        #expect(
            children.map(\.progress) == [
                progress(1_000, of: 1_000, fraction: 1, isFinished: true),
                progress(500, of: 2_000, fraction: 0.25),
                progress(0, of: 3_000, fraction: 0),
            ])
    }

    @Test("Inside the first child the parent's completedUnitCount is 0 and its fraction counts the child")
    func firstChild() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1, 2, 3])
        clock.advance(byNanoseconds: 500_000_000)
        let info = try engine.status(.id(1))
        #expect(info.progress == progress(0, of: 6_000, fraction: 1.0 / 12.0))
        #expect(info.currentChild == 0)
        #expect(info.children.map(\.state) == [.running, .pending, .pending])
    }

    @Test("At a child boundary the next child is current with nothing elapsed")
    func boundary() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1, 2, 3])
        clock.advance(byNanoseconds: 3 * nanosecondsPerSecond)
        let info = try engine.status(.id(1))
        #expect(info.currentChild == 2)
        #expect(info.children.map(\.state) == [.finished, .finished, .running])
        #expect(info.progress == progress(3_000, of: 6_000, fraction: 0.5))
        #expect(engine.fireDueTimers().isEmpty)
    }

    @Test("Pausing a group pauses the current child and reaches every unfinished child's progress")
    func pausedGroup() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1, 2, 3])
        clock.advance(byNanoseconds: 1_500_000_000)
        let info = try engine.pause(.id(1))
        #expect(info.state == .paused && info.currentChild == 1)
        #expect(info.progress == progress(1_000, of: 6_000, fraction: 0.25, isPaused: true))
        let children = info.children
        #expect(children.map(\.state) == [.finished, .paused, .pending])
        #expect(children.map(\.progress.isPaused) == [false, true, true])
        #expect(children.map(\.progress.isCancelled) == [false, false, false])
        clock.advance(byNanoseconds: 60 * nanosecondsPerSecond)
        #expect(try engine.status(.id(1)) == info)
        let resumed = try engine.resume(.id(1))
        #expect(resumed.children.map(\.state) == [.finished, .running, .pending])
        #expect(resumed.children.map(\.progress.isPaused) == [false, false, false])
        // Resumed at 62.5 s after boot with 4.5 s left.
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 67 * nanosecondsPerSecond))
    }

    @Test("Stopping a group stops every unfinished child and cancels their progress; none is current")
    func stoppedGroup() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1, 2, 3])
        clock.advance(byNanoseconds: 1_500_000_000)
        let info = try engine.stop(.id(1)).timer
        #expect(info.state == .stopped && info.currentChild == nil)
        #expect(info.remaining == 4.5 && info.elapsed == 1.5)
        #expect(info.progress == progress(1_000, of: 6_000, fraction: 0.25, isCancelled: true))
        let children = info.children
        #expect(children.map(\.state) == [.finished, .stopped, .stopped])
        #expect(children.map(\.progress.isCancelled) == [false, true, true])
        #expect(children.map(\.remaining) == [0, 1.5, 3])
    }

    @Test("A finished group: every child finished, all units credited, fraction 1")
    func finishedGroup() throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [1, 2, 3])
        clock.advance(byNanoseconds: 6 * nanosecondsPerSecond)
        let info = try #require(engine.fireDueTimers().first).timer
        #expect(info.state == .finished && info.currentChild == nil && info.remaining == 0 && info.elapsed == 6)
        #expect(info.progress == progress(6_000, of: 6_000, fraction: 1, isFinished: true))
        #expect(info.children.map(\.state) == [.finished, .finished, .finished])
        #expect(info.endedAt.map { ISO8601.string(from: $0) } == "2026-11-29T15:17:39.000Z")
    }

    static let subMillisecondGroups: [[Double]] = [[0.0005, 0.0005], [1.0005, 1.0005], [0.25, 0.0001, 0.25]]

    @Test(
        "A finished group's completedUnitCount equals its totalUnitCount, even with sub-millisecond parts",
        arguments: subMillisecondGroups)
    func finishedGroupWithSubMillisecondChildren(_ durations: [Double]) throws {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: durations)
        clock.advance(byNanoseconds: 3 * nanosecondsPerSecond)
        let info = try #require(engine.fireDueTimers().first).timer
        #expect(info.progress.completedUnitCount == info.progress.totalUnitCount)
        #expect(info.progress.fractionCompleted == 1)
        let childUnits = info.children.map(\.progress.totalUnitCount).reduce(0, +)
        #expect(childUnits == info.progress.totalUnitCount)
    }
}

// MARK: - Ownership and quota

@Suite("TimerEngine ownership and quota")
struct TimerEngineOwnershipTests {
    @Test("A uid sees only its own timers; nil sees all")
    func visibility() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], owner: 1_000)
        _ = try engine.start(durations: [60], owner: 1_001)
        _ = try engine.start(durations: [60], owner: 1_000)
        #expect(engine.list(requester: 1_000).map(\.id) == [1, 3])
        #expect(engine.list(requester: 1_001).map(\.id) == [2])
        #expect(engine.list(requester: 1_002).isEmpty)
        #expect(engine.list().map(\.id) == [1, 2, 3])
        #expect(try engine.status(.id(2)).id == 2)
    }

    @Test("Another uid's timer is not found, exactly like a missing one, and is left untouched")
    func otherOwnersTimer() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", owner: 1_001)
        let notFound = CountdownError.timerNotFound(.id(1))
        expectFailure(notFound, "no timer with id 1") { _ = try engine.status(.id(1), requester: 1_000) }
        expectFailure(notFound, "no timer with id 1") { _ = try engine.pause(.id(1), requester: 1_000) }
        expectFailure(notFound, "no timer with id 1") { _ = try engine.stop(.id(1), requester: 1_000) }
        expectFailure(notFound, "no timer with id 1") { _ = try engine.status(.id(1), requester: 1_000) }
        let byName = CountdownError.timerNotFound(.name("tea"))
        expectFailure(byName, "no timer named \"tea\"") { _ = try engine.stop(.name("tea"), requester: 1_000) }
        _ = try engine.pause(.id(1), requester: 1_001)
        expectFailure(notFound, "no timer with id 1") { _ = try engine.resume(.id(1), requester: 1_000) }
        #expect(try engine.status(.id(1)).state == .paused)
        #expect(try engine.resume(.name("tea")).state == .running)
    }

    @Test("Names are unique per owner: two uids may each have a live \"tea\"")
    func namesPerOwner() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea", owner: 1_000)
        _ = try engine.start(durations: [60], name: "tea", owner: 1_001)
        #expect(try engine.status(.name("tea"), requester: 1_000).id == 1)
        #expect(try engine.status(.name("tea"), requester: 1_001).id == 2)
        expectFailure(
            .nameInUse("tea", id: "2"), "a live timer is already named \"tea\" (id 2); stop it or choose another name"
        ) {
            _ = try engine.start(durations: [60], name: "tea", owner: 1_001)
        }
        #expect(try engine.stop(.name("tea"), requester: 1_001).timer.id == 2)
        #expect(try engine.status(.name("tea"), requester: 1_000).state == .running)
        #expect(engine.liveCount == 1)
    }

    @Test("The quota counts an owner's live timers only")
    func quota() throws {
        var (engine, _) = makeEngine()
        _ = try engine.start(durations: [60], owner: 1_000, quota: 2)
        _ = try engine.start(durations: [60], owner: 1_000, quota: 2)
        expectFailure(.quotaExceeded(limit: 2), "too many live timers: the limit is 2 per user; stop some first") {
            _ = try engine.start(durations: [60], owner: 1_000, quota: 2)
        }
        #expect(try engine.start(durations: [60], owner: 1_001, quota: 2).id == 3)
        _ = try engine.pause(.id(2))
        expectFailure(.quotaExceeded(limit: 2), "too many live timers: the limit is 2 per user; stop some first") {
            _ = try engine.start(durations: [60], owner: 1_000, quota: 2)
        }
        _ = try engine.stop(.id(1))
        #expect(try engine.start(durations: [60], owner: 1_000, quota: 2).id == 4)
        #expect(try engine.start(durations: [60], owner: 1_000).id == 5)
    }
}

// MARK: - Persistence

@Suite("TimerEngine restore")
struct TimerEngineRestoreTests {
    /// An engine that ran timer 1 "tea" (60 s, running 10 s), timer 2 (60 s, paused after 20 s), timer 3
    /// (stopped) and timer 4 (60 s, running 10 s), snapshotted at 20 s after start.
    private static func earlierRun() throws -> EngineSnapshot {
        var (engine, clock) = makeEngine()
        _ = try engine.start(durations: [60], name: "tea")  // 1
        _ = try engine.start(durations: [60])  // 2
        _ = try engine.start(durations: [5])  // 3
        _ = try engine.stop(.id(3))
        clock.advance(byNanoseconds: 10 * nanosecondsPerSecond)
        _ = try engine.start(durations: [60])  // 4
        clock.advance(byNanoseconds: 10 * nanosecondsPerSecond)
        _ = try engine.pause(.id(2))
        return engine.snapshot
    }

    @Test("Same boot: deadlines are kept, so the downtime counts")
    func sameBoot() throws {
        let snapshot = try Self.earlierRun()
        // The daemon was down 30 s: 50 s after start on both clocks.
        let clock = ManualClock(boot: BootInstant(nanoseconds: 51 * nanosecondsPerSecond), wall: startWall + 50)
        var engine = TimerEngine(clock: clock)
        #expect(engine.restore(snapshot, sameBoot: true).isEmpty)
        #expect(try engine.status(.id(1)).remaining == 10)
        #expect(try engine.status(.id(2)).remaining == 40)
        #expect(try engine.status(.id(2)).state == .paused)
        #expect(try engine.status(.id(3)).state == .stopped)
        #expect(try engine.status(.id(4)).remaining == 20)
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 61 * nanosecondsPerSecond))
        #expect(engine.liveCount == 3 && engine.runningCount == 2)
        #expect(try engine.start(durations: [1]).id == 5)
        expectFailure(
            .nameInUse("tea", id: "1"), "a live timer is already named \"tea\" (id 1); stop it or choose another name"
        ) {
            _ = try engine.start(durations: [1], name: "tea")
        }
    }

    @Test("Same boot: a deadline passed during the downtime finishes the timer as missed, ended at its deadline")
    func sameBootMissed() throws {
        let snapshot = try Self.earlierRun()
        // Back 65 s after start: timer 1 was due at 60 s; timer 4 is due at 70 s.
        let clock = ManualClock(boot: BootInstant(nanoseconds: 66 * nanosecondsPerSecond), wall: startWall + 65)
        var engine = TimerEngine(clock: clock)
        let missed = engine.restore(snapshot, sameBoot: true)
        #expect(missed.map(\.timer.id) == [1])
        let info = try #require(missed.first).timer
        #expect(info.state == .finished && info.missed == true && info.remaining == 0)
        #expect(info.endedAt.map { ISO8601.string(from: $0) } == "2026-11-29T15:18:33.000Z")
        #expect(try engine.status(.id(1)) == info)
        #expect(try engine.status(.id(4)).remaining == 5)
        #expect(try engine.status(.id(4)).missed == false)
        #expect(try engine.start(durations: [1], name: "tea").id == 5)
    }

    @Test("After a reboot, running timers are recomputed from the wall clock")
    func otherBoot() throws {
        let snapshot = try Self.earlierRun()
        // Rebooted: the boot-time clock reads 5 s; the wall clock 50 s after start.
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * nanosecondsPerSecond), wall: startWall + 50)
        var engine = TimerEngine(clock: clock)
        #expect(engine.restore(snapshot, sameBoot: false).isEmpty)
        #expect(try engine.status(.id(1)).remaining == 10)
        #expect(try engine.status(.id(4)).remaining == 20)
        #expect(try engine.status(.id(2)).remaining == 40)
        #expect(engine.nextDeadline == BootInstant(nanoseconds: 15 * nanosecondsPerSecond))
        clock.advance(byNanoseconds: 10 * nanosecondsPerSecond)
        #expect(
            engine.fireDueTimers().map { $0.timer.endedAt.map { ISO8601.string(from: $0) } } == [
                "2026-11-29T15:18:33.000Z"
            ])
    }

    @Test("After a reboot, a timer whose wall-clock deadline passed is finished as missed")
    func otherBootMissed() throws {
        let snapshot = try Self.earlierRun()
        let clock = ManualClock(boot: BootInstant(nanoseconds: 5 * nanosecondsPerSecond), wall: startWall + 3_600)
        var engine = TimerEngine(clock: clock)
        let missed = engine.restore(snapshot, sameBoot: false)
        #expect(missed.map(\.timer.id) == [1, 4])
        #expect(missed.allSatisfy { $0.timer.state == .finished && $0.timer.missed == true })
        // 60 s after start and 70 s after start.
        #expect(
            missed.map { $0.timer.endedAt.map { ISO8601.string(from: $0) } } == [
                "2026-11-29T15:18:33.000Z", "2026-11-29T15:18:43.000Z",
            ])
        #expect(try engine.status(.id(2)) == engine.list().first)
        #expect(try engine.status(.id(2)).remaining == 40)
        #expect(engine.nextDeadline == nil && engine.liveCount == 1)
    }

    @Test("A restored timer's waiters start empty and ids continue after the snapshot's")
    func restoreKeepsIDs() throws {
        var (engine, _) = makeEngine(historyLimit: 0)
        _ = try engine.start(durations: [60])
        _ = try engine.stop(.id(1))
        let snapshot = engine.snapshot
        #expect(snapshot.timers.isEmpty && snapshot.nextID == 2)
        var restored = TimerEngine(clock: ManualClock(boot: startBoot, wall: startWall))
        _ = restored.restore(snapshot, sameBoot: true)
        #expect(try restored.start(durations: [60]).id == 2)
    }

    @Test("After a restore, the history still drops the timer that ended first")
    func historyOrderSurvivesRestore() throws {
        var (engine, clock) = makeEngine(historyLimit: 2)
        _ = try engine.start(durations: [10])  // 1, stopped at 5 s (ends second)
        _ = try engine.start(durations: [1])  // 2, finishes at 1 s (ends first)
        clock.advance(byNanoseconds: 1 * nanosecondsPerSecond)
        _ = engine.fireDueTimers()
        clock.advance(byNanoseconds: 4 * nanosecondsPerSecond)
        _ = try engine.stop(.id(1))
        var restored = TimerEngine(clock: clock, historyLimit: 2)
        _ = restored.restore(engine.snapshot, sameBoot: true)
        for var run in [engine, restored] {
            _ = try run.start(durations: [10])
            _ = try run.stop(.id(3))
            #expect(run.list(includeEnded: true).map(\.id) == [1, 3])
        }
    }
}
