import Countdown
import Foundation
import TestSupport
import Testing

@testable import TimerStorage

// The commit witness (docs/durability.md, "The commit witness"): a journal cut exactly at
// a record boundary is a whole, shorter journal. On main at 521fbaa it loaded as intact (no WARNING,
// no copy, the next id exact from the records left): `restartAfterCut` uses only API that exists
// there and fails there with id 2 (b's) for the new start; the other tests need the witness's API.

/// When recovery runs: 2026-11-29T15:17:33Z, so damaged copies are `journal.damaged-20261129T151733Z`.
private let recoveryTime = FixedInstant.engineStart

/// A state directory after a first start and six acknowledged commits on boot `boot-a`: four
/// starts, a pause of timer 2 and a stop of timer 1 (one commit each, as the daemon commits one
/// loop turn with one fsync before it answers).
private struct SixCommits {
    /// The directory.
    let directory: StateDirectory
    /// The snapshot's bytes (the empty first state).
    let snapshot: [UInt8]
    /// The journal's bytes after the six commits.
    let journal: [UInt8]
    /// Where each commit's records start, and (last) the file's size: commit k's records are
    /// `commits[k]..<commits[k + 1]`.
    let commits: [Int]
    /// Where each change record starts, in order, and (last) the file's size.
    let boundaries: [Int]
    /// The engine's state after the six commits.
    let engine: TimerEngine

    init() throws {
        directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
        let store = FileStore(directory: directory.path, bootID: "boot-a")
        _ = try store.load(now: recoveryTime) { Issue.record("\($0)") }
        try store.open(restoring: engine.takeChanges(), snapshot: { engine.snapshot })
        var commits: [Int] = []
        let steps: [(inout TimerEngine) throws -> Void] = [
            { _ = try $0.start(durations: [300], name: "a") }, { _ = try $0.start(durations: [300], name: "b") },
            { _ = try $0.pause(.id(2)) }, { _ = try $0.start(durations: [300], name: "c") },
            { _ = try $0.stop(.id(1)) }, { _ = try $0.start(durations: [300], name: "d") },
        ]
        for step in steps {
            commits.append(try #require(store.journalSize?.bytes))
            try step(&engine)
            try store.commit(engine.takeChanges(), snapshot: { engine.snapshot })
        }
        journal = try directory.bytes(directory.journal)
        commits.append(journal.count)
        #expect(commits.first == store.journal?.recordsStart)
        var boundaries = [commits[0]]
        while case .record(_, _, let next) = RecordFormat.parse(journal, at: boundaries[boundaries.count - 1]) {
            boundaries.append(next)
        }
        #expect(boundaries.last == journal.count)
        snapshot = try directory.bytes(directory.path + "/snapshot")
        self.commits = commits
        self.boundaries = boundaries
        self.engine = engine
    }
}

@Suite("The commit witness: a journal cut at a record boundary is reported and its ids are never reused")
struct CommitWitnessTests {
    @Test(
        "A cut at every record boundary: WARNING with the byte counts, the copy's exact bytes, next id above every acknowledged one"
    )
    func cutAtEveryBoundary() throws {
        let state = try SixCommits()
        // Starts acknowledged ids 1…4 (the engine's next id is 5).
        #expect(state.engine.snapshot.nextID == 5)
        let size = state.journal.count
        // 4 starts write a timer and a nextID record, the pause and the stop a timer record: 10.
        #expect(state.boundaries.count - 1 == 10)
        for cut in state.boundaries.dropLast() {
            let directory = try StateDirectory()
            try directory.write(state.snapshot, to: directory.path + "/snapshot")
            let cutBytes = Array(state.journal[..<cut])
            try directory.write(cutBytes, to: directory.journal)
            var lines: [String] = []
            let store = FileStore(directory: directory.path, bootID: "boot-a")
            let loaded = try store.load(now: recoveryTime) { lines.append($0) }
            let copy = directory.journal + ".damaged-20261129T151733Z"
            // Journal.recover's rule: a cut at or past where the last commit starts may be that
            // commit's fsync interrupted by a power loss; anything shorter lost earlier commits.
            let why =
                cut >= state.commits[state.commits.count - 2]
                ? "only records of the last commit are missing: the file was cut after it was made durable "
                    + "(acknowledged changes lost), or the machine stopped during that commit's fsync (then they were "
                    + "never acknowledged)"
                : "records of earlier, acknowledged commits are missing: acknowledged changes were lost"
            // The witness holds the size after the sixth commit and the engine's next id then (5).
            #expect(
                lines == [
                    "WARNING: \(directory.journal): its whole records end at byte \(cut), but its commit witness says \(size) bytes were committed (\(size - cut) bytes missing, next id 5); \(why); the damaged file is kept as \(copy)"
                ], "cut at \(cut)")
            #expect(try directory.bytes(copy) == cutBytes, "cut at \(cut)")  // the file as found, byte for byte
            // The next id is the begin record's high-water mark: the first start's next id (1) plus
            // FileStore.idReservation; above every acknowledged id (1…4).
            #expect(loaded.snapshot.nextID == 1 + FileStore.idReservation, "cut at \(cut)")
            // What is kept is exactly the records before the cut, replayed over the empty snapshot.
            var expectedNext: UInt64 = 1
            let kept = try Journal.recover(at: directory.journal + ".damaged-20261129T151733Z", now: recoveryTime) {
                _ in
            }
            let timers = FileStore.replay(kept?.entries ?? [], over: [], nextID: &expectedNext)
            #expect(loaded.snapshot.timers == timers, "cut at \(cut)")
        }
    }

