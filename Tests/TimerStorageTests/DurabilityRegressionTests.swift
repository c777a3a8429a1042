import Countdown
import Foundation
import Glibc
import TestSupport
import Testing

@testable import TimerStorage

// Each test here failed on main at ab3233e (checked by running this file
// against that commit's sources) and passes with the fix. They use only API that existed there.

/// When recovery runs: 2026-11-29T15:17:33Z, so damaged copies are `journal.damaged-20261129T151733Z`.
private let recoveryTime = FixedInstant.engineStart

/// A store over `directory` on boot `boot-a`.
private func store(_ directory: StateDirectory) -> FileStore { FileStore(directory: directory.path, bootID: "boot-a") }

/// Starts a fresh store in `directory` and journals `count` timers, one commit each; returns the
/// engine and the byte offset where each commit's records start.
private func journalTimers(_ count: Int, in directory: StateDirectory) throws -> (TimerEngine, [Int]) {
    var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
    let first = store(directory)
    _ = try first.load(now: recoveryTime) { Issue.record("\($0)") }
    try first.open(restoring: engine.takeChanges(), snapshot: { engine.snapshot })
    var offsets: [Int] = []
    for index in 0..<count {
        offsets.append(try directory.bytes(directory.journal).count)
        _ = try engine.start(durations: [300], name: "t\(index)")
        try first.commit(engine.takeChanges(), snapshot: { engine.snapshot })
    }
    return (engine, offsets)
}

