import Countdown
import Foundation
import Glibc
import TimerSystem

/// The first record of every journal: which snapshot it follows and on which boot it was written.
struct JournalBegin: Codable, Equatable, Sendable {
    /// Matches the ``SnapshotPayload/journalGeneration`` of the snapshot this journal continues.
    var generation: UInt64
    /// `/proc/sys/kernel/random/boot_id` when the journal was created; boot-time instants in its
    /// records count from that boot.
    var bootID: String?
}

/// One change in the journal.
enum JournalEntry: Equatable, Sendable {
    /// A timer as it is after a change (start, pause, resume, stop, finish, missed).
    case timer(TimerRecord)
    /// Timers dropped from the history.
    case removed([UInt64])
    /// The engine's next id.
    case nextID(UInt64)
}

/// The write-ahead journal: a file header, a ``JournalBegin`` record, then change records appended
/// in batches, one `write` and one `fsync` per batch (group commit: every change of one event-loop
/// turn shares one `fsync`).
///
/// Layout in ``RecordFormat``. A journal grows until the store compacts it into a snapshot and
/// starts a new one (``DurableStore``).
final class Journal {
    /// The journal's path.
    let path: String
    /// Which snapshot it follows, and the boot it was written on.
    let begin: JournalBegin
    /// Its size in bytes.
    private(set) var size: Int
    /// Change records it holds (the begin record not counted).
    private(set) var recordCount: Int
    private var fd: Int32

    private init(path: String, begin: JournalBegin, fd: Int32, size: Int, recordCount: Int) {
        self.path = path
        self.begin = begin
        self.fd = fd
        self.size = size
        self.recordCount = recordCount
    }

    deinit { Syscall.close(fd) }

    /// Creates an empty journal atomically, replacing any file at `path` (see
    /// ``FileIO/replaceAtomically(_:at:in:keepOpen:)``), and opens it for appending.
    ///
    /// - Throws: ``SystemError``; encoding errors.
    static func create(at path: String, in directory: String, begin: JournalBegin) throws -> Journal {
        var bytes = RecordFormat.header(magic: RecordFormat.journalMagic)
        bytes += RecordFormat.record(.begin, payload: Array(try JSONEncoder().encode(begin)))
        guard let fd = try FileIO.replaceAtomically(bytes, at: path, in: directory, keepOpen: true) else {
            throw SystemError("open \(path)", errno: EBADF)
        }
        return Journal(path: path, begin: begin, fd: fd, size: bytes.count, recordCount: 0)
    }

    /// Appends `entries` with one `write` and, when `sync` is true, one `fsync`: then, when this
    /// returns, they and every earlier unsynced batch are durable (an `fsync` covers the whole file).
    ///
    /// On failure the file may end in a torn batch; the caller must not append again but start a
    /// new journal (``DurableStore`` compacts), and the next recovery cuts the torn tail off.
    ///
    /// - Throws: ``SystemError`` from `write` or `fsync` (man fsync(2): after a failed `fsync` the
    ///   data's state is unknown), or an encoding error.
    func append(_ entries: [JournalEntry], sync: Bool = true) throws {
        guard !entries.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var bytes: [UInt8] = []
        for entry in entries {
            switch entry {
            case .timer(let record): bytes += RecordFormat.record(.timer, payload: Array(try encoder.encode(record)))
            case .removed(let ids): bytes += RecordFormat.record(.removed, payload: Array(try encoder.encode(ids)))
            case .nextID(let id): bytes += RecordFormat.record(.nextID, payload: Array(try encoder.encode(id)))
            }
        }
        try FileIO.writeAll(fd, bytes, path: path)
        if sync { try FileIO.sync(fd, path: path) }
        size += bytes.count
        recordCount += entries.count
    }

    /// What recovery found in a journal.
    struct Recovered: Equatable {
        /// The journal's begin record.
        var begin: JournalBegin
        /// Every intact change record before any damage, in order.
        var entries: [JournalEntry]
        /// Where the damaged file was moved, when damage in the middle made recovery move it aside.
        var movedTo: String?
    }

    /// Reads the journal at `path`, keeping every intact record.
    ///
    /// - A torn or corrupt tail (the last record incomplete, or with a bad checksum, and no valid
    ///   record after it) is cut off: the file is truncated there and a `warning:` line names the
    ///   file and the byte offset.
    /// - Damage in the middle (a bad record followed by valid ones) keeps the records before it,
    ///   moves the file to `journal.damaged-<timestamp>` and logs a line starting `WARNING:`.
    /// - A file without a valid header or begin record is moved aside the same way; `nil` is returned.
    ///
    /// - Parameters:
    ///   - path: the journal.
    ///   - now: the time the damaged file is named after.
    ///   - log: where warnings go.
    /// - Returns: the intact records, or `nil` when nothing in the file is usable.
    /// - Throws: ``SystemError`` when the file cannot be read, truncated or renamed.
    /// - Complexity: O(n) in the file's size.
    static func recover(at path: String, now: Date, log: (String) -> Void) throws -> Recovered? {
        let bytes = try FileIO.readAll(path)
        func unusable(_ reason: String) throws -> Recovered? {
            let aside = try FileIO.moveAside(path, now: now)
            log("WARNING: \(path): \(reason); moved it to \(aside) and ignored it")
            return nil
        }
        do {
            try RecordFormat.checkHeader(bytes, magic: RecordFormat.journalMagic)
        } catch {
            return try unusable("not a timerd journal (\(error))")
        }
        guard case .record(.begin, let payload, var offset) = RecordFormat.parse(bytes, at: RecordFormat.headerSize),
            let begin = try? JSONDecoder().decode(JournalBegin.self, from: Data(payload))
        else {
            return try unusable("its first record (byte offset \(RecordFormat.headerSize)) is damaged")
        }
        var recovered = Recovered(begin: begin, entries: [])
        let decoder = JSONDecoder()
        while offset < bytes.count {
            let parsed = RecordFormat.parse(bytes, at: offset)
            if case .record(let kind, let payload, let next) = parsed, let entry = Self.entry(kind, payload, decoder) {
                recovered.entries.append(entry)
                offset = next
                continue
            }
            let kept = recovered.entries.count
            if case .record = parsed {
                // An intact record this version cannot read: not a torn write, keep the file.
            } else if !RecordFormat.hasValidRecord(bytes, after: offset) {
                let what =
                    if case .incomplete = parsed {
                        "incomplete last record at byte offset \(offset)"
                    } else {
                        "bad checksum in the last record at byte offset \(offset)"
                    }
                try FileIO.truncate(path, to: offset)
                log("warning: \(path): \(what); truncated the file to \(offset) bytes, keeping \(kept) records")
                return recovered
            }
            let aside = try FileIO.moveAside(path, now: now)
            recovered.movedTo = aside
            log(
                "WARNING: \(path): damaged record at byte offset \(offset) followed by valid records; kept the \(kept) records before it and moved the file to \(aside)"
            )
            return recovered
        }
        return recovered
    }

    private static func entry(_ kind: RecordKind, _ payload: ArraySlice<UInt8>, _ decoder: JSONDecoder) -> JournalEntry?
    {
        let data = Data(payload)
        switch kind {
        case .timer: return (try? decoder.decode(TimerRecord.self, from: data)).map(JournalEntry.timer)
        case .removed: return (try? decoder.decode([UInt64].self, from: data)).map(JournalEntry.removed)
        case .nextID: return (try? decoder.decode(UInt64.self, from: data)).map(JournalEntry.nextID)
        case .begin, .snapshot: return nil
        }
    }
}
