import Countdown
import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The binary form of a record, as timerd's snapshot and journal (format versions 2 to 4) store it.
// All integers little-endian; instants as the IEEE 754 bits of seconds since 2001-01-01 (Date's
// reference date); nil optionals are a clear presence bit and zero bytes, never a NaN.
//
// | bytes | field |
// |---|---|
// | 0–7 | id, UInt64 |
// | 8 | state: 0 running, 1 paused, 2 finished, 3 stopped, 4 pending, 5 ringing |
// | 9 | presence flags: 1 missed, 2 name, 4 runStart, 8 runStartWall, 16 endedAt, 32 wallDeadline |
// | 10–13 | owner, UInt32 |
// | 14–21 | accumulatedNanoseconds, Int64 |
// | 22–29 | createdAt, Double |
// | 30–37 | startedAt, Double |
// | 38–45 | runStart, Int64 nanoseconds of boot time (0 when absent) |
// | 46–53 | runStartWall, Double (0 when absent) |
// | 54–61 | endedAt, Double (0 when absent) |
// | 62–69 | wallDeadline, Double (0 when absent) |
// | 70… | name when present: UInt32 byte count and UTF-8 |
// | … | segments: UInt32 count (≥ 1), then per segment Double seconds and Int64 nanoseconds |
// | … | format 4 only: the extension trailer (TimerRecord+ExtensionCoding.swift): UInt32 count, then per extension UInt16 tag, UInt32 byte length, bytes |
extension TimerRecord {
    /// The fixed-width part of the binary form, in bytes.
    package static let binaryFixedSize = 70

    private enum Flag {
        static let missed: UInt8 = 1
        static let name: UInt8 = 2
        static let runStart: UInt8 = 4
        static let runStartWall: UInt8 = 8
        static let endedAt: UInt8 = 16
        static let wallDeadline: UInt8 = 32
        static let all: UInt8 = 63
    }

    private static let stateCodes: [TimerState] = [.running, .paused, .finished, .stopped, .pending, .ringing]

    private static func code(of state: TimerState) -> UInt8 {
        switch state {
        case .running: return 0
        case .paused: return 1
        case .finished: return 2
        case .stopped: return 3
        case .pending: return 4
        case .ringing: return 5
        }
    }

    /// Appends the record's binary form (the table above) to `writer`.
    ///
    /// - Parameter writer: where the bytes go.
    package func encode(to writer: inout BinaryWriter) {
        let runStart = self.runStart
        let runStartWall = self.runStartWall
        let endedAt = self.endedAt
        let wallDeadline = self.wallDeadline
        var flags: UInt8 = missed ? Flag.missed : 0
        if name != nil { flags |= Flag.name }
        if runStart != nil { flags |= Flag.runStart }
        if runStartWall != nil { flags |= Flag.runStartWall }
        if endedAt != nil { flags |= Flag.endedAt }
        if wallDeadline != nil { flags |= Flag.wallDeadline }
        writer.write(id)
        writer.write(Self.code(of: state))
        writer.write(flags)
        writer.write(owner)
        writer.write(accumulatedNanoseconds)
        writer.write(createdAt.timeIntervalSinceReferenceDate)
        writer.write(startedAt.timeIntervalSinceReferenceDate)
        writer.write(runStart?.nanoseconds ?? 0)
        writer.write(runStartWall?.timeIntervalSinceReferenceDate ?? 0)
        writer.write(endedAt?.timeIntervalSinceReferenceDate ?? 0)
        writer.write(wallDeadline?.timeIntervalSinceReferenceDate ?? 0)
        if let name { writer.write(name) }
        switch segments {
        case .single(let seconds, let nanoseconds):
            writer.write(UInt32(1))
            writer.write(seconds)
            writer.write(nanoseconds)
        case .group(let seconds, let nanoseconds):
            writer.write(UInt32(seconds.count))
            for (seconds, nanoseconds) in zip(seconds, nanoseconds) {
                writer.write(seconds)
                writer.write(nanoseconds)
            }
        }
        encodeExtensions(to: &writer)
    }

    /// The record's binary form on its own.
    package var binaryEncoded: [UInt8] {
        var writer = BinaryWriter(capacity: Self.binaryFixedSize + 24)
        encode(to: &writer)
        return writer.bytes
    }