    @Test(
        "After a boundary cut the daemon's restart hands out an id above every acknowledged one, and a second restart stays quiet"
    )
    func restartAfterCut() throws {
        let state = try SixCommits()
        let directory = try StateDirectory()
        try directory.write(state.snapshot, to: directory.path + "/snapshot")
        // The brief's case by hand: cut at the end of a's records (start a: timer + nextID records).
        try directory.write(Array(state.journal[..<state.commits[1]]), to: directory.journal)
        let store = FileStore(directory: directory.path, bootID: "boot-a")
        let loaded = try store.load(now: recoveryTime) { _ in }
        var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
        _ = engine.restore(loaded.snapshot, sameBoot: loaded.isSameBoot)
        try store.commit(engine.takeChanges(), durability: .synchronous) { engine.snapshot }
        #expect(loaded.snapshot.timers.map { $0.name } == ["a"])
        let started = try engine.start(durations: [60], name: "e")
        // Not 2 (b's id, acknowledged before the cut): the mark 1 + 65,536.
        #expect(started.id == 65_537)
        try store.commit(engine.takeChanges(), durability: .synchronous) { engine.snapshot }
        var lines: [String] = []
        let again = try FileStore(directory: directory.path, bootID: "boot-a").load(now: recoveryTime) {
            lines.append($0)
        }
        #expect(lines.isEmpty)  // the start-up compaction wrote a fresh pair
        #expect(again.snapshot == engine.snapshot)
    }

    @Test(
        "A crash after the report but before the start-up compaction: the next start is quiet and hands out no cut id")
    func crashBeforeCompaction() throws {
        let state = try SixCommits()
        let directory = try StateDirectory()
        try directory.write(state.snapshot, to: directory.path + "/snapshot")
        try directory.write(Array(state.journal[..<state.commits[1]]), to: directory.journal)
        var first: [String] = []
        _ = try FileStore(directory: directory.path, bootID: "boot-a").load(now: recoveryTime) { first.append($0) }
        #expect(first.count == 1)  // the WARNING, and the copy
        // The store dies here: no open(restoring:), no compaction. Recovery rewrote the witness to
        // the kept length with the begin record's mark (1 + FileStore.idReservation) as next id.
        var second: [String] = []
        let again = try FileStore(directory: directory.path, bootID: "boot-a").load(now: recoveryTime) {
            second.append($0)
        }
        #expect(second.isEmpty)
        #expect(again.snapshot.nextID == 1 + FileStore.idReservation)
        #expect(again.snapshot.timers.map { $0.name } == ["a"])
    }

    @Test(
        "Records written past the witness (a kill between the records' pwrite and the witness's) are replayed silently")
    func recordsPastTheWitness() throws {
        let state = try SixCommits()
        let directory = try StateDirectory()
        try directory.write(state.snapshot, to: directory.path + "/snapshot")
        // The sixth commit's records are there, its witness is not: slot 1 (sequence 7) gets back the
        // fourth commit's witness (sequence 5: the new journal's slots hold 0 and 1, commits 2…7).
        var bytes = state.journal
        let witnessOffset = state.commits[0] - CommitWitness.areaSize
        let slot1 = witnessOffset + CommitWitness.slotSize
        let fourth = CommitWitness(sequence: 5, committedLength: UInt64(state.commits[4]), nextID: 4)
        bytes.replaceSubrange(slot1..<slot1 + CommitWitness.slotSize, with: fourth.record)
        try directory.write(bytes, to: directory.journal)
        var lines: [String] = []
        let loaded = try FileStore(directory: directory.path, bootID: "boot-a").load(now: recoveryTime) {
            lines.append($0)
        }
        #expect(lines.isEmpty)
        #expect(loaded.snapshot == state.engine.snapshot)
    }

