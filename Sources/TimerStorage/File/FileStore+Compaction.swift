import Countdown
import Glibc
import TimerSystem

extension FileStore {
    /// How far past its limits a journal may grow while the caller is busy: past this many times
    /// ``journalMaximumBytes`` or ``journalMaximumRecords`` it is compacted even then.
    public static let busyGrowthFactor = 4

    /// The first wait after a failed compaction, in nanoseconds (100 ms); it doubles after each
    /// further failure up to ``compactionMaximumBackoff``.
    public static let compactionFirstBackoff: Int64 = 100_000_000
    /// The longest wait between attempts at a compaction that keeps failing: 60 s.
    public static let compactionMaximumBackoff: Int64 = 60_000_000_000

    /// Whether the journal has grown past ``journalMaximumBytes`` or ``journalMaximumRecords``: the
    /// next quiet ``compactIfDue(isQuiet:snapshot:)`` compacts.
    public var isCompactionDue: Bool { isJournalPast(factor: 1) }

    private func isJournalPast(factor: Int) -> Bool {
        guard let journal else { return false }
        return journal.size >= journalMaximumBytes * factor || journal.recordCount >= journalMaximumRecords * factor
    }

    /// Compacts when the journal has grown past ``journalMaximumBytes`` or ``journalMaximumRecords``
    /// and the caller is quiet, or past ``busyGrowthFactor`` times those limits in any case.
    ///
    /// Compaction writes and `fsync`s every timer, milliseconds for thousands of them: the daemon
    /// calls this as quiet when no timer is due soon and no request is waiting, so that compaction
    /// does not delay them. A failed compaction (the directory briefly unwritable, the snapshot no
    /// longer fits) leaves the journal in use, so commits go on appending to it; the next attempt
    /// waits ``compactionFirstBackoff``, doubling after each failure up to
    /// ``compactionMaximumBackoff`` (``nextWake(now:)`` asks the loop to come back then).
    ///
    /// - Parameters:
    ///   - isQuiet: whether a compaction now would delay nothing (default true).
    ///   - snapshot: the whole state now, evaluated only when compacting.
    /// - Returns: whether it compacted.
    /// - Throws: ``StoreError/unavailable(_:)`` when `compact(_:)` fails; the journal then goes on
    ///   growing and a later call retries after the back-off.
    /// - Complexity: O(1) when not due; O(n) in the timers when compacting.
    @discardableResult
    public func compactIfDue(isQuiet: Bool = true, snapshot: () -> EngineSnapshot) throws(StoreError) -> Bool {
        guard isJournalPast(factor: isQuiet ? 1 : Self.busyGrowthFactor) else { return false }
        let now = bootNanoseconds()
        if let retry = compactionRetry, now < retry.at { return false }
        do {
            try Self.translating { try compact(snapshot()) }
        } catch {
            let backoff = compactionRetry.map { min($0.backoff * 2, Self.compactionMaximumBackoff) }
            compactionRetry = (now + (backoff ?? Self.compactionFirstBackoff), backoff ?? Self.compactionFirstBackoff)
            throw error
        }
        return true
    }

    /// When the loop should call ``compactIfDue(isQuiet:snapshot:)`` again: 100 ms from `now` while
    /// a compaction is due (the caller was busy), or at the end of the back-off after a failure.
    ///
    /// - Parameter now: the boot-time clock's reading, in nanoseconds.
    /// - Returns: a boot-time instant in nanoseconds (≥ `now`) while ``isCompactionDue``, else `nil`.
    public func nextWake(now: Int64) -> Int64? {
        guard isCompactionDue else { return nil }
        return max(now + 100_000_000, compactionRetry?.at ?? 0)
    }

    /// Writes `snapshot` atomically as the new snapshot, then starts a new, empty journal whose
    /// begin record reserves the next ``idReservation`` ids (the snapshot carries the same mark).
    ///
    /// Order: normally the snapshot first, so a crash in between leaves the new snapshot and the
    /// old journal, whose older generation makes the next ``load()`` ignore it. In a directory
    /// with neither file (a first start) the journal comes first, so that a crash in between
    /// leaves a journal of generation 1 and no snapshot, which ``load()`` accepts (the snapshot it
    /// follows is the empty first state); a snapshot is then never without its journal.
    ///
    /// When the snapshot cannot be written, nothing changed: the journal in use stays usable and
    /// commits go on appending to it. When the snapshot was written but the journal could not be
    /// started, the old journal no longer pairs with the snapshot: the next commit retries.
    ///
    /// - Throws: ``SystemError``.
    func compact(_ snapshot: EngineSnapshot) throws {
        let next = generation + 1
        let mark = max(idHighWater, snapshot.nextID + Self.idReservation)
        let begin = JournalBegin(generation: next, bootID: bootID, idHighWater: mark)
        let payload = SnapshotPayload(bootID: bootID, journalGeneration: next, idHighWater: mark, engine: snapshot)
        if !FileIO.exists(snapshotPath) && !FileIO.exists(journalPath) {
            let created = try Journal.create(at: journalPath, in: directory, begin: begin, nextID: snapshot.nextID)
            try SnapshotFile.write(payload, to: snapshotPath, in: directory)
            journal = created
        } else {
            try SnapshotFile.write(payload, to: snapshotPath, in: directory)
            generation = next
            journal = nil
            isJournalUnusable = true
            journal = try Journal.create(at: journalPath, in: directory, begin: begin, nextID: snapshot.nextID)
        }
        generation = next
        idHighWater = mark
        journaledNextID = snapshot.nextID
        isJournalUnusable = false
        compactionRetry = nil
        compactionCount += 1
    }
}
