import Countdown
import Foundation
import Glibc
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerStorage

/// When recovery runs in these tests: 2026-11-29T15:17:33Z, so damaged files are named
/// `journal.damaged-20261129T151733Z`.
private let recoveryTime = FixedInstant.engineStart

/// Three timers started on a manual clock, as journal entries.
private func threeTimers() throws -> [TimerRecord] {
    var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
    for name in ["tea", "eggs", "pasta"] { _ = try engine.start(durations: [300], name: name) }
    return engine.takeChanges().updated
}

/// A journal with three records, one append each; returns the offset where each record starts.
private func journalWithThreeRecords(in directory: StateDirectory) throws -> (records: [TimerRecord], offsets: [Int]) {
    let (records, offsets, _) = try journalWithThreeRecordsAndEarlierBytes(in: directory)
    return (records, offsets)
}

/// The same, with the whole file as it was before the third append: the file a crash inside that
/// append's record `pwrite` leaves, before the witness of that commit is written (Journal.append
/// writes the records first).
private func journalWithThreeRecordsAndEarlierBytes(in directory: StateDirectory) throws -> (
    records: [TimerRecord], offsets: [Int], beforeLast: [UInt8]
) {
    let records = try threeTimers()
    let journal = try Journal.create(
        at: directory.journal, in: directory.path, begin: JournalBegin(generation: 1, bootID: "boot-a"))
    var offsets: [Int] = []
    var beforeLast: [UInt8] = []
    for record in records {
        offsets.append(journal.size)
        beforeLast = try directory.bytes(directory.journal)
        try journal.append([.timer(record)])
    }
    return (records, offsets, beforeLast)
}

/// The file a crash leaves while the third append's record is half written: the two earlier
/// commits (with their witness) and the third record's bytes up to `length(offsets, size)`, where
/// `size` is the whole file's size after the third append.
private func tornThirdAppend(in directory: StateDirectory, keeping length: (_ offsets: [Int], _ size: Int) -> Int)
    throws -> (records: [TimerRecord], offsets: [Int])
{
    let (records, offsets, beforeLast) = try journalWithThreeRecordsAndEarlierBytes(in: directory)
    let after = try directory.bytes(directory.journal)
    try directory.write(
        beforeLast + after[beforeLast.count..<length(offsets, after.count)], to: directory.journal)
    return (records, offsets)
}

private func recover(_ directory: StateDirectory) throws -> (Journal.Recovered?, [String]) {
    var lines: [String] = []
    let recovered = try Journal.recover(at: directory.journal, now: recoveryTime) { lines.append($0) }
    return (recovered, lines)
}