    @Test("A damaged witness slot is reported and copied; the other slot still tells a cut")
    func damagedSlot() throws {
        let state = try SixCommits()
        let directory = try StateDirectory()
        try directory.write(state.snapshot, to: directory.path + "/snapshot")
        let witnessOffset = state.commits[0] - CommitWitness.areaSize
        var bytes = Array(state.journal[..<state.commits[3]])  // cut after the third commit
        // The latest slot (sequence 7, the sixth commit: slot 1) fails its checksum; slot 0 holds
        // sequence 6 (the fifth commit), whose length still says the fourth and fifth were committed.
        let slot1 = witnessOffset + CommitWitness.slotSize
        bytes[slot1 + 12] ^= 0x04
        try directory.write(bytes, to: directory.journal)
        var lines: [String] = []
        let loaded = try FileStore(directory: directory.path, bootID: "boot-a").load(now: recoveryTime) {
            lines.append($0)
        }
        let copy = directory.journal + ".damaged-20261129T151733Z"
        let cut = state.commits[3]
        let fifthEnd = state.commits[5]
        #expect(
            lines == [
                "WARNING: \(directory.journal): commit witness slot 1 (bytes \(slot1)..<\(slot1 + CommitWitness.slotSize)) is damaged; the damaged file is kept as \(copy)",
                "WARNING: \(directory.journal): its whole records end at byte \(cut), but its commit witness says \(fifthEnd) bytes were committed (\(fifthEnd - cut) bytes missing, next id 4); records of earlier, acknowledged commits are missing: acknowledged changes were lost; the damaged file is kept as \(copy)",
            ])
        #expect(try directory.bytes(copy) == bytes)
        #expect(loaded.snapshot.nextID == 1 + FileStore.idReservation)
    }

    @Test("A journal cut inside its witness slots is reported, and ids start at the begin record's mark")
    func cutInsideTheWitness() throws {
        let state = try SixCommits()
        let directory = try StateDirectory()
        try directory.write(state.snapshot, to: directory.path + "/snapshot")
        let witnessOffset = state.commits[0] - CommitWitness.areaSize
        let cut = witnessOffset + CommitWitness.slotSize + 5
        try directory.write(Array(state.journal[..<cut]), to: directory.journal)
        var lines: [String] = []
        let loaded = try FileStore(directory: directory.path, bootID: "boot-a").load(now: recoveryTime) {
            lines.append($0)
        }
        let copy = directory.journal + ".damaged-20261129T151733Z"
        // Slot 0 (sequence 6) is whole: it says the fifth commit's end was committed, next id 4
        // (three starts so far: the fifth commit is the stop of timer 1).
        #expect(
            lines == [
                "WARNING: \(directory.journal): the file ends at byte \(cut), inside its commit witness slots (bytes \(witnessOffset)..<\(state.commits[0])): it was cut, and committed records may be lost; the damaged file is kept as \(copy)",
                "WARNING: \(directory.journal): its whole records end at byte \(cut), but its commit witness says \(state.commits[5]) bytes were committed (\(state.commits[5] - cut) bytes missing, next id 4); records of earlier, acknowledged commits are missing: acknowledged changes were lost; the damaged file is kept as \(copy)",
            ])
        #expect(loaded.snapshot.timers.isEmpty)
        #expect(loaded.snapshot.nextID == 1 + FileStore.idReservation)
    }

    @Test("A format 4 journal (no witness) is still read, and the first start rewrites it as format 5 with a witness")
    func versionFourIsRead() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: recoveryTime))
        _ = try engine.start(durations: [60], name: "four")
        let changes = engine.takeChanges()
        let record = try #require(changes.updated.first)
        // Format 4: header, begin record, change records; format 5 only adds the witness slots.
        var bytes = RecordFormat.header(magic: RecordFormat.journalMagic, version: 4)
        bytes += RecordFormat.record(
            .begin, payload: RecordPayload.encode(JournalBegin(generation: 1, bootID: "boot-a", idHighWater: 65_537)))
        for entry in [JournalEntry.timer(record), .nextID(2)] {
            let (kind, payload) = RecordPayload.encode(entry)
            bytes += RecordFormat.record(kind, payload: payload)
        }
        try directory.write(bytes, to: directory.journal)
        let store = FileStore(directory: directory.path, bootID: "boot-a")
        let loaded = try store.load(now: recoveryTime) { Issue.record("\($0)") }
        #expect(loaded.snapshot == engine.snapshot)
        #expect(store.startupCompactionReason == "no snapshot")
        try store.commit(EngineChanges(nextID: loaded.snapshot.nextID), durability: .synchronous) { loaded.snapshot }
        let rewritten = try directory.bytes(directory.journal)
        #expect(rewritten[8..<12] == [5, 0, 0, 0])  // format version 5, little-endian
        let recovered = try #require(Journal.recover(at: directory.journal, now: recoveryTime) { _ in })
        // The new journal's witness: its whole size committed, the engine's next id 2.
        #expect(recovered.witness == CommitWitness(sequence: 1, committedLength: UInt64(rewritten.count), nextID: 2))
    }
}
