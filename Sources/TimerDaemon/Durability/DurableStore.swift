import Countdown
import Foundation
import Glibc
import TimerSystem

/// The daemon's durable state: a snapshot plus a write-ahead journal of the changes since.
///
/// - Files in the state directory: `snapshot` (every timer, replaced atomically) and `journal`
///   (each timer as it is after a change; ``Journal``). Layout in ``RecordFormat``.
/// - ``commit(_:snapshot:)`` appends one event-loop turn's changes with one `fsync`; the daemon
///   calls it before it sends that turn's replies, so a change is durable before it is acknowledged.
/// - ``compactIfDue(snapshot:)``: past ``journalMaximumBytes`` or ``journalMaximumRecords`` the
///   state is written as a new snapshot and a new, empty journal is started; so also at start-up
///   (after recovery) and at clean shutdown (``compact(_:)``).
/// - ``load(log:)``: snapshot, then the journal replayed over it. A `state.json` from an older
///   timerd is imported when there is no snapshot, and renamed `state.json.imported` afterwards.
final class DurableStore {
    /// The state directory.
    let directory: String
    /// This boot's id (``BootID/current()``), written into snapshots and journals.
    let bootID: String?
    /// Compact once the journal is this many bytes (default 4 MiB).
    let journalMaximumBytes: Int
    /// Compact once the journal holds this many change records (default 10,000).
    let journalMaximumRecords: Int

    private var journal: Journal?
    private var generation: UInt64 = 0
    private var needsCompaction = true
    private var journaledNextID: UInt64 = 0
    private var importedLegacyFile = false

    /// `directory/snapshot`.
    var snapshotPath: String { directory + "/snapshot" }
    /// `directory/journal`.
    var journalPath: String { directory + "/journal" }
    /// `directory/state.json`, the single file of timerd before the journal.
    var legacyPath: String { directory + "/state.json" }

    /// Creates a store over `directory` (which must exist); nothing is read or written yet.
    init(directory: String, bootID: String?, journalMaximumBytes: Int = 4 << 20, journalMaximumRecords: Int = 10_000) {
        self.directory = directory
        self.bootID = bootID
        self.journalMaximumBytes = journalMaximumBytes
        self.journalMaximumRecords = journalMaximumRecords
    }

    /// What ``load(log:)`` found.
    struct Loaded {
        /// Every timer: the snapshot with the journal replayed over it.
        var snapshot: EngineSnapshot
        /// Whether the state was written on this boot (same boot id), so boot-time instants still hold.
        var isSameBoot: Bool
        /// Whether anything was found at all.
        var isEmpty: Bool
    }

    /// Reads the snapshot and replays the journal over it, repairing what recovery repairs (see
    /// ``Journal/recover(at:now:log:)``). A damaged snapshot is moved aside with a `WARNING:` line,
    /// and the journal alone is replayed. The caller restores the engine and then calls
    /// ``compact(_:)``, which writes a fresh snapshot and journal.
    ///
    /// - Throws: ``SystemError`` when a file cannot be read, truncated or moved.
    func load(now: Date = Date(), log: (String) -> Void) throws -> Loaded {
        var timers: [UInt64: TimerRecord] = [:]
        var nextID: UInt64 = 1
        var stateBootID: String?
        var snapshotGeneration: UInt64?
        var found = false
        if FileIO.exists(snapshotPath) {
            do {
                let payload = try SnapshotFile.read(snapshotPath)
                for record in payload.engine.timers { timers[record.id] = record }
                nextID = payload.engine.nextID
                stateBootID = payload.bootID
                snapshotGeneration = payload.journalGeneration
                generation = payload.journalGeneration
                found = true
            } catch let problem as SnapshotFile.Problem {
                let aside = try FileIO.moveAside(snapshotPath, now: now)
                log(
                    "WARNING: \(snapshotPath): unreadable snapshot (\(problem)); moved it to \(aside); using the journal alone"
                )
            }
        } else if FileIO.exists(legacyPath), let legacy = StateStore(directory: directory).load(warn: log) {
            for record in legacy.engine.timers { timers[record.id] = record }
            nextID = legacy.engine.nextID
            stateBootID = legacy.bootID
            importedLegacyFile = true
            found = true
            log("importing \(legacyPath) from an older timerd")
        }
        if FileIO.exists(journalPath), let recovered = try Journal.recover(at: journalPath, now: now, log: log) {
            if let snapshotGeneration, recovered.begin.generation < snapshotGeneration {
                log(
                    "ignored \(journalPath): generation \(recovered.begin.generation) is already in the snapshot (generation \(snapshotGeneration))"
                )
            } else {
                for entry in recovered.entries {
                    switch entry {
                    case .timer(let record):
                        timers[record.id] = record
                        nextID = max(nextID, record.id + 1)
                    case .removed(let ids):
                        for id in ids { timers[id] = nil }
                    case .nextID(let id):
                        nextID = max(nextID, id)
                    }
                }
                stateBootID = recovered.begin.bootID
                generation = max(generation, recovered.begin.generation)
                found = true
            }
        }
        let snapshot = EngineSnapshot(nextID: nextID, timers: timers.values.sorted { $0.id < $1.id })
        return Loaded(
            snapshot: snapshot, isSameBoot: stateBootID != nil && stateBootID == bootID, isEmpty: !found)
    }