@Suite("Durability: what recovery keeps, tells and never reuses")
struct DurabilityRegressionTests {
    @Test("A torn tail is cut with a WARNING and a copy of the whole file is kept")
    func tornTailIsCopied() throws {
        let directory = try StateDirectory()
        let (_, offsets) = try journalTimers(3, in: directory)
        let original = try directory.bytes(directory.journal)
        var torn = Array(original.dropLast(5))
        // A crash inside the third commit's record write comes before that commit's witness
        // (Journal.append writes records, then the witness): slot 0 still holds the first commit's
        // witness (sequence 2: the new journal's slots hold 0 and 1), which covered the file up to
        // where the second commit starts, next id 2.
        var witnessOffset = 0  // the byte after the begin record
        if case .record(.begin, _, let next) = RecordFormat.parse(original, at: RecordFormat.headerSize) {
            witnessOffset = next
        }
        try #require(witnessOffset > RecordFormat.headerSize)
        let firstCommit = CommitWitness(sequence: 2, committedLength: UInt64(offsets[1]), nextID: 2).record
        torn.replaceSubrange(witnessOffset..<witnessOffset + CommitWitness.slotSize, with: firstCommit)
        let lastRecord = original.count - 17  // the third commit's nextID record: 9 bytes of header and a UInt64
        try directory.write(torn, to: directory.journal)
        var lines: [String] = []
        _ = try Journal.recover(at: directory.journal, now: recoveryTime) { lines.append($0) }
        let copy = directory.journal + ".damaged-20261129T151733Z"
        #expect(try directory.bytes(copy) == torn)  // every cut byte kept
        #expect(try directory.bytes(directory.journal).count == lastRecord)
        // Kept: 3 timer records and 2 nextID records (each commit writes the timer, then the next id).
        #expect(
            lines == [
                "WARNING: \(directory.journal): incomplete last record at byte offset \(lastRecord) (a write torn by a crash); truncated the file to \(lastRecord) bytes, keeping 5 records; the damaged file is kept as \(copy)"
            ])
    }

    @Test("A complete last record with a bad checksum is told apart from a torn one, and copied")
    func corruptCompleteTailIsCopied() throws {
        let directory = try StateDirectory()
        let (_, offsets) = try journalTimers(3, in: directory)
        var bytes = try directory.bytes(directory.journal)
        bytes[offsets[2] + 30] ^= 0x01  // bit rot inside the third timer's record
        try directory.write(bytes, to: directory.journal)
        var lines: [String] = []
        let recovered = try Journal.recover(at: directory.journal, now: recoveryTime) { lines.append($0) }
        let copy = directory.journal + ".damaged-20261129T151733Z"
        #expect(try directory.bytes(copy) == bytes)
        // The third commit wrote the timer and a nextID record: the bad timer record is followed by a
        // valid record, so it is damage in the middle; the first two commits (4 records) and the
        // nextID record after the damaged one are replayed.
        #expect(recovered?.entries.count == 5)
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix("WARNING: \(directory.journal): damaged bytes \(offsets[2])..<") == true)

        // Now the very last record: cut the nextID record's checksum.
        let directory2 = try StateDirectory()
        _ = try journalTimers(1, in: directory2)
        var last = try directory2.bytes(directory2.journal)
        let lastRecord = last.count - 17  // a nextID record: 9 bytes of header and a UInt64
        last[last.count - 1] ^= 0x80
        try directory2.write(last, to: directory2.journal)
        var lines2: [String] = []
        _ = try Journal.recover(at: directory2.journal, now: recoveryTime) { lines2.append($0) }
        let copy2 = "\(directory2.journal).damaged-20261129T151733Z"
        // The commit witness says the whole file (last.count bytes) was committed, next id 2.
        #expect(
            lines2 == [
                "WARNING: \(directory2.journal): complete last record at byte offset \(lastRecord) fails its checksum (damaged after it was written; an acknowledged change may be lost); truncated the file to \(lastRecord) bytes, keeping 1 records; the damaged file is kept as \(copy2)",
                "WARNING: \(directory2.journal): its whole records end at byte \(lastRecord), but its commit witness says \(last.count) bytes were committed (17 bytes missing, next id 2); only records of the last commit are missing: the file was cut after it was made durable (acknowledged changes lost), or the machine stopped during that commit's fsync (then they were never acknowledged); the damaged file is kept as \(copy2)",
            ])
    }

    @Test("One flipped byte in the middle drops only the damaged record; the intact ones after it are replayed")
    func middleDamageResynchronises() throws {
        let directory = try StateDirectory()
        let (engine, offsets) = try journalTimers(6, in: directory)
        var bytes = try directory.bytes(directory.journal)
        bytes[offsets[2] + 30] ^= 0xFF  // inside timer 3's record
        try directory.write(bytes, to: directory.journal)
        let loaded = try store(directory).load(now: recoveryTime) { _ in }
        // Every timer but 3 is there as the engine holds it; timer 3's only record was damaged.
        #expect(loaded.snapshot.timers == engine.snapshot.timers.filter { $0.id != 3 })
        #expect(try directory.bytes(directory.journal + ".damaged-20261129T151733Z") == bytes)
    }

    @Test("After a cut tail, a new timer never gets an id that was already handed out")
    func idsAreNeverReusedAfterACut() throws {
        let directory = try StateDirectory()
        let (_, offsets) = try journalTimers(3, in: directory)
        let bytes = try directory.bytes(directory.journal)
        try directory.write(Array(bytes.prefix(offsets[2] + 4)), to: directory.journal)  // id 3 lost
        let loaded = try store(directory).load(now: recoveryTime) { _ in }
        #expect(loaded.snapshot.timers.map(\.id) == [1, 2])
        #expect(loaded.snapshot.nextID > 3)
        // The first journal's begin record reserved ids below 1 + 65,536 (FileStore.idReservation).
        #expect(loaded.snapshot.nextID == 65_537)
    }

    @Test("A deleted journal or snapshot refuses the start instead of losing changes silently")
    func missingPartnerIsRefused() throws {
        for victim in ["journal", "snapshot"] {
            let directory = try StateDirectory()
            let (engine, _) = try journalTimers(2, in: directory)
            let closing = store(directory)
            _ = try closing.load(now: recoveryTime) { _ in }
            try closing.close(engine.snapshot)  // generation 2: snapshot and journal both matter
            var running = engine
            let live = store(directory)
            _ = try live.load(now: recoveryTime) { _ in }
            try live.open(restoring: EngineChanges(nextID: running.snapshot.nextID), snapshot: { running.snapshot })
            _ = try running.start(durations: [60], name: "only-in-journal")
            try live.commit(running.takeChanges(), snapshot: { running.snapshot })
            try FileManager.default.removeItem(atPath: directory.path + "/" + victim)
            #expect(throws: (any Error).self, "deleted \(victim)") {
                _ = try store(directory).load(now: recoveryTime) { _ in }
            }
        }
        // A brand-new empty directory still starts.
        let fresh = try StateDirectory()
        #expect(try store(fresh).load(now: recoveryTime) { _ in }.isEmpty)
    }

    @Test("A failed compaction does not make later commits fail while the journal is writable")
    func failedCompactionKeepsJournaling() throws {
        let directory = try StateDirectory()
        var (engine, _) = try journalTimers(1, in: directory)
        let live = store(directory)
        _ = try live.load(now: recoveryTime) { _ in }
        try live.open(restoring: EngineChanges(nextID: engine.snapshot.nextID), snapshot: { engine.snapshot })
        // A directory where snapshot.tmp must go: open(2) fails with EISDIR, as root too.
        try FileManager.default.createDirectory(atPath: live.snapshotPath + ".tmp", withIntermediateDirectories: false)
        #expect(throws: (any Error).self) { try live.compact(engine.snapshot) }
        _ = try engine.start(durations: [60], name: "after-failure")
        try live.commit(engine.takeChanges(), snapshot: { engine.snapshot })
        try FileManager.default.removeItem(atPath: live.snapshotPath + ".tmp")
        #expect(try store(directory).load(now: recoveryTime) { _ in }.snapshot == engine.snapshot)
    }
}
