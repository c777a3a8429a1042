import Countdown
import Foundation

/// The payloads of journal and snapshot records: what ``RecordFormat`` frames.
///
/// - Version 4 (written and read): as version 3, with each timer's extension trailer (the
///   on-finish action, tag 1; `TimerRecord+ExtensionCoding.swift`).
/// - Version 3 (read): binary, little-endian, fixed-width fields with length-prefixed
///   strings and arrays; a timer as `TimerRecord`'s binary form (`TimerRecord+BinaryCoding.swift`).
///   - begin: `generation` UInt64, then `bootID` as an optional string (a byte 0 for nil, or 1
///     and a UInt32 byte count and UTF-8), then `idHighWater` UInt64 (0 for none: a real mark is at least 1 + the reservation);
///   - timer: one timer;
///   - removed: a UInt32 count and that many UInt64 ids;
///   - nextID: one UInt64;
///   - snapshot: `bootID` as an optional string, `journalGeneration` UInt64, `idHighWater`
///     UInt64, then the `EngineSnapshot` (nextID UInt64, UInt32 count, the timers).
/// - Version 2 (read only): the same without the two `idHighWater` fields.
///
/// Each payload must be read to its last byte: trailing bytes are damage, like missing ones.
enum RecordPayload {
    /// Why a payload could not be decoded.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// A binary payload is truncated or holds garbage.
        case binary(BinaryReader.Problem)

        var description: String {
            switch self {
            case .binary(let problem): return "\(problem)"
            }
        }
    }

    // MARK: - Writing (format version 5)

    /// A begin record's payload.
    static func encode(_ begin: JournalBegin) -> [UInt8] {
        var writer = BinaryWriter(capacity: 64)
        writer.write(begin.generation)
        write(begin.bootID, to: &writer)
        writer.write(begin.idHighWater ?? 0)
        return writer.bytes
    }

    /// A change record's kind and payload.
    static func encode(_ entry: JournalEntry) -> (RecordKind, [UInt8]) {
        switch entry {
        case .timer(let record): return (.timer, record.binaryEncoded)
        case .removed(let ids):
            var writer = BinaryWriter(capacity: 4 + 8 * ids.count)
            writer.write(UInt32(ids.count))
            for id in ids { writer.write(id) }
            return (.removed, writer.bytes)
        case .nextID(let id):
            var writer = BinaryWriter(capacity: 8)
            writer.write(id)
            return (.nextID, writer.bytes)
        }
    }

    /// A snapshot record's payload.
    ///
    /// - Complexity: O(n) in the timers.
    static func encode(_ snapshot: SnapshotPayload) -> [UInt8] {
        var writer = BinaryWriter(capacity: 64 + snapshot.engine.timers.count * (TimerRecord.binaryFixedSize + 28))
        write(snapshot.bootID, to: &writer)
        writer.write(snapshot.journalGeneration)
        writer.write(snapshot.idHighWater ?? 0)
        snapshot.engine.encode(to: &writer)
        return writer.bytes
    }

    private static func write(_ string: String?, to writer: inout BinaryWriter) {
        if let string {
            writer.write(UInt8(1))
            writer.write(string)
        } else {
            writer.write(UInt8(0))
        }
    }

    // MARK: - Reading (format versions 2 to 5)

    /// Reads a begin record's payload of a file in format `version`.
    ///
    /// - Throws: ``Problem``.
    static func decodeBegin(_ payload: ArraySlice<UInt8>, version: UInt32 = RecordFormat.version) throws(Problem)
        -> JournalBegin
    {
        return try binary(payload) { reader throws(BinaryReader.Problem) in
            let generation = try reader.readUInt64("journal generation")
            let bootID = try readOptionalString("boot id", &reader)
            let highWater = version >= 3 ? try reader.readUInt64("id high-water mark") : 0
            return JournalBegin(generation: generation, bootID: bootID, idHighWater: highWater == 0 ? nil : highWater)
        }
    }

    /// Reads a change record's payload of kind `kind` (``RecordKind/timer``, ``RecordKind/removed``
    /// or ``RecordKind/nextID``).
    ///
    /// - Parameter version: the file's format version (a timer of version 4 has its extension trailer).
    /// - Throws: ``Problem``; `nil` for a kind that is no change.
    static func decodeEntry(_ kind: RecordKind, _ payload: ArraySlice<UInt8>, version: UInt32 = RecordFormat.version)
        throws(Problem) -> JournalEntry?
    {
        switch kind {
        case .timer:
            return .timer(
                try binary(payload) { reader throws(BinaryReader.Problem) in
                    try TimerRecord(from: &reader, version: version)
                })
        case .removed:
            return .removed(
                try binary(payload) { reader throws(BinaryReader.Problem) in
                    let count = try reader.readCount("removed count", elementSize: 8)
                    var ids: [UInt64] = []
                    ids.reserveCapacity(count)
                    for _ in 0..<count { ids.append(try reader.readUInt64("removed id")) }
                    return ids
                })
        case .nextID:
            return .nextID(
                try binary(payload) { reader throws(BinaryReader.Problem) in try reader.readUInt64("nextID") })
        case .begin, .snapshot, .witness: return nil
        }
    }

    /// Reads a snapshot record's payload.
    ///
    /// - Throws: ``Problem``.
    /// - Complexity: O(n) in the timers.
    static func decodeSnapshot(_ payload: ArraySlice<UInt8>, version: UInt32 = RecordFormat.version) throws(Problem)
        -> SnapshotPayload
    {
        return try binary(payload) { reader throws(BinaryReader.Problem) in
            let bootID = try readOptionalString("boot id", &reader)
            let generation = try reader.readUInt64("journal generation")
            let highWater = version >= 3 ? try reader.readUInt64("id high-water mark") : 0
            return SnapshotPayload(
                bootID: bootID, journalGeneration: generation, idHighWater: highWater == 0 ? nil : highWater,
                engine: try EngineSnapshot(from: &reader, version: version))
        }
    }

    private static func readOptionalString(_ field: String, _ reader: inout BinaryReader) throws(BinaryReader.Problem)
        -> String?
    {
        let offset = reader.offset
        switch try reader.readUInt8(field) {
        case 0: return nil
        case 1: return try reader.readString(field)
        case let other: throw .invalid(field: field, offset: offset, reason: "presence byte \(other), not 0 or 1")
        }
    }

    private static func binary<Value>(
        _ payload: ArraySlice<UInt8>, _ body: (inout BinaryReader) throws(BinaryReader.Problem) -> Value
    ) throws(Problem) -> Value {
        do {
            return try BinaryReader.withReader(payload) { reader throws(BinaryReader.Problem) in
                let value = try body(&reader)
                try reader.expectEnd()
                return value
            }
        } catch {
            throw .binary(error)
        }
    }
}
