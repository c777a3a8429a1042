import Countdown
import Foundation
import Glibc
import TimerSystem

/// The first record of every journal: which snapshot it follows and on which boot it was written.
struct JournalBegin: Equatable, Sendable {
    /// Matches the ``SnapshotPayload/journalGeneration`` of the snapshot this journal continues.
    var generation: UInt64
    /// `/proc/sys/kernel/random/boot_id` when the journal was created; boot-time instants in its
    /// records count from that boot.
    var bootID: String?
    /// Ids below this are the only ones this journal's records may hand out (format 3; `nil` in a
    /// version 2 file): the store reserves a block of ids when it creates the journal and starts a
    /// new journal before the engine passes the mark (``FileStore``), so that a damaged tail or
    /// middle can never lower what a restart knows about ids already handed out.
    var idHighWater: UInt64? = nil
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
/// starts a new one (``FileStore``).
final class Journal {
    /// The journal's path.
    let path: String
    /// Which snapshot it follows, and the boot it was written on.
    let begin: JournalBegin
    /// The format version of its records (``RecordFormat/version`` for every journal this code
    /// appends to).
    let version: UInt32
    /// Its size in bytes.
    private(set) var size: Int
    /// Change records it holds (the begin record not counted).
    private(set) var recordCount: Int
    private var fd: Int32

    private init(path: String, begin: JournalBegin, version: UInt32, fd: Int32, size: Int, recordCount: Int) {
        self.path = path
        self.begin = begin
        self.version = version
        self.fd = fd
        self.size = size
        self.recordCount = recordCount
    }

    deinit { Syscall.close(fd) }

    /// Creates an empty journal atomically, replacing any file at `path` (see
    /// ``FileIO/replaceAtomically(_:at:in:keepOpen:)``), and opens it for appending.
    ///
    /// - Throws: ``SystemError``.
    static func create(at path: String, in directory: String, begin: JournalBegin) throws -> Journal {
        var bytes = RecordFormat.header(magic: RecordFormat.journalMagic)
        bytes += RecordFormat.record(.begin, payload: RecordPayload.encode(begin))
        guard let fd = try FileIO.replaceAtomically(bytes, at: path, in: directory, keepOpen: true) else {
            throw SystemError("open \(path)", errno: EBADF)
        }
        return Journal(
            path: path, begin: begin, version: RecordFormat.version, fd: fd, size: bytes.count, recordCount: 0)
    }

    /// Opens a journal that ``recover(at:now:log:)`` found intact, to go on appending to it.
    ///
    /// - Parameters:
    ///   - path: the journal.
    ///   - recovered: what recovery found; it must be ``Recovered/isIntact`` and of format
    ///     ``RecordFormat/version``, so that appended records follow whole ones in the same format.
    /// - Throws: ``SystemError`` from `open` or `fstat`.
    static func reopen(at path: String, _ recovered: Recovered) throws -> Journal {
        precondition(recovered.isIntact && recovered.version == RecordFormat.version, "reopening a journal to rewrite")
        let fd = try Syscall.retrying("open \(path)", { open(path, O_WRONLY | O_APPEND | O_CLOEXEC) })
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError("fstat \(path)", errno: errno)
            Syscall.close(fd)
            throw error
        }
        return Journal(
            path: path, begin: recovered.begin, version: recovered.version, fd: fd, size: Int(info.st_size),
            recordCount: recovered.entries.count)
    }

    /// Appends `entries` with one `write` and, when `sync` is true, one `fsync`: then, when this
    /// returns, they and every earlier unsynced batch are durable (an `fsync` covers the whole file).
    ///
    /// On failure the file is cut back to its size before this batch (`ftruncate` frees space, so it
    /// works on a full disk), so that a refused batch can never be read back; should that fail
    /// too, the next recovery cuts what it finds of the batch. The caller must not append again
    /// but start a new journal (``FileStore`` compacts).
    ///
    /// - Throws: ``SystemError`` from `write` or `fsync` (man fsync(2): after a failed `fsync` the
    ///   data's state is unknown).
    func append(_ entries: [JournalEntry], sync: Bool = true) throws {
        guard !entries.isEmpty else { return }
        var bytes: [UInt8] = []
        for entry in entries {
            let (kind, payload) = RecordPayload.encode(entry)
            bytes += RecordFormat.record(kind, payload: payload)
        }
        do {
            try FileIO.writeAll(fd, bytes, path: path)
            if sync { try FileIO.sync(fd, path: path) }
        } catch {
            if ftruncate(fd, off_t(size)) == 0 { _ = fsync(fd) }
            throw error
        }
        size += bytes.count
        recordCount += entries.count
    }

    /// What recovery found in a journal.
    struct Recovered: Equatable {
        /// The journal's begin record.
        var begin: JournalBegin
        /// The file's format version.
        var version: UInt32 = RecordFormat.version
        /// Every intact change record, in order, including those after a damaged region.
        var entries: [JournalEntry]
        /// The index in ``entries`` of the first record after the first damaged region, if any:
        /// records from there on were replayed across a gap (docs/durability.md).
        var firstEntryAfterDamage: Int?
        /// Where the copy of the damaged file was written (`journal.damaged-<time>`), if anything
        /// was damaged.
        var damagedCopy: String?
        /// Whether the file was found whole: nothing cut off, skipped or unreadable.
        var isIntact = true
    }

