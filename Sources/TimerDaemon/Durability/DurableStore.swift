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
/// - ``compactIfDue(isQuiet:snapshot:)``: past ``journalMaximumBytes`` or ``journalMaximumRecords``
///   the state is written as a new snapshot and a new, empty journal is started, when the caller
///   is quiet, or at once past 4 times those limits; so also at clean shutdown (``compact(_:)``).
/// - ``open(restoring:snapshot:)`` at start-up goes on appending to an intact journal of this boot
///   and format and compacts only when recovery repaired something, the files are of an older
///   format or boot, or the journal is past its limits.
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
    /// Why ``open(restoring:snapshot:)`` must compact (nil: it may reuse `reusableJournal`).
    private var startupCompactionReason: String? = "nothing loaded"
    /// The journal ``load(now:log:)`` found intact, to go on appending to.
    private var reusableJournal: Journal.Recovered?

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
    /// ``open(restoring:snapshot:)``.
    ///
    /// - Throws: ``SystemError`` when a file cannot be read, truncated or moved.
    /// - Complexity: O(n + k log k) for n timers in the snapshot and k journal records.
    func load(now: Date = Date(), log: (String) -> Void) throws -> Loaded {
        var timers: [TimerRecord] = []
        var nextID: UInt64 = 1
        var stateBootID: String?
        var snapshotGeneration: UInt64?
        var found = false
        var compactionReason: String?
        reusableJournal = nil
        if FileIO.exists(snapshotPath) {
            do {
                let (payload, version) = try SnapshotFile.read(snapshotPath)
                timers = payload.engine.timers
                nextID = payload.engine.nextID
                stateBootID = payload.bootID
                snapshotGeneration = payload.journalGeneration
                generation = payload.journalGeneration
                found = true
                if version != RecordFormat.version { compactionReason = "snapshot in format version \(version)" }
            } catch let problem as SnapshotFile.Problem {
                let aside = try FileIO.moveAside(snapshotPath, now: now)
                log(
                    "WARNING: \(snapshotPath): unreadable snapshot (\(problem)); moved it to \(aside); using the journal alone"
                )
                compactionReason = "damaged snapshot"
            }
        } else if FileIO.exists(legacyPath), let legacy = StateStore(directory: directory).load(warn: log) {
            timers = legacy.engine.timers
            nextID = legacy.engine.nextID
            stateBootID = legacy.bootID
            importedLegacyFile = true
            found = true
            compactionReason = "imported \(legacyPath)"
            log("importing \(legacyPath) from an older timerd")
        } else {
            compactionReason = "no snapshot"
        }
        let hasJournal = FileIO.exists(journalPath)
        if hasJournal, let recovered = try Journal.recover(at: journalPath, now: now, log: log) {
            if let snapshotGeneration, recovered.begin.generation < snapshotGeneration {
                log(
                    "ignored \(journalPath): generation \(recovered.begin.generation) is already in the snapshot (generation \(snapshotGeneration))"
                )
                compactionReason = compactionReason ?? "stale journal"
            } else {
                timers = Self.replay(recovered.entries, over: timers, nextID: &nextID)
                stateBootID = recovered.begin.bootID
                generation = max(generation, recovered.begin.generation)
                found = true
                if !recovered.isIntact {
                    compactionReason = compactionReason ?? "repaired journal"
                } else if recovered.version != RecordFormat.version {
                    compactionReason = compactionReason ?? "journal in format version \(recovered.version)"
                } else if recovered.begin.generation != snapshotGeneration {
                    compactionReason = compactionReason ?? "journal of another generation"
                } else {
                    reusableJournal = recovered
                }
            }
        } else if hasJournal {
            compactionReason = compactionReason ?? "unusable journal"
        }
        let isSameBoot = stateBootID != nil && stateBootID == bootID
        if !isSameBoot { compactionReason = compactionReason ?? "another boot" }
        startupCompactionReason = compactionReason
        journaledNextID = nextID
        return Loaded(
            snapshot: EngineSnapshot(nextID: nextID, timers: timers), isSameBoot: isSameBoot, isEmpty: !found)
    }

    /// `timers` (by ascending id) with the journal's `entries` applied in order, still by ascending id.
    ///
    /// - Complexity: O(n + k log k) for n timers and k entries.
    private static func replay(_ entries: [JournalEntry], over timers: [TimerRecord], nextID: inout UInt64)
        -> [TimerRecord]
    {
        var timers = timers
        if !timers.indices.dropFirst().allSatisfy({ timers[$0 - 1].id < timers[$0].id }) {
            timers.sort { $0.id < $1.id }
        }
        guard !entries.isEmpty else { return timers }
        // The last word of the journal on each id: the timer as it is now, or nil once removed.
        var latest: [UInt64: TimerRecord?] = [:]
        for entry in entries {
            switch entry {
            case .timer(let record):
                latest[record.id] = .some(record)
                nextID = max(nextID, record.id + 1)
            case .removed(let ids):
                for id in ids { latest[id] = .some(nil) }
            case .nextID(let id):
                nextID = max(nextID, id)
            }
        }
        var merged: [TimerRecord] = []
        merged.reserveCapacity(timers.count + latest.count)
        for record in timers {
            if let change = latest.removeValue(forKey: record.id) {
                if let change { merged.append(change) }
            } else {
                merged.append(record)
            }
        }
        let added = latest.values.compactMap { $0 }.sorted { $0.id < $1.id }
        if let first = added.first, let last = merged.last, first.id < last.id {
            merged += added
            merged.sort { $0.id < $1.id }
        } else {
            merged += added
        }
        return merged
    }

    /// Starts writing after ``load(now:log:)`` and the engine's restore: journals what the restore
    /// changed (timers finished as missed …) with one `fsync` and goes on appending to the journal
    /// found, unless start-up must compact: when recovery repaired or ignored something, a file is
    /// of an older format or boot, a legacy `state.json` was imported, or the journal is past its
    /// limits. Then it writes a fresh snapshot and an empty journal (``compact(_:)``).
    ///
    /// - Parameters:
    ///   - changes: what the engine's restore changed (``TimerEngine/takeChanges()``).
    ///   - snapshot: the whole state now, evaluated only when compacting.
    /// - Returns: whether it compacted.
    /// - Throws: ``SystemError``.
    @discardableResult
    func open(restoring changes: EngineChanges, snapshot: () -> EngineSnapshot) throws -> Bool {
        if startupCompactionReason == nil {
            do {
                if let reusableJournal {
                    journal = try Journal.reopen(at: journalPath, reusableJournal)
                } else {
                    journal = try Journal.create(
                        at: journalPath, in: directory, begin: JournalBegin(generation: generation, bootID: bootID))
                }
                needsCompaction = false
            } catch {
                journal = nil
            }
        }
        reusableJournal = nil
        startupCompactionReason = nil
        guard !needsCompaction else {
            try compact(snapshot())
            return true
        }
        try commit(changes, snapshot: snapshot)
        return try compactIfDue(snapshot: snapshot)
    }

    /// Makes one turn's changes durable: appends them to the journal with one `fsync`.
    ///
    /// With `sync: false` the records are written but not `fsync`'ed; the next synced commit (or
    /// compaction) makes them durable. The daemon does this for turns whose only changes are timers
    /// finishing on their own: nothing was acknowledged, and a finish lost to a crash is re-derived
    /// from the deadline at the next start, so firing does not wait for the disk.
    ///
    /// After an earlier failure, or before ``open(restoring:snapshot:)``, it writes a whole snapshot
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

    /// How far past its limits a journal may grow while the caller is busy: past this many times
    /// ``journalMaximumBytes`` or ``journalMaximumRecords`` it is compacted even then.
    static let busyGrowthFactor = 4

    /// Whether the journal has grown past ``journalMaximumBytes`` or ``journalMaximumRecords``: the
    /// next quiet ``compactIfDue(isQuiet:snapshot:)`` compacts.
    var isCompactionDue: Bool { isJournalPast(factor: 1) }

    private func isJournalPast(factor: Int) -> Bool {
        guard let journal else { return false }
        return journal.size >= journalMaximumBytes * factor || journal.recordCount >= journalMaximumRecords * factor
    }

    /// Compacts when the journal has grown past ``journalMaximumBytes`` or ``journalMaximumRecords``
    /// and the caller is quiet, or past ``busyGrowthFactor`` times those limits in any case.
    ///
    /// Compaction writes and `fsync`s every timer, milliseconds for thousands of them: the daemon
    /// calls this as quiet when no timer is due soon and no request is waiting, so that compaction
    /// does not delay them.
    ///
    /// - Parameters:
    ///   - isQuiet: whether a compaction now would delay nothing (default true).
    ///   - snapshot: the whole state now, evaluated only when compacting.
    /// - Returns: whether it compacted.
    /// - Throws: what ``compact(_:)`` throws; the journal then goes on growing and the next call retries.
    @discardableResult
    func compactIfDue(isQuiet: Bool = true, snapshot: () -> EngineSnapshot) throws -> Bool {
        guard isJournalPast(factor: isQuiet ? 1 : Self.busyGrowthFactor) else { return false }
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
