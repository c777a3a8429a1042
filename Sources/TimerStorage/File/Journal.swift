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

/// The write-ahead journal: a file header, a ``JournalBegin`` record, the two ``CommitWitness``
/// slots (format 5), then change records appended in batches, one `pwrite` of the records, one
/// `pwrite` of a witness slot and one `fdatasync` per batch (group commit: every change of one
/// event-loop turn shares one `fdatasync`; why not `fsync`: ``FileIO/syncData(_:path:)``).
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
    /// Change records it holds (the begin record and the witness slots not counted).
    private(set) var recordCount: Int
    /// Where the first witness slot starts (the byte after the begin record); the second follows it.
    let witnessOffset: Int
    /// Where change records start: after the witness slots.
    var recordsStart: Int { witnessOffset + CommitWitness.areaSize }
    /// The witness of the last append (or of the creation).
    private(set) var witness: CommitWitness
    private var fd: Int32

    private init(
        path: String, begin: JournalBegin, version: UInt32, fd: Int32, size: Int, recordCount: Int,
        witnessOffset: Int, witness: CommitWitness
    ) {
        self.path = path
        self.begin = begin
        self.version = version
        self.fd = fd
        self.size = size
        self.recordCount = recordCount
        self.witnessOffset = witnessOffset
        self.witness = witness
    }

    deinit { Syscall.close(fd) }

    /// Creates an empty journal atomically, replacing any file at `path` (see
    /// ``FileIO/replaceAtomically(_:at:in:keepOpen:)``), and opens it for appending: the header,
    /// the begin record and both witness slots, which say the file's whole size is committed.
    ///
    /// - Parameters:
    ///   - path: the journal.
    ///   - directory: the directory holding it.
    ///   - begin: its begin record.
    ///   - nextID: the engine's next id now (written into the witness; default 1, the first id).
    /// - Throws: ``SystemError``.
    static func create(at path: String, in directory: String, begin: JournalBegin, nextID: UInt64 = 1) throws
        -> Journal
    {
        var bytes = RecordFormat.header(magic: RecordFormat.journalMagic)
        bytes += RecordFormat.record(.begin, payload: RecordPayload.encode(begin))
        let witnessOffset = bytes.count
        let length = UInt64(witnessOffset + CommitWitness.areaSize)
        let witness = CommitWitness(sequence: 1, committedLength: length, nextID: nextID)
        // Slot 0 holds sequence 0 and slot 1 sequence 1 (a witness goes to slot `sequence % 2`).
        bytes += CommitWitness(sequence: 0, committedLength: length, nextID: nextID).record + witness.record
        guard let fd = try FileIO.replaceAtomically(bytes, at: path, in: directory, keepOpen: true) else {
            throw SystemError("open \(path)", errno: EBADF)
        }
        return Journal(
            path: path, begin: begin, version: RecordFormat.version, fd: fd, size: bytes.count, recordCount: 0,
            witnessOffset: witnessOffset, witness: witness)
    }

    /// Opens a journal that ``recover(at:now:log:)`` found intact, to go on appending to it.
    ///
    /// - Parameters:
    ///   - path: the journal.
    ///   - recovered: what recovery found; it must be ``Recovered/isIntact`` and of format
    ///     ``RecordFormat/version`` (so with a witness), so that appended records follow whole ones
    ///     in the same format.
    /// - Throws: ``SystemError`` from `open` or `fstat`.
    static func reopen(at path: String, _ recovered: Recovered) throws -> Journal {
        guard recovered.isIntact, recovered.version == RecordFormat.version,
            let witnessOffset = recovered.witnessOffset,
            let witness = recovered.witness
        else {
            throw SystemError("reopen \(path): not an intact journal of format \(RecordFormat.version)", errno: EINVAL)
        }
        // Without O_APPEND: the witness slots are rewritten in place (FileIO.writeAll(_:_:at:path:)).
        let fd = try Syscall.retrying("open \(path)", { open(path, O_WRONLY | O_CLOEXEC) })
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = SystemError("fstat \(path)", errno: errno)
            Syscall.close(fd)
            throw error
        }
        return Journal(
            path: path, begin: recovered.begin, version: recovered.version, fd: fd, size: Int(info.st_size),
            recordCount: recovered.entries.count, witnessOffset: witnessOffset, witness: witness)
    }

    /// Appends `entries` with one `pwrite` at the end of the file, then rewrites the older witness
    /// slot with the new size and next id (``CommitWitness``), then, when `sync` is true, one
    /// `fdatasync`: when this returns, the records, the witness, the file's new size and every
    /// earlier unsynced batch are durable (it covers the whole file's data and the metadata needed
    /// to read it back, man fdatasync(2); only the timestamps are left to the kernel). The records are written before the witness, so
    /// a process killed in between leaves whole records past the witness's length (never
    /// acknowledged, replayed as found), never a witness past the records.
    ///
    /// On failure the file is cut back to its size before this batch (`ftruncate` frees space, so it
    /// works on a full disk) and the slot gets its old bytes back, so that a refused batch can never
    /// be read back; should that fail too, the next recovery cuts what it finds of the batch and
    /// reports the witness that runs past the records. The caller must not append again
    /// but start a new journal (``FileStore`` compacts).
    ///
    /// - Throws: ``SystemError`` from `write` or `fdatasync` (man fsync(2): after a failed
    ///   `fdatasync` the data's state is unknown).
    func append(_ entries: [JournalEntry], sync: Bool = true) throws {
        guard !entries.isEmpty else { return }
        var bytes: [UInt8] = []
        var nextID = witness.nextID
        for entry in entries {
            let (kind, payload) = RecordPayload.encode(entry)
            bytes += RecordFormat.record(kind, payload: payload)
            switch entry {
            case .timer(let record): nextID = max(nextID, record.id &+ 1)
            case .nextID(let id): nextID = max(nextID, id)
            case .removed: break
            }
        }
        let previous = witness
        let next = CommitWitness(
            sequence: previous.sequence + 1, committedLength: UInt64(size + bytes.count), nextID: nextID)
        let slot = witnessOffset + Int(next.sequence % 2) * CommitWitness.slotSize
        do {
            try FileIO.writeAll(fd, bytes, at: size, path: path)
            try FileIO.writeAll(fd, next.record, at: slot, path: path)
            if sync { try FileIO.syncData(fd, path: path) }
        } catch {
            // Give the slot a witness no newer than `previous` (it held sequence - 1, whose length is
            // at most previous's), so that the latest whole witness is `previous` again.
            let older = CommitWitness(
                sequence: previous.sequence &- 1, committedLength: previous.committedLength, nextID: previous.nextID)
            if ftruncate(fd, off_t(size)) == 0 {
                _ = try? FileIO.writeAll(fd, older.record, at: slot, path: path)
                _ = fdatasync(fd)
            }
            throw error
        }
        witness = next
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
        /// Whether the file was found whole: nothing cut off, skipped or unreadable, and (format 5)
        /// both witness slots whole, with every committed byte present.
        var isIntact = true
        /// Where the witness slots start (format 5), `nil` in an older file or when the file ends
        /// before them.
        var witnessOffset: Int?
        /// The latest whole witness (format 5): the last commit's length and next id, if either
        /// slot is whole.
        var witness: CommitWitness?
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
    /// - Format 5: when the records end before the latest witness's committed length, committed
    ///   records were cut (at a record boundary, where nothing else shows it, or inside a record);
    ///   a `WARNING:` line names both byte counts. A damaged or missing witness slot is reported
    ///   too. docs/durability.md, "The commit witness", says how this is classified.
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
        var witnesses: [CommitWitness] = []
        // Whether the witness slots no longer describe the file (a slot damaged, records cut).
        var isWitnessStale = false
        if version >= 5 {
            let area = offset..<offset + CommitWitness.areaSize
            recovered.witnessOffset = offset
            for slot in 0..<2 {
                let start = offset + slot * CommitWitness.slotSize
                if let witness = CommitWitness.read(bytes, at: start), witness.sequence % 2 == UInt64(slot) {
                    witnesses.append(witness)
                } else if bytes.count < start + CommitWitness.slotSize {
                    repairs.append(
                        "the file ends at byte \(bytes.count), inside its commit witness slots (bytes \(area.lowerBound)..<\(area.upperBound)): "
                            + "it was cut, and committed records may be lost")
                    break
                } else {
                    repairs.append(
                        "commit witness slot \(slot) (bytes \(start)..<\(start + CommitWitness.slotSize)) is damaged")
                }
            }
            recovered.witness = witnesses.max { $0.sequence < $1.sequence }
            offset = area.upperBound
            if !repairs.isEmpty { recovered.isIntact = false }
            isWitnessStale = !repairs.isEmpty
        }
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
                case .incomplete where offset < Int(clamping: recovered.witness?.committedLength ?? 0):
                    "incomplete last record at byte offset \(offset) (committed, as the commit witness says: cut after it was written, not torn by a crash)"
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
        if let witness = recovered.witness {
            let end = cutAt ?? bytes.count
            if end < Int(clamping: witness.committedLength) {
                recovered.isIntact = false
                isWitnessStale = true
                let older = witnesses.filter { $0.sequence < witness.sequence }.max { $0.sequence < $1.sequence }
                let why: String
                if let older, end >= Int(clamping: older.committedLength) {
                    why =
                        "only records of the last commit are missing: the file was cut after it was made durable "
                        + "(acknowledged changes lost), or the machine stopped during that commit's fsync (then they "
                        + "were never acknowledged)"
                } else {
                    why = "records of earlier, acknowledged commits are missing: acknowledged changes were lost"
                }
                repairs.append(
                    "its whole records end at byte \(end), but its commit witness says \(witness.committedLength) bytes "
                        + "were committed (\(Int(clamping: witness.committedLength) - end) bytes missing, next id "
                        + "\(witness.nextID)); \(why)")
            }
        }
        guard !repairs.isEmpty else { return recovered }
        let copy = try FileIO.copyAside(bytes, of: path, now: now)
        recovered.damagedCopy = copy
        if let cutAt { try FileIO.truncate(path, to: cutAt) }
        if isWitnessStale || cutAt != nil, let start = recovered.witnessOffset,
            bytes.count >= start + CommitWitness.areaSize
        {
            // The copy holds what was found; the file now says what it holds, with the begin
            // record's high-water mark as next id (at or above any id the cut or damaged records
            // held; a whole slot's, if higher), so that a restart before the store's compaction
            // neither reports this again nor hands out an id of a lost record (FileStore.load takes
            // the witness's next id).
            let sequence = recovered.witness?.sequence ?? 1
            let length = UInt64(cutAt ?? bytes.count)
            let nextID = max(witnesses.map(\.nextID).max() ?? 0, begin.idHighWater ?? 0)
            let rewritten = [sequence + 1, sequence + 2].map {
                CommitWitness(sequence: $0, committedLength: length, nextID: nextID)
            }
            let area = rewritten.sorted { $0.sequence % 2 < $1.sequence % 2 }.flatMap(\.record)
            try FileIO.overwrite(path, with: area, at: start)
            recovered.witness = rewritten[1]
        }
        for repair in repairs { log("WARNING: \(path): \(repair); the damaged file is kept as \(copy)") }
        return recovered
    }
}