    /// Makes one turn's changes durable: appends them to the journal with one `fsync`.
    ///
    /// With `sync: false` the records are written but not `fsync`'ed; the next synced commit (or
    /// compaction) makes them durable. The daemon does this for turns whose only changes are timers
    /// finishing on their own: nothing was acknowledged, and a finish lost to a crash is re-derived
    /// from the deadline at the next start, so firing does not wait for the disk.
    ///
    /// After an earlier failure, or before the first ``compact(_:)``, it writes a whole snapshot
    /// instead (from `snapshot`, evaluated only then): a journal whose `fsync` failed is not trusted.
    ///
    /// - Parameters:
    ///   - changes: what changed (``TimerEngine/takeChanges()``).
    ///   - sync: whether to `fsync` (default true).
    ///   - snapshot: the whole state now.
    /// - Throws: ``SystemError`` or an encoding error: the changes may not be durable; the next
    ///   commit compacts.
    func commit(_ changes: EngineChanges, sync: Bool = true, snapshot: () -> EngineSnapshot) throws {
        guard !needsCompaction, let journal else {
            try compact(snapshot())
            return
        }
        var entries = changes.updated.map(JournalEntry.timer)
        var removed = changes.removed[...]
        while !removed.isEmpty {
            entries.append(.removed(Array(removed.prefix(10_000))))
            removed = removed.dropFirst(10_000)
        }
        if changes.nextID > journaledNextID { entries.append(.nextID(changes.nextID)) }
        guard !entries.isEmpty else { return }
        do {
            try journal.append(entries, sync: sync)
        } catch {
            needsCompaction = true
            throw error
        }
        journaledNextID = max(journaledNextID, changes.nextID)
    }

    /// Compacts when the journal has grown past ``journalMaximumBytes`` or ``journalMaximumRecords``.
    ///
    /// - Parameter snapshot: the whole state now, evaluated only when compacting.
    /// - Returns: whether it compacted.
    /// - Throws: what ``compact(_:)`` throws; the journal then goes on growing and the next call retries.
    @discardableResult
    func compactIfDue(snapshot: () -> EngineSnapshot) throws -> Bool {
        guard let journal, journal.size >= journalMaximumBytes || journal.recordCount >= journalMaximumRecords else {
            return false
        }
        try compact(snapshot())
        return true
    }

    /// Writes `snapshot` atomically as the new snapshot, then starts a new, empty journal.
    ///
    /// A crash in between leaves the new snapshot and the old journal, whose older generation
    /// makes the next ``load(log:)`` ignore it.
    ///
    /// - Throws: ``SystemError`` or an encoding error; the next ``commit(_:snapshot:)`` retries.
    func compact(_ snapshot: EngineSnapshot) throws {
        needsCompaction = true
        let next = generation + 1
        try SnapshotFile.write(
            SnapshotPayload(bootID: bootID, journalGeneration: next, engine: snapshot), to: snapshotPath, in: directory)
        generation = next
        journal = nil
        journal = try Journal.create(
            at: journalPath, in: directory, begin: JournalBegin(generation: next, bootID: bootID))
        journaledNextID = snapshot.nextID
        needsCompaction = false
        if importedLegacyFile, rename(legacyPath, legacyPath + ".imported") == 0 { importedLegacyFile = false }
    }

    /// The current journal's size in bytes and change records, for tests and logs.
    var journalSize: (bytes: Int, records: Int)? { journal.map { ($0.size, $0.recordCount) } }
}