@Suite("The journal keeps every intact record and repairs what a crash can leave")
struct JournalRecoveryTests {
    @Test("CRC-32C matches its published check value")
    func checkValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)  // RFC 3720 §B.4
        #expect(CRC32C.checksum(Array("6789".utf8), continuing: CRC32C.checksum(Array("12345".utf8))) == 0xE306_9283)
    }

    @Test("An intact journal gives back every record, and says nothing")
    func intact() throws {
        let directory = try StateDirectory()
        let (records, _) = try journalWithThreeRecords(in: directory)
        let (recovered, lines) = try recover(directory)
        #expect(recovered?.entries == records.map(JournalEntry.timer))
        #expect(recovered?.begin == JournalBegin(generation: 1, bootID: "boot-a"))
        #expect(lines.isEmpty)
    }

    @Test("A truncated last record is cut off with a warning naming the file and offset")
    func truncatedTail() throws {
        let directory = try StateDirectory()
        // A crash inside the third append: 5 bytes of its record never written, nor its witness.
        let (records, offsets) = try tornThirdAppend(in: directory) { _, size in size - 5 }
        let (recovered, lines) = try recover(directory)
        #expect(recovered?.entries == records.prefix(2).map(JournalEntry.timer))
        // A WARNING, and a copy of what was cut.
        #expect(
            lines == [
                "WARNING: \(directory.journal): incomplete last record at byte offset \(offsets[2]) (a write torn by a crash); truncated the file to \(offsets[2]) bytes, keeping 2 records; the damaged file is kept as \(directory.journal).damaged-20261129T151733Z"
            ])
        #expect(try directory.bytes(directory.journal).count == offsets[2])
    }

    @Test("A record cut inside its 9-byte header is an incomplete tail too")
    func truncatedHeader() throws {
        let directory = try StateDirectory()
        let (_, offsets) = try tornThirdAppend(in: directory) { offsets, _ in offsets[2] + 4 }
        let (recovered, lines) = try recover(directory)
        #expect(recovered?.entries.count == 2)
        #expect(
            lines.first?.contains("incomplete last record at byte offset \(offsets[2]) (a write torn by a crash);")
                == true)
    }

    @Test("A flipped byte in the last record is cut off with a warning naming the file and offset")
    func flippedByteInTail() throws {
        let directory = try StateDirectory()
        let (records, offsets) = try journalWithThreeRecords(in: directory)
        var bytes = try directory.bytes(directory.journal)
        bytes[offsets[2] + 30] ^= 0x01
        try directory.write(bytes, to: directory.journal)
        let (recovered, lines) = try recover(directory)
        #expect(recovered?.entries == records.prefix(2).map(JournalEntry.timer))
        // A complete record that fails its checksum is told apart from a torn one;
        // the commit witness (format 5) says its bytes were committed: the size after the third
        // append, which the record's end is.
        let committed = bytes.count
        let copy = "\(directory.journal).damaged-20261129T151733Z"
        #expect(
            lines == [
                "WARNING: \(directory.journal): complete last record at byte offset \(offsets[2]) fails its checksum (damaged after it was written; an acknowledged change may be lost); truncated the file to \(offsets[2]) bytes, keeping 2 records; the damaged file is kept as \(copy)",
                "WARNING: \(directory.journal): its whole records end at byte \(offsets[2]), but its commit witness says \(committed) bytes were committed (\(committed - offsets[2]) bytes missing, next id 4); only records of the last commit are missing: the file was cut after it was made durable (acknowledged changes lost), or the machine stopped during that commit's fsync (then they were never acknowledged); the damaged file is kept as \(copy)",
            ])
        #expect(try directory.bytes(directory.journal).count == offsets[2])
        // A second recovery finds a clean file: the witness was rewritten to the cut length.
        let (again, quiet) = try recover(directory)
        #expect(again?.entries.count == 2)
        #expect(quiet.isEmpty)
    }

    @Test("Damage in the middle skips the damaged record, replays the intact ones after it, and keeps a copy")
    func damageInTheMiddle() throws {
        let directory = try StateDirectory()
        let (records, offsets) = try journalWithThreeRecords(in: directory)
        var bytes = try directory.bytes(directory.journal)
        bytes[offsets[1] + 30] ^= 0xFF
        try directory.write(bytes, to: directory.journal)
        let (recovered, lines) = try recover(directory)
        let aside = directory.journal + ".damaged-20261129T151733Z"
        // Resynchronised at the third record (offsets[2]).
        #expect(recovered?.entries == [.timer(records[0]), .timer(records[2])])
        #expect(recovered?.firstEntryAfterDamage == 1)
        #expect(recovered?.damagedCopy == aside)
        #expect(
            lines == [
                "WARNING: \(directory.journal): damaged bytes \(offsets[1])..<\(offsets[2]) (\(offsets[2] - offsets[1]) bytes) followed by intact records; skipped them after 1 records and replayed the intact records after them; the damaged file is kept as \(aside)"
            ])
        #expect(try directory.bytes(directory.journal) == bytes)  // left for start-up compaction to replace
        #expect(try directory.bytes(aside) == bytes)  // copied, never changed or deleted
    }

    @Test("A journal with a damaged header is moved aside, and a second damaged one gets its own name")
    func damagedHeader() throws {
        let directory = try StateDirectory()
        for suffix in ["", "-2"] {
            _ = try journalWithThreeRecords(in: directory)
            var bytes = try directory.bytes(directory.journal)
            bytes[3] = UInt8(ascii: "X")
            try directory.write(bytes, to: directory.journal)
            let (recovered, lines) = try recover(directory)
            #expect(recovered == nil)
            let aside = directory.journal + ".damaged-20261129T151733Z" + suffix
            #expect(
                lines == [
                    "WARNING: \(directory.journal): not a timerd journal (wrong magic bytes); moved it to \(aside) and ignored it"
                ])
        }
    }

    @Test("The store replays the journal over the snapshot, and a leftover temporary file is ignored")
    func storeRoundTrip() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
        let store = FileStore(directory: directory.path, bootID: "boot-a")
        _ = try engine.start(durations: [60], name: "in-snapshot")
        try store.compact(engine.snapshot)
        _ = engine.takeChanges()
        _ = try engine.start(durations: [60], name: "in-journal")
        _ = try engine.stop(.id(1))
        try store.commit(engine.takeChanges(), snapshot: { engine.snapshot })
        // A crash while replacing the snapshot leaves snapshot.tmp behind: never read.
        try directory.write(Array("garbage".utf8), to: store.snapshotPath + ".tmp")
        let loaded = try FileStore(directory: directory.path, bootID: "boot-a").load { Issue.record("\($0)") }
        #expect(loaded.snapshot == engine.snapshot)
        #expect(loaded.isSameBoot)
        let rebooted = try FileStore(directory: directory.path, bootID: "boot-b").load { _ in }
        #expect(!rebooted.isSameBoot)
    }

    @Test("A crash between the new snapshot and the new journal: the older journal is ignored")
    func staleJournal() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
        let store = FileStore(directory: directory.path, bootID: "boot-a")
        try store.compact(engine.snapshot)  // generation 1
        _ = try engine.start(durations: [60])
        try store.commit(engine.takeChanges(), snapshot: { engine.snapshot })
        let oldJournal = try directory.bytes(directory.journal)
        _ = try engine.stop(.id(1))
        try store.compact(engine.snapshot)  // generation 2 ...
        try directory.write(oldJournal, to: directory.journal)  // ... but the new journal never made it
        var lines: [String] = []
        let loaded = try FileStore(directory: directory.path, bootID: "boot-a").load { lines.append($0) }
        #expect(loaded.snapshot == engine.snapshot)
        #expect(
            lines == [
                "ignored \(directory.journal): generation 1 is already in the snapshot (generation 2)"
            ])
    }

    @Test("Each compaction replaces the snapshot atomically and starts an empty journal")
    func compaction() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
        let store = FileStore(directory: directory.path, bootID: "boot-a", journalMaximumRecords: 6)
        try store.compact(engine.snapshot)
        for _ in 0..<2 {
            _ = try engine.start(durations: [60])
            try store.commit(engine.takeChanges(), snapshot: { engine.snapshot })
            #expect(try store.compactIfDue(snapshot: { engine.snapshot }) == false)
        }
        _ = try engine.start(durations: [60])
        try store.commit(engine.takeChanges(), snapshot: { engine.snapshot })
        #expect(store.journalSize?.records == 6)  // per commit: the new timer and the moved nextID
        #expect(try store.compactIfDue(snapshot: { engine.snapshot }))
        #expect(store.journalSize?.records == 0)
        #expect(!FileManager.default.fileExists(atPath: store.snapshotPath + ".tmp"))
        let loaded = try FileStore(directory: directory.path, bootID: "boot-a").load { Issue.record("\($0)") }
        #expect(loaded.snapshot == engine.snapshot)
    }

    @Test("Start-up goes on with an intact journal of this boot, and compacts after a repair or a reboot")
    func startWithoutCompaction() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
        let first = FileStore(directory: directory.path, bootID: "boot-a")
        _ = try first.load { _ in }
        try first.open(restoring: engine.takeChanges(), snapshot: { engine.snapshot })
        for _ in 0..<3 {
            _ = try engine.start(durations: [60])
            try first.commit(engine.takeChanges(), snapshot: { engine.snapshot })
        }
        let snapshotBytes = try directory.bytes(first.snapshotPath)
        let records = first.journalSize?.records

        let second = FileStore(directory: directory.path, bootID: "boot-a")
        #expect(try second.load { Issue.record("\($0)") }.snapshot == engine.snapshot)
        #expect(try second.open(restoring: EngineChanges(nextID: 4), snapshot: { engine.snapshot }) == false)
        #expect(try directory.bytes(second.snapshotPath) == snapshotBytes)
        #expect(second.journalSize?.records == records)
        _ = try engine.stop(.id(2))
        try second.commit(engine.takeChanges(), snapshot: { engine.snapshot })
        #expect(try FileStore(directory: directory.path, bootID: "boot-a").load { _ in }.snapshot == engine.snapshot)

        let journal = try directory.bytes(directory.journal)
        try directory.write(Array(journal.dropLast(3)), to: directory.journal)  // a torn last record
        let repaired = FileStore(directory: directory.path, bootID: "boot-a")
        let loaded = try repaired.load { _ in }
        #expect(try repaired.open(restoring: EngineChanges(nextID: 4), snapshot: { loaded.snapshot }))
        #expect(repaired.journalSize?.records == 0)

        let rebooted = FileStore(directory: directory.path, bootID: "boot-b")
        let afterReboot = try rebooted.load { _ in }
        #expect(try rebooted.open(restoring: EngineChanges(nextID: 4), snapshot: { afterReboot.snapshot }))
    }

    @Test("While the daemon is busy, compaction waits until the journal is 4 times past its limit")
    func busyCompaction() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
        let store = FileStore(directory: directory.path, bootID: "boot-a", journalMaximumRecords: 2)
        try store.compact(engine.snapshot)
        _ = try engine.start(durations: [60])
        try store.commit(engine.takeChanges(), snapshot: { engine.snapshot })  // 2 records
        #expect(store.isCompactionDue)
        #expect(try store.compactIfDue(isQuiet: false, snapshot: { engine.snapshot }) == false)
        for _ in 0..<3 {
            _ = try engine.start(durations: [60])
            try store.commit(engine.takeChanges(), snapshot: { engine.snapshot })
        }
        #expect(store.journalSize?.records == 8)
        #expect(try store.compactIfDue(isQuiet: false, snapshot: { engine.snapshot }))
        #expect(!store.isCompactionDue)
    }
}
