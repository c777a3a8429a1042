import Countdown
import Foundation

/// The payload of the snapshot's single record.
struct SnapshotPayload: Codable, Equatable, Sendable {
    /// `/proc/sys/kernel/random/boot_id` when it was written: boot-time instants count from that boot.
    var bootID: String?
    /// The generation of the journal that continues this snapshot; an older journal is already
    /// contained in it and is ignored (a crash between writing the snapshot and the new journal).
    var journalGeneration: UInt64
    /// Every timer.
    var engine: EngineSnapshot
}

/// The snapshot: a file header and one ``RecordKind/snapshot`` record holding ``SnapshotPayload``
/// as JSON, replaced atomically (write `snapshot.tmp`, `fsync`, `rename`, `fsync` the directory;
/// man rename(2)). A leftover `snapshot.tmp` from a crash is never read.
enum SnapshotFile {
    /// Why a snapshot could not be read.
    enum Problem: Error, CustomStringConvertible {
        /// The header is wrong.
        case header(RecordFormat.HeaderProblem)
        /// The record is missing, torn or fails its checksum.
        case damagedRecord
        /// The record is intact but its JSON does not decode.
        case undecodable(String)

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
    /// - Throws: ``SystemError``; encoding errors. The old snapshot is then intact.
    static func write(_ payload: SnapshotPayload, to path: String, in directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var bytes = RecordFormat.header(magic: RecordFormat.snapshotMagic)
        bytes += RecordFormat.record(.snapshot, payload: Array(try encoder.encode(payload)))
        try FileIO.replaceAtomically(bytes, at: path, in: directory)
    }

    /// Reads the snapshot at `path`.
    ///
    /// - Throws: ``SystemError`` when it cannot be read; ``Problem`` when it is damaged.
    static func read(_ path: String) throws -> SnapshotPayload {
        let bytes = try FileIO.readAll(path)
        do {
            try RecordFormat.checkHeader(bytes, magic: RecordFormat.snapshotMagic)
        } catch {
            throw Problem.header(error)
        }
        guard case .record(.snapshot, let payload, let next) = RecordFormat.parse(bytes, at: RecordFormat.headerSize),
            next == bytes.count
        else { throw Problem.damagedRecord }
        do {
            return try JSONDecoder().decode(SnapshotPayload.self, from: Data(payload))
        } catch {
            throw Problem.undecodable("\(error)")
        }
    }
}
