import Foundation
import TestSupport
import Testing
import TimerModel

@testable import Countdown

/// The 64-byte record keeps rare values out of line (TimerRecord.swift): these tests prove that no
/// combination of values is lost or changed by that, and that equal values give equal records.
@Suite("TimerRecord: rare values kept out of line")
struct TimerRecordSpillTests {
    /// The logical values of one record, as the public initializer takes them.
    struct Values: Equatable {
        var name: String?
        var durations: [Double]
        var nanoseconds: [Int64]
        var state: TimerState
        var accumulated: Int64
        var runStart: BootInstant?
        var runStartWall: Date?
        var createdAt: Date
        var startedAt: Date
        var endedAt: Date?
        var missed: Bool
        var owner: UInt32
        var wallDeadline: Date?
        var extensions: [TimerExtension]

        func record(id: UInt64) -> TimerRecord {
            TimerRecord(
                id: id, name: name, durations: durations, segmentNanoseconds: nanoseconds, state: state,
                accumulatedNanoseconds: accumulated, runStart: runStart, runStartWall: runStartWall,
                createdAt: createdAt, startedAt: startedAt, endedAt: endedAt, missed: missed, owner: owner,
                wallDeadline: wallDeadline, extensions: extensions)
        }

        init(of record: TimerRecord) {
            name = record.name
            durations = record.durations
            nanoseconds = record.segmentNanoseconds
            state = record.state
            accumulated = record.accumulatedNanoseconds
            runStart = record.runStart
            runStartWall = record.runStartWall
            createdAt = record.createdAt
            startedAt = record.startedAt
            endedAt = record.endedAt
            missed = record.missed
            owner = record.owner
            wallDeadline = record.wallDeadline
            extensions = record.extensions
        }

        init(random generator: inout SplitMix64) {
            func coin() -> Bool { generator.next() & 1 == 0 }
            func instant() -> Date { Date(timeIntervalSinceReferenceDate: Double(generator.next() % 1_000_000) / 8) }
            name = coin() ? "t\(generator.next() % 1_000)" : nil
            let count = coin() ? 1 : Int(generator.next() % 4)  // 0 (as the codec's placeholder), 1, 2 or 3
            // Seconds that follow from the nanoseconds (1.5 s), and some that do not (1/3 s).
            durations = (0..<count).map { _ in coin() ? 1.5 : 1.0 / 3.0 }
            nanoseconds = durations.map { Int64(($0 * 1e9).rounded()) + (coin() ? 0 : 7) }
            state = TimerState.allCases[Int(generator.next() % UInt64(TimerState.allCases.count))]
            accumulated = Int64(generator.next() % 1_000_000)
            runStart = coin() ? BootInstant(nanoseconds: Int64(generator.next() % 1_000_000)) : nil
            runStartWall = coin() ? instant() : nil
            createdAt = instant()
            startedAt = coin() ? createdAt : instant()
            endedAt = coin() ? instant() : nil
            missed = coin()
            owner = UInt32(generator.next() % 5)
            wallDeadline = coin() ? instant() : nil
            extensions = coin() ? [.unknown(tag: 9, bytes: [1, 2, 3])] : []
        }
    }

    @Test("Every combination of values reads back as given, and equal values make equal records")
    func roundTrip() {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<2_000 {
            let values = Values(random: &generator)
            let record = values.record(id: 42)
            // Expected: exactly the values given (the old record stored each field inline).
            #expect(Values(of: record) == values)
            #expect(record.totalNanoseconds == values.nanoseconds.reduce(0, +))
            // Built again from the same values: equal and the same hash (the form is canonical).
            let again = values.record(id: 42)
            #expect(record == again && record.hashValue == again.hashValue)
        }
    }

    @Test("Setting any value through its property gives the record built with that value")
    func settersMatchInitializer() {
        var generator = SplitMix64(seed: 12)
        for _ in 0..<2_000 {
            let from = Values(random: &generator)
            let to = Values(random: &generator)
            var record = from.record(id: 7)
            // The engine's order of assignments (end: runStartWall then endedAt; restart: the
            // reverse), so that both orders of the two wall-clock instants are exercised.
            if generator.next() & 1 == 0 {
                record.runStartWall = to.runStartWall
                record.endedAt = to.endedAt
            } else {
                record.endedAt = to.endedAt
                record.runStartWall = to.runStartWall
            }
            record.createdAt = to.createdAt
            record.startedAt = to.startedAt
            record.name = to.name
            record.segments = TimerRecord.Segments(durations: to.durations, nanoseconds: to.nanoseconds)
            record.state = to.state
            record.accumulatedNanoseconds = to.accumulated
            record.runStart = to.runStart
            record.missed = to.missed
            record.owner = to.owner
            record.wallDeadline = to.wallDeadline
            record.extensions = to.extensions
            // Expected: the record the initializer makes from the new values (compared field by
            // field and as a whole, hash included).
            let built = to.record(id: 7)
            #expect(Values(of: record) == to)
            #expect(record == built && record.hashValue == built.hashValue)
        }
    }

    @Test("A plain running timer keeps nothing out of line; a name, a restart or an --at deadline does")
    func plainTimerHasNoSpill() {
        let wall = Date(timeIntervalSinceReferenceDate: 1_000)
        var record = TimerRecord(
            id: 1, name: nil, durations: [90], segmentNanoseconds: [90_000_000_000], state: .running,
            accumulatedNanoseconds: 0, runStart: BootInstant(nanoseconds: 5), runStartWall: wall, createdAt: wall,
            startedAt: wall, endedAt: nil, missed: false, owner: 1000, wallDeadline: nil)
        // 90 s = 90,000,000,000 ns exactly: the seconds follow from the nanoseconds.
        #expect(record.spill == nil)
        // Ending it (the engine's order: runStartWall cleared, then endedAt set) keeps it inline.
        record.runStartWall = nil
        record.endedAt = wall.addingTimeInterval(90)
        #expect(record.spill == nil && record.endedAt == wall.addingTimeInterval(90))
        record.name = "tea"
        #expect(record.spill?.rare.name == "tea")
        record.name = nil
        #expect(record.spill == nil)
        record.startedAt = wall.addingTimeInterval(1)
        #expect(record.spill?.rare.startedAt == wall.addingTimeInterval(1) && record.createdAt == wall)
    }
}
