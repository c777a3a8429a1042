import Countdown
import Foundation
import Glibc
import TimerSystem

/// The state in a directory: a snapshot plus a write-ahead journal of the changes since
/// (`timerd`'s default store).
///
/// - Files in the state directory: `snapshot` (every timer, replaced atomically), `journal` (each
///   timer as it is after a change; `Journal`) and `lock` (`StateLock`, held from ``load()``
///   to ``close(_:)`` so that two daemons never share a journal). Layout in `RecordFormat`.
/// - ``commit(_:durability:snapshot:)`` appends one event-loop turn's changes with one `fsync`; the
///   daemon calls it before it sends that turn's replies, so a change is durable before it is
///   acknowledged.
/// - ``compactIfDue(isQuiet:snapshot:)``: past ``journalMaximumBytes`` or ``journalMaximumRecords``
///   the state is written as a new snapshot and a new, empty journal is started, when the caller
///   is quiet, or at once past 4 times those limits; so also at a clean stop (``close(_:)``).
/// - The first commit after ``load()`` (`open(restoring:snapshot:)`) goes on appending to an
///   intact journal of this boot and format and compacts only when recovery repaired something,
///   the files are of an older format or boot, or the journal is past its limits.
/// - ``load()``: snapshot, then the journal replayed over it.
/// - With ``WritePolicy/atClose`` (`timerd --save exit`) only start-up and ``close(_:)`` write.
public final class FileStore: TimerStore {
    /// When the store writes the changes it is given.
    public enum WritePolicy: Sendable, Equatable {
        /// Every commit is journaled (synchronously or batched, as asked): the default, and the
        /// protocol's rule that a change is durable before it is acknowledged.
        case everyCommit
        /// Commits are accepted and forgotten; the whole state is written only at start-up
        /// (what the engine's restore changed) and by ``close(_:)`` at a clean stop (SIGTERM,
        /// SIGINT, idle exit). A crash or `kill -9` loses every change since start-up. For
        /// benchmarks that load a million timers (`timerd --save exit`).
        case atClose
    }

    /// The state directory.
    public let directory: String
    /// This boot's id (``BootID/current()``), written into snapshots and journals.
    let bootID: String?
    /// Compact once the journal is this many bytes (default 4 MiB).
    public let journalMaximumBytes: Int
    /// Compact once the journal holds this many change records (default 10,000).
    public let journalMaximumRecords: Int
    /// When commits are written.
    public let writePolicy: WritePolicy

    /// What ``load()`` does when the snapshot or the journal it expects is missing or damaged.
    public let lossPolicy: StateLossPolicy
    /// Ids reserved per journal: a new journal's begin record (and the snapshot it follows) says no
    /// id at or above the engine's next id plus this many was handed out; the store starts a new
    /// journal before the engine passes that mark. 65,536 is far more than the starts one journal
    /// holds before it is compacted (10,000 records by default), so the mark rarely forces one.
    public static let idReservation: UInt64 = 65_536

    /// The journal being appended to; `nil` before ``open(restoring:snapshot:)`` and after a
    /// compaction that wrote the snapshot but could not start the journal.
    var journal: Journal?
    /// The generation of the snapshot on disk and of the journal that continues it.
    var generation: UInt64 = 0
    /// Whether the journal cannot be appended to (none open, or a failed append left it torn):
    /// the next commit writes a whole snapshot and a new journal.
    var isJournalUnusable = true
    /// The next id as the journal last recorded it.
    var journaledNextID: UInt64 = 0
    /// No id at or above this is handed out under the current journal (its begin record's mark).
    var idHighWater: UInt64 = 0
    /// Why ``open(restoring:snapshot:)`` must compact (nil: it may reuse `reusableJournal`).
    var startupCompactionReason: String? = "nothing loaded"
    /// The journal ``load(now:log:)`` found intact, to go on appending to.
    var reusableJournal: Journal.Recovered?
    /// Whether the next ``commit(_:durability:snapshot:)`` is the first after a load.
    var isAwaitingOpen = false
    /// Held from ``load()`` until ``close(_:)``.
    var lock: StateLock?
    /// Whether `lock` was there before this process took it: an earlier timerd used the directory.
    var hadLockFile = false
    /// The boot-time clock in nanoseconds, for the back-off of failed compactions.
    let bootNanoseconds: () -> Int64
    /// After a failed compaction: when to try again (boot-time ns) and the wait after a next failure.
    var compactionRetry: (at: Int64, backoff: Int64)?
    /// Compactions since this store was opened (``figures``).
    var compactionCount = 0

