import Countdown
import Foundation

/// The payload of the snapshot's single record.
struct SnapshotPayload: Equatable, Sendable {
    /// `/proc/sys/kernel/random/boot_id` when it was written: boot-time instants count from that boot.
    var bootID: String?
    /// The generation of the journal that continues this snapshot; an older journal is already
    /// contained in it and is ignored (a crash between writing the snapshot and the new journal).
    var journalGeneration: UInt64
    /// No id at or above this was handed out while this snapshot and its journal are the state: the
    /// ``JournalBegin/idHighWater`` of the journal it expects (format 3; `nil` when read from a
    /// version 2 file). Recovery that dropped records starts new ids here, so they are never reused.
    var idHighWater: UInt64?
    /// Every timer.
    var engine: EngineSnapshot
}

/// The snapshot: a file header and one ``RecordKind/snapshot`` record holding ``SnapshotPayload``
/// (binary, format version 3; ``RecordPayload``), replaced atomically
/// (write `snapshot.tmp`, `fsync`, `rename`, `fsync` the directory; man rename(2)). A leftover `snapshot.tmp` from a crash is never read.
enum SnapshotFile {
    /// Why a snapshot could not be read.
    enum Problem: Error, CustomStringConvertible {
        /// The header is wrong.
        case header(RecordFormat.HeaderProblem)
        /// The record is missing, torn or fails its checksum.
        case damagedRecord
        /// The record is intact but its payload does not decode.
        case undecodable(RecordPayload.Problem)

        var description: String {
            switch self {
            case .header(let problem): return "\(problem)"
            case .damagedRecord: return "its record is incomplete or fails its checksum"
            case .undecodable(let reason): return "its content does not decode: \(reason)"
            }
        }
    }

    /// Writes `payload` to `path` atomically.
    ///
    /// - Throws: ``SystemError``; the old snapshot is then intact.
    /// - Complexity: O(n) in the timers.
    static func write(_ payload: SnapshotPayload, to path: String, in directory: String) throws {
        var bytes = RecordFormat.header(magic: RecordFormat.snapshotMagic)
        bytes += RecordFormat.record(.snapshot, payload: RecordPayload.encode(payload))
        try FileIO.replaceAtomically(bytes, at: path, in: directory)
    }

    /// Reads the snapshot at `path`.
    ///
    /// - Returns: the payload, and the file's format version (one of ``RecordFormat/readableVersions``).
    /// - Throws: ``SystemError`` when it cannot be read; ``Problem`` when it is damaged.
    /// - Complexity: O(n) in the timers.
    static func read(_ path: String) throws -> (payload: SnapshotPayload, version: UInt32) {
        let bytes = try FileIO.readAll(path)
        let version: UInt32
        do {
            version = try RecordFormat.checkHeader(bytes, magic: RecordFormat.snapshotMagic)
        } catch {
            throw Problem.header(error)
        }
        guard case .record(.snapshot, let payload, let next) = RecordFormat.parse(bytes, at: RecordFormat.headerSize),
            next == bytes.count
        else { throw Problem.damagedRecord }
        do {
            return (try RecordPayload.decodeSnapshot(payload, version: version), version)
        } catch {
            throw Problem.undecodable(error)
        }
    }
}
