import Foundation
import TestSupport
import Testing
import TimerModel

@testable import Countdown

/// `TimerRecord.snapshot(at:wallNow:)` takes a short path for a record without a spill (every
/// start's reply). The general path handles any
/// record, so the short one must give exactly its values.
@Suite("TimerRecord: a plain record's short snapshot path")
struct TimerRecordSnapshotTests {
    @Test("The plain path gives the general path's snapshot, field for field, in every state")
    func plainPathMatchesGeneral() {
        var generator = SplitMix64(seed: 5)
        var checked = 0
        for _ in 0..<3_000 {
            func coin() -> Bool { generator.next() & 1 == 0 }
            func instant() -> Date { Date(timeIntervalSinceReferenceDate: Double(generator.next() % 1_000_000) / 8) }
            // Whole milliseconds or not (the progress units round up), short or long.
            let nanoseconds = Int64(1 + generator.next() % 5_000_000_000)
            let state = TimerState.allCases[Int(generator.next() % UInt64(TimerState.allCases.count))]
            let running = state == .running
            let created = instant()
            let record = TimerRecord(
                id: 1 + generator.next() % 1_000, name: nil, durations: [Double(nanoseconds) / 1e9],
                segmentNanoseconds: [nanoseconds], state: state,
                accumulatedNanoseconds: Int64(generator.next() % UInt64(nanoseconds + 10)),
                runStart: running || coin() ? BootInstant(nanoseconds: Int64(generator.next() % 1_000_000_000)) : nil,
                runStartWall: running ? instant() : nil, createdAt: created, startedAt: created,
                endedAt: running || coin() ? nil : instant(), missed: coin(), owner: UInt32(generator.next() % 3),
                wallDeadline: nil, extensions: [])
            // The short path is only taken for these (no name, no group, seconds that follow from the
            // nanoseconds, startedAt = createdAt, no absolute deadline, no extension).
            guard record.spill == nil else {
                Issue.record("record built as plain has a spill: \(record)")
                continue
            }
            for _ in 0..<4 {
                let now = BootInstant(nanoseconds: Int64(generator.next() % 8_000_000_000))
                let wall = instant()
                // Expected: the general path's snapshot (the only path before this change).
                #expect(
                    record.plainSnapshot(at: now, wallNow: wall) == record.generalSnapshot(at: now, wallNow: wall),
                    "\(record) at \(now)")
                #expect(record.snapshot(at: now, wallNow: wall) == record.generalSnapshot(at: now, wallNow: wall))
                checked += 1
            }
        }
        #expect(checked == 12_000)
    }
}