    /// `directory/snapshot`.
    var snapshotPath: String { directory + "/snapshot" }
    /// `directory/journal`.
    var journalPath: String { directory + "/journal" }

    /// The state directory.
    public var location: String { directory }

    /// Creates a store over `directory` (which must exist); nothing is read, written or locked yet.
    ///
    /// - Parameters:
    ///   - directory: the state directory.
    ///   - bootID: this boot's id (default ``BootID/current()``); state of another boot is restored
    ///     as after a reboot.
    ///   - journalMaximumBytes: compact once the journal is this many bytes (default 4 MiB).
    ///   - journalMaximumRecords: compact once the journal holds this many records (default 10,000).
    ///   - writePolicy: when commits are written (default ``WritePolicy/everyCommit``).
    ///   - lossPolicy: whether ``load()`` refuses a state whose snapshot or journal is missing
    ///     (default ``StateLossPolicy/refuse``).
    ///   - bootNanoseconds: the boot-time clock in nanoseconds (injected by tests).
    public init(
        directory: String, bootID: String? = BootID.current(), journalMaximumBytes: Int = 4 << 20,
        journalMaximumRecords: Int = 10_000, writePolicy: WritePolicy = .everyCommit,
        lossPolicy: StateLossPolicy = .refuse, bootNanoseconds: @escaping () -> Int64 = Syscall.bootTimeNanoseconds
    ) {
        self.lossPolicy = lossPolicy
        self.bootNanoseconds = bootNanoseconds
        self.directory = directory
        self.bootID = bootID
        self.journalMaximumBytes = journalMaximumBytes
        self.journalMaximumRecords = journalMaximumRecords
        self.writePolicy = writePolicy
    }

    /// Locks the directory, then reads the snapshot and replays the journal over it
    /// (`load(now:log:)`), collecting recovery's log lines as ``StoreLoad/notes``.
    ///
    /// - Returns: the state found.
    /// - Throws: ``StoreError/locked(_:)`` when another process holds the directory;
    ///   ``StoreError/unavailable(_:)`` when a file cannot be read, truncated or moved.
    /// - Complexity: O(n + k log k) for n timers in the snapshot and k journal records.
    public func load() throws(StoreError) -> StoreLoad {
        if lock == nil {
            hadLockFile = FileIO.exists(directory + "/lock")
            do {
                lock = try StateLock(directory: directory)
            } catch let error as StateLock.HeldError {
                throw .locked("\(error)")
            } catch {
                throw .unavailable("\(error)")
            }
        }
        var notes: [String] = []
        var loaded = try Self.translating { try load(now: Date()) { notes.append($0) } }
        loaded.notes = notes
        return loaded
    }