    /// Reads the journal at `path`, keeping every intact record, and says what it repaired.
    ///
    /// Whenever anything is damaged, the whole file is first copied to `journal.damaged-<time>`
    /// (never deleted) and each repair is logged on a line starting `WARNING:`:
    /// - A torn tail (the file ends inside the last record: a write cut short by a crash, never
    ///   acknowledged because its `fsync` had not returned) is cut off.
    /// - A corrupt complete last record (all its bytes are there but its checksum fails: damage
    ///   after it was written, so it may have been acknowledged) is cut off too, with a line that
    ///   says an acknowledged change may be lost.
    /// - Damage in the middle (valid records follow it): the damaged bytes are skipped and reading
    ///   resumes at the next offset where a whole record with a matching checksum decodes
    ///   (resynchronisation). Records are self-contained (a timer whole, ids removed, the next id),
    ///   so each one after the gap is replayed as it stands; ``FileStore`` then settles what the
    ///   gap made inconsistent (docs/durability.md). The file is left in place for the store's
    ///   start-up compaction to replace.
    /// - A file without a valid header or begin record is moved aside the same way; `nil` is returned.
    ///
    /// A timer name (at most 64 characters of `A-Z a-z 0-9 . _ -`) cannot hold a whole record with
    /// its length, checksum and binary fields, so resynchronisation cannot be steered by a user.
    ///
    /// - Parameters:
    ///   - path: the journal.
    ///   - now: the time the damaged copy is named after.
    ///   - log: where warnings go.
    /// - Returns: the intact records, or `nil` when nothing in the file is usable.
    /// - Throws: ``SystemError`` when the file cannot be read, copied, truncated or renamed.
    /// - Complexity: O(n) in the file's size.
    static func recover(at path: String, now: Date, log: (String) -> Void) throws -> Recovered? {
        let bytes = try FileIO.readAll(path)
        func unusable(_ reason: String) throws -> Recovered? {
            let aside = try FileIO.moveAside(path, now: now)
            log("WARNING: \(path): \(reason); moved it to \(aside) and ignored it")
            return nil
        }
        let version: UInt32
        do {
            version = try RecordFormat.checkHeader(bytes, magic: RecordFormat.journalMagic)
        } catch {
            return try unusable("not a timerd journal (\(error))")
        }
        guard case .record(.begin, let payload, var offset) = RecordFormat.parse(bytes, at: RecordFormat.headerSize),
            let begin = try? RecordPayload.decodeBegin(payload, version: version)
        else {
            return try unusable("its first record (byte offset \(RecordFormat.headerSize)) is damaged")
        }
        func decode(_ parsed: RecordFormat.Parsed) -> (JournalEntry, next: Int)? {
            guard case .record(let kind, let payload, let next) = parsed,
                let entry = try? RecordPayload.decodeEntry(kind, payload, version: version)
            else { return nil }
            return (entry, next)
        }
        var recovered = Recovered(begin: begin, version: version, entries: [])
        var repairs: [String] = []
        var cutAt: Int?
        while offset < bytes.count {
            let parsed = RecordFormat.parse(bytes, at: offset)
            if let (entry, next) = decode(parsed) {
                recovered.entries.append(entry)
                offset = next
                continue
            }
            recovered.isIntact = false
            if let resume = RecordFormat.nextRecord(in: bytes, after: offset, where: { decode($0) != nil }) {
                recovered.firstEntryAfterDamage = recovered.firstEntryAfterDamage ?? recovered.entries.count
                repairs.append(
                    "damaged bytes \(offset)..<\(resume) (\(resume - offset) bytes) followed by intact records; "
                        + "skipped them after \(recovered.entries.count) records and replayed the intact records after them"
                )
                offset = resume
                continue
            }
            let kept = recovered.entries.count
            let what =
                switch parsed {
                case .incomplete: "incomplete last record at byte offset \(offset) (a write torn by a crash)"
                case .corrupt where RecordFormat.isComplete(bytes, at: offset):
                    "complete last record at byte offset \(offset) fails its checksum (damaged after it was written; an acknowledged change may be lost)"
                case .corrupt: "damaged last record at byte offset \(offset)"
                case .record: "undecodable last record at byte offset \(offset)"
                }
            repairs.append("\(what); truncated the file to \(offset) bytes, keeping \(kept) records")
            cutAt = offset
            break
        }
        guard !repairs.isEmpty else { return recovered }
        let copy = try FileIO.copyAside(bytes, of: path, now: now)
        recovered.damagedCopy = copy
        if let cutAt { try FileIO.truncate(path, to: cutAt) }
        for repair in repairs { log("WARNING: \(path): \(repair); the damaged file is kept as \(copy)") }
        return recovered
    }
}