    /// Reads one record's binary form (the table above) from `reader`.
    ///
    /// - Parameters:
    ///   - reader: positioned at the record; left after it.
    ///   - version: the format version of the file it comes from: 4 has the extension trailer,
    ///     2 and 3 have none (the record then has no extensions).
    /// - Throws: ``BinaryReader/Problem`` when the bytes end early or hold a value no writer
    ///   produces (an unknown state or flag, a NaN or infinite instant, no segments, invalid UTF-8,
    ///   a damaged extension).
    package init(from reader: inout BinaryReader, version: UInt32 = 4) throws(BinaryReader.Problem) {
        let id = try reader.readUInt64("timer id")
        let stateOffset = reader.offset
        let stateCode = Int(try reader.readUInt8("timer state"))
        guard stateCode < Self.stateCodes.count else {
            throw .invalid(field: "timer state", offset: stateOffset, reason: "unknown state code \(stateCode)")
        }
        let flagsOffset = reader.offset
        let flags = try reader.readUInt8("timer flags")
        guard flags & ~Flag.all == 0 else {
            throw .invalid(field: "timer flags", offset: flagsOffset, reason: "unknown flag bits \(flags & ~Flag.all)")
        }
        let owner = try reader.readUInt32("timer owner")
        let accumulated = try reader.readInt64("timer accumulatedNanoseconds")
        let createdAt = try reader.readFiniteDouble("timer createdAt")
        let startedAt = try reader.readFiniteDouble("timer startedAt")
        let runStart = try reader.readInt64("timer runStart")
        let runStartWall = try reader.readFiniteDouble("timer runStartWall")
        let endedAt = try reader.readFiniteDouble("timer endedAt")
        let wallDeadline = try reader.readFiniteDouble("timer wallDeadline")
        let name = flags & Flag.name != 0 ? try reader.readString("timer name") : nil
        let countOffset = reader.offset
        let count = try reader.readCount("timer segments", elementSize: 16)
        guard count >= 1 else {
            throw .invalid(field: "timer segments", offset: countOffset, reason: "a timer has at least one duration")
        }
        let segments: Segments
        if count == 1 {
            let seconds = try reader.readFiniteDouble("timer duration")
            segments = .single(seconds: seconds, nanoseconds: try reader.readInt64("timer segment nanoseconds"))
        } else {
            var seconds: [Double] = []
            var nanoseconds: [Int64] = []
            seconds.reserveCapacity(count)
            nanoseconds.reserveCapacity(count)
            for _ in 0..<count {
                seconds.append(try reader.readFiniteDouble("timer duration"))
                nanoseconds.append(try reader.readInt64("timer segment nanoseconds"))
            }
            segments = .group(seconds: seconds, nanoseconds: nanoseconds)
        }
        // Built in one go from its segments (no placeholder record whose durations are replaced).
        self.init(
            id: id, name: name, segments: segments, state: Self.stateCodes[stateCode],
            accumulatedNanoseconds: accumulated,
            runStart: flags & Flag.runStart != 0 ? BootInstant(nanoseconds: runStart) : nil,
            runStartWall: flags & Flag.runStartWall != 0 ? Date(timeIntervalSinceReferenceDate: runStartWall) : nil,
            createdAt: Date(timeIntervalSinceReferenceDate: createdAt),
            startedAt: Date(timeIntervalSinceReferenceDate: startedAt),
            endedAt: flags & Flag.endedAt != 0 ? Date(timeIntervalSinceReferenceDate: endedAt) : nil,
            missed: flags & Flag.missed != 0, owner: owner,
            wallDeadline: flags & Flag.wallDeadline != 0 ? Date(timeIntervalSinceReferenceDate: wallDeadline) : nil)
        if version >= 4 { extensions = try Self.decodeExtensions(from: &reader) }
    }
}

extension EngineSnapshot {
    /// Appends the binary form: `nextID` (UInt64), a UInt32 timer count, then each timer's binary
    /// form (``TimerRecord/encode(to:)``).
    ///
    /// - Parameter writer: where the bytes go.
    /// - Complexity: O(n) in the timers.
    package func encode(to writer: inout BinaryWriter) {
        writer.write(nextID)
        writer.write(UInt32(timers.count))
        for timer in timers { timer.encode(to: &writer) }
    }

    /// Reads the binary form ``encode(to:)`` writes.
    ///
    /// - Parameters:
    ///   - reader: positioned at the snapshot; left after it.
    ///   - version: the file's format version (records of version 4 carry extensions).
    /// - Throws: ``BinaryReader/Problem``.
    /// - Complexity: O(n) in the timers.
    package init(from reader: inout BinaryReader, version: UInt32 = 4) throws(BinaryReader.Problem) {
        let nextID = try reader.readUInt64("nextID")
        let count = try reader.readCount("timer count", elementSize: TimerRecord.binaryFixedSize + 4)
        var timers: [TimerRecord] = []
        timers.reserveCapacity(count)
        for _ in 0..<count { timers.append(try TimerRecord(from: &reader, version: version)) }
        self.init(nextID: nextID, timers: timers)
    }
}
