import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerStorage

/// A record with every optional set: a named, running group with an absolute deadline.
private let everything = TimerRecord(
    id: 0x0102_0304_0506_0708, name: "Tee 🍵", durations: [1.5, 300],
    segmentNanoseconds: [1_500_000_000, 300_000_000_000],
    state: .running, accumulatedNanoseconds: -7, runStart: BootInstant(nanoseconds: 123_456_789),
    runStartWall: Date(timeIntervalSince1970: 1_795_965_453.25),  // 2026-11-29T15:17:33.25Z
    createdAt: Date(timeIntervalSince1970: 1_795_965_400),  // 2026-11-29T15:16:40Z
    startedAt: Date(timeIntervalSince1970: 1_795_965_401),  // 2026-11-29T15:16:41Z
    endedAt: Date(timeIntervalSince1970: 1_795_965_999),  // 2026-11-29T15:26:39Z
    missed: true, owner: 4_000_000_000,
    wallDeadline: Date(timeIntervalSince1970: 1_795_966_000))  // 2026-11-29T15:26:40Z

/// A plain timer with every optional nil.
private let nothing = TimerRecord(
    id: 1, name: nil, durations: [60], segmentNanoseconds: [60_000_000_000], state: .stopped,
    accumulatedNanoseconds: 0, runStart: nil, runStartWall: nil,
    createdAt: Date(timeIntervalSince1970: 1_795_965_400),  // 2026-11-29T15:16:40Z
    startedAt: Date(timeIntervalSince1970: 1_795_965_400), endedAt: nil, missed: false, owner: 0, wallDeadline: nil)

private func decode(_ bytes: [UInt8]) throws(BinaryReader.Problem) -> TimerRecord {
    try BinaryReader.withReader(bytes[...]) { reader throws(BinaryReader.Problem) in
        let record = try TimerRecord(from: &reader)
        try reader.expectEnd()
        return record
    }
}

@Suite("TimerRecord's binary form round-trips every field and refuses damage without trapping")
struct TimerRecordBinaryCodingTests {
    @Test("Every field round-trips, with and without the optionals, in every state", arguments: TimerState.allCases)
    func roundTrip(state: TimerState) throws {
        for original in [everything, nothing] {
            var record = original
            record.state = state
            #expect(try decode(record.binaryEncoded) == record)
        }
        let decoded = try decode(nothing.binaryEncoded)
        #expect(decoded.name == nil && decoded.runStart == nil && decoded.runStartWall == nil)
        #expect(decoded.endedAt == nil && decoded.wallDeadline == nil && !decoded.missed)
        #expect(try decode(everything.binaryEncoded).durations == [1.5, 300])
    }

    @Test("Absent instants are zero bytes behind a clear presence bit, never a NaN")
    func absentIsZero() {
        let bytes = nothing.binaryEncoded
        // The fixed part, the segment count and one segment, and the extension trailer's count
        // (format 4): 70 + 4 + 16 + 4.
        #expect(bytes.count == TimerRecord.binaryFixedSize + 4 + 16 + 4)
        #expect(bytes[9] == 0)  // presence flags
        #expect(bytes[38..<70].allSatisfy { $0 == 0 })  // runStart, runStartWall, endedAt, wallDeadline
        for offset in stride(from: 22, to: 70, by: 8) {
            let bits = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
            #expect(!Double(bitPattern: bits).isNaN, "offset \(offset)")
        }
    }

    @Test("Every truncation of a record is a thrown error naming the field")
    func truncated() {
        let bytes = everything.binaryEncoded
        for length in 0..<bytes.count {
            #expect(throws: BinaryReader.Problem.self, "length \(length)") { try decode(Array(bytes.prefix(length))) }
        }
        #expect(throws: BinaryReader.Problem.truncated(field: "timer id", offset: 0, needed: 8)) { try decode([]) }
    }

    @Test("Values no writer produces are refused with the field and offset")
    func garbage() {
        var bytes = nothing.binaryEncoded
        bytes[8] = 9
        #expect(throws: BinaryReader.Problem.invalid(field: "timer state", offset: 8, reason: "unknown state code 9")) {
            try decode(bytes)
        }
        bytes = nothing.binaryEncoded
        bytes[9] = 0x80
        #expect(throws: BinaryReader.Problem.invalid(field: "timer flags", offset: 9, reason: "unknown flag bits 128"))
        {
            try decode(bytes)
        }
        bytes = nothing.binaryEncoded
        bytes.replaceSubrange(22..<30, with: withUnsafeBytes(of: Double.nan.bitPattern.littleEndian, Array.init))
        #expect(throws: BinaryReader.Problem.invalid(field: "timer createdAt", offset: 22, reason: "nan is not finite"))
        {
            try decode(bytes)
        }
        bytes = nothing.binaryEncoded
        bytes[70] = 0  // segment count 0
        #expect(throws: BinaryReader.Problem.self) { try decode(bytes) }
        bytes = everything.binaryEncoded
        bytes[74] = 0xFF  // the name's first UTF-8 byte
        #expect(
            throws: BinaryReader.Problem.invalid(field: "timer name", offset: 74, reason: "not valid UTF-8")
        ) { try decode(bytes) }
        // 94: the record's 94 bytes (absentIsZero) end where the extra byte starts.
        #expect(throws: BinaryReader.Problem.trailingBytes(offset: 94, count: 1)) {
            try decode(nothing.binaryEncoded + [0])
        }
    }

    @Test("A huge count in garbage is refused before anything is reserved")
    func hugeCount() {
        var bytes = nothing.binaryEncoded
        bytes.replaceSubrange(70..<74, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: BinaryReader.Problem.self) { try decode(bytes) }
    }

    @Test("Random bytes decode or throw, never trap (seeded)")
    func randomBytes() {
        var random = SplitMix64(seed: 20_261_129)
        func next() -> UInt64 { random.next() }
        let valid = everything.binaryEncoded
        for round in 0..<2_000 {
            var bytes = valid
            for _ in 0..<(1 + Int(next() % 4)) {
                bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
            }
            bytes = Array(bytes.prefix(Int(next() % UInt64(bytes.count + 1))))
            if let record = try? decode(bytes) {
                #expect(record.binaryEncoded == bytes, "seed 20261129, round \(round)")
            }
        }
    }

    @Test("An engine snapshot round-trips")
    func snapshot() throws {
        let snapshot = EngineSnapshot(nextID: 42, timers: [nothing, everything])
        var writer = BinaryWriter()
        snapshot.encode(to: &writer)
        let decoded = try BinaryReader.withReader(writer.bytes[...]) { reader throws(BinaryReader.Problem) in
            try EngineSnapshot(from: &reader)
        }
        #expect(decoded == snapshot)
    }
}