    /// Starts writing after ``load(now:log:)`` and the engine's restore: journals what the restore
    /// changed (timers finished as missed …) with one `fsync` and goes on appending to the journal
    /// found, unless start-up must compact: when recovery repaired or ignored something, a file is
    /// of an older format or boot, or the journal is past its limits. Then it writes a fresh snapshot and an empty journal (``compact(_:)``).
    ///
    /// - Parameters:
    ///   - changes: what the engine's restore changed (`TimerEngine.takeChanges()`).
    ///   - snapshot: the whole state now, evaluated only when compacting.
    /// - Returns: whether it compacted.
    /// - Throws: ``SystemError``.
    @discardableResult
    func open(restoring changes: EngineChanges, snapshot: () -> EngineSnapshot) throws -> Bool {
        if startupCompactionReason == nil, let reusableJournal, let mark = reusableJournal.begin.idHighWater {
            do {
                journal = try Journal.reopen(at: journalPath, reusableJournal)
                idHighWater = mark
                isJournalUnusable = false
            } catch {
                journal = nil
            }
        }
        reusableJournal = nil
        startupCompactionReason = nil
        isAwaitingOpen = false
        guard !isJournalUnusable else {
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
    /// It does the same when `changes.nextID` passes the journal's id high-water mark, so that a
    /// new begin record reserves the next block before any id above the old mark is acknowledged.
    ///
    /// - Parameters:
    ///   - changes: what changed (`TimerEngine.takeChanges()`).
    ///   - sync: whether to `fsync` (default true).
    ///   - snapshot: the whole state now.
    /// - Throws: ``SystemError``: the changes may not be durable; the next commit compacts.
    func commit(_ changes: EngineChanges, sync: Bool = true, snapshot: () -> EngineSnapshot) throws {
        guard !isJournalUnusable, let journal, changes.nextID <= idHighWater else {
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
            isJournalUnusable = true
            throw error
        }
        journaledNextID = max(journaledNextID, changes.nextID)
    }

    /// Accepts one turn's changes as ``writePolicy`` says: the first commit after ``load()``
    /// finishes start-up (`open(restoring:snapshot:)`); then, with ``WritePolicy/everyCommit``,
    /// the changes are appended to the journal (`commit(_:sync:snapshot:)`), with one `fsync`
    /// when `durability` is ``CommitDurability/synchronous``; with ``WritePolicy/atClose`` they
    /// are dropped (``close(_:)`` writes the whole state).
    ///
    /// - Parameters:
    ///   - changes: what changed (`TimerEngine.takeChanges()`).
    ///   - durability: whether to `fsync` before returning.
    ///   - snapshot: the whole state now, evaluated only when a snapshot is written.
    /// - Throws: ``StoreError/unavailable(_:)``: the changes may not be durable; the next commit
    ///   writes a whole snapshot.
    /// - Complexity: O(k) for k changed timers; O(n) when it writes the snapshot.
    public func commit(_ changes: EngineChanges, durability: CommitDurability, snapshot: () -> EngineSnapshot)
        throws(StoreError)
    {
        if isAwaitingOpen {
            try Self.translating { _ = try open(restoring: changes, snapshot: snapshot) }
            return
        }
        guard writePolicy == .everyCommit else { return }
        try Self.translating { try commit(changes, sync: durability == .synchronous, snapshot: snapshot) }
    }

    /// Writes `snapshot` as the new snapshot with an empty journal (`compact(_:)`), closes the
    /// journal and releases the directory's lock.
    ///
    /// - Parameter snapshot: every timer.
    /// - Throws: ``StoreError/unavailable(_:)``: the files hold the state as of the last commit
    ///   (with ``WritePolicy/atClose``: as of start-up). The lock is released either way.
    /// - Complexity: O(n) in the timers.
    public func close(_ snapshot: EngineSnapshot) throws(StoreError) {
        defer {
            journal = nil
            lock = nil
            isAwaitingOpen = false
        }
        try Self.translating { try compact(snapshot) }
    }

    /// Runs `body`, turning what it throws into ``StoreError/unavailable(_:)`` with the error's text
    /// (a ``SystemError`` names the call and the file).
    static func translating<Value>(_ body: () throws -> Value) throws(StoreError) -> Value {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// The current journal's size in bytes and change records, for tests and logs.
    var journalSize: (bytes: Int, records: Int)? { journal.map { ($0.size, $0.recordCount) } }

    /// The journal's size and records, and the compactions since this store was opened.
    public var figures: StoreFigures {
        StoreFigures(journalBytes: journal?.size, journalRecords: journal?.recordCount, compactions: compactionCount)
    }
}
