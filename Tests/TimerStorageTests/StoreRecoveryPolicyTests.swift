import Countdown
import Foundation
import Glibc
import TestSupport
import Testing

@testable import TimerStorage

/// When recovery runs: 2026-11-29T15:17:33Z.
private let policyTime = FixedInstant.engineStart

@Suite("The file store's policies: state loss, back-off, format upgrade, refused appends")
struct StoreRecoveryPolicyTests {
    @Test("--accept-state-loss: a missing journal is logged and the start goes on, ids above the snapshot's mark")
    func acceptedLoss() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: policyTime))
        let first = FileStore(directory: directory.path, bootID: "boot-a")
        _ = try first.load(now: policyTime) { _ in }
        try first.open(restoring: engine.takeChanges(), snapshot: { engine.snapshot })
        _ = try engine.start(durations: [60], name: "kept")
        try first.close(engine.snapshot)  // generation 2, mark 2 + 65,536
        try FileManager.default.removeItem(atPath: directory.journal)
        #expect(throws: StoreError.self) { try FileStore(directory: directory.path, bootID: "boot-a").load() }
        let accepting = FileStore(directory: directory.path, bootID: "boot-a", lossPolicy: .accept)
        var lines: [String] = []
        let loaded = try accepting.load(now: policyTime) { lines.append($0) }
        #expect(
            lines == [
                "WARNING: \(directory.path): the snapshot expects journal generation 2, but there is no journal; going on with what is left (--accept-state-loss)"
            ])
        #expect(loaded.snapshot.timers.map(\.name) == ["kept"])
        // The snapshot's mark: its next id (2) + FileStore.idReservation (65,536).
        #expect(loaded.snapshot.nextID == 65_538)
    }

    @Test("A refusal names the directory, what is missing and the way out")
    func refusalText() throws {
        let directory = try StateDirectory()
        let store = FileStore(directory: directory.path, bootID: "boot-a")
        let engine = try boot(store, clock: ManualClock(wall: policyTime)).0  // generation 1
        try store.close(engine.snapshot)  // generation 2
        try FileManager.default.removeItem(atPath: store.snapshotPath)
        #expect(
            throws: StoreError.stateLost(
                "the state in \(directory.path) is incomplete: the journal continues snapshot generation 2, but there is no snapshot; "
                    + "acknowledged changes would be lost, so timerd does not start. Restore the missing file, or start "
                    + "once with --accept-state-loss to go on with what is left")
        ) { try FileStore(directory: directory.path, bootID: "boot-a").load() }
    }

    @Test("A failed compaction is retried after 100 ms, then 200 ms, and the journal keeps taking commits")
    func compactionBackoff() throws {
        let directory = try StateDirectory()
        final class Clock { var nanoseconds: Int64 = 1_000_000_000 }
        let now = Clock()
        let store = FileStore(
            directory: directory.path, bootID: "boot-a", journalMaximumRecords: 2, bootNanoseconds: { now.nanoseconds })
        var engine = try boot(store, clock: ManualClock(wall: policyTime)).0
        _ = try engine.start(durations: [60])
        try engine.commit(to: store)  // 2 records: due
        try FileManager.default.createDirectory(atPath: store.snapshotPath + ".tmp", withIntermediateDirectories: false)
        let snapshot = engine.snapshot
        #expect(throws: StoreError.self) { try store.compactIfDue(snapshot: { snapshot }) }
        #expect(store.nextWake(now: 1_000_000_000) == 1_100_000_000)
        #expect(try store.compactIfDue(snapshot: { snapshot }) == false)  // within the back-off: not tried
        _ = try engine.start(durations: [60])
        try engine.commit(to: store)  // the journal still takes commits
        now.nanoseconds = 1_100_000_000
        #expect(throws: StoreError.self) { try store.compactIfDue(snapshot: { engine.snapshot }) }
        #expect(store.nextWake(now: 1_100_000_000) == 1_300_000_000)  // doubled
        try FileManager.default.removeItem(atPath: store.snapshotPath + ".tmp")
        now.nanoseconds = 1_300_000_000
        #expect(try store.compactIfDue(snapshot: { engine.snapshot }))
        #expect(store.nextWake(now: 1_300_000_000) == nil)
        #expect(try FileStore(directory: directory.path, bootID: "boot-a").load { _ in }.snapshot == engine.snapshot)
    }

    @Test("A format 2 journal (no high-water mark, no extension trailer) is read and rewritten as format 5")
    func versionTwoUpgrade() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: policyTime))
        _ = try engine.start(durations: [60], name: "old")
        let record = try #require(engine.takeChanges().updated.first)
        // Version 2's begin payload is version 3's without the trailing UInt64 mark (RecordPayload).
        let begin = Array(RecordPayload.encode(JournalBegin(generation: 1, bootID: "boot-a")).dropLast(8))
        var bytes = RecordFormat.header(magic: RecordFormat.journalMagic, version: 2)
        bytes += RecordFormat.record(.begin, payload: begin)
        // Version 2's timer is version 4's without the extension trailer (an empty one: its UInt32 count).
        bytes += RecordFormat.record(.timer, payload: Array(record.binaryEncoded.dropLast(4)))
        try directory.write(bytes, to: directory.journal)
        let store = FileStore(directory: directory.path, bootID: "boot-a")
        let loaded = try store.load(now: policyTime) { Issue.record("\($0)") }
        #expect(loaded.snapshot.timers == [record])
        try store.commit(EngineChanges(nextID: loaded.snapshot.nextID), durability: .synchronous) { loaded.snapshot }
        for file in [store.snapshotPath, directory.journal] {
            #expect(try directory.bytes(file)[8..<12] == [5, 0, 0, 0])  // format version 5, little-endian
        }
    }

    @Test("A format 3 journal (no extension trailer) is read, and its timers have no extensions")
    func versionThreeUpgrade() throws {
        let directory = try StateDirectory()
        var engine = TimerEngine(clock: ManualClock(wall: policyTime))
        _ = try engine.start(durations: [60], name: "three")
        let record = try #require(engine.takeChanges().updated.first)
        var bytes = RecordFormat.header(magic: RecordFormat.journalMagic, version: 3)
        bytes += RecordFormat.record(
            .begin, payload: RecordPayload.encode(JournalBegin(generation: 1, bootID: "boot-a")))
        // Version 3's timer is version 4's without the trailer's UInt32 count.
        bytes += RecordFormat.record(.timer, payload: Array(record.binaryEncoded.dropLast(4)))
        try directory.write(bytes, to: directory.journal)
        let store = FileStore(directory: directory.path, bootID: "boot-a")
        let loaded = try store.load(now: policyTime) { Issue.record("\($0)") }
        #expect(loaded.snapshot.timers == [record])
        #expect(loaded.snapshot.timers.first?.extensions == [])
    }

    @Test("A refused append is cut off the journal and is not in the durable state (real ENOSPC on a 256 KiB tmpfs)")
    func refusedAppend() throws {
        let directory = try StateDirectory()
        let mountPoint = directory.path + "/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        // Root only; fails loudly rather than skipping.
        try #require(mount("tmpfs", mountPoint, "tmpfs", 0, "size=256k") == 0, "mount tmpfs: errno \(errno)")
        defer { umount2(mountPoint, Int32(MNT_DETACH)) }
        let store = FileStore(directory: mountPoint, bootID: "boot-a")
        var engine = try boot(store, clock: ManualClock(wall: policyTime)).0
        _ = try engine.start(durations: [60], name: "kept")
        try engine.commit(to: store)
        let durableBefore = try store.durableState()
        let filler = open(mountPoint + "/filler", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        let page = [UInt8](repeating: 0, count: 4_096)
        while page.withUnsafeBytes({ write(filler, $0.baseAddress, $0.count) }) > 0 {}
        close(filler)
        let sizeBefore = try directory.bytes(mountPoint + "/journal").count
        // The journal's last tmpfs page has `slack` bytes left. Each start appends its timer record
        // and a nextID record (9 + 8 bytes), each stop the timer record: a name length is chosen so
        // that the first append that needs a new page is a start (a refused stop would leave an
        // acknowledged start live). Record sizes are measured, not assumed (the format may grow).
        let slack = (4_096 - sizeBefore % 4_096) % 4_096
        func recordSize(nameLength: Int) throws -> Int {
            var probe = TimerEngine(clock: ManualClock(wall: policyTime))
            _ = try probe.start(durations: [60], name: String(repeating: "n", count: nameLength))
            return RecordFormat.recordHeaderSize + (probe.takeChanges().updated.first?.binaryEncoded.count ?? 0)
        }
        let nameLength = try #require(
            try (1...64).first { length in
                let stop = try recordSize(nameLength: length)
                let start = stop + RecordFormat.recordHeaderSize + 8
                return slack % (start + stop) < start
            })
        let name = String(repeating: "n", count: nameLength)
        var refusal: (any Error)?
        for _ in 0..<100 where refusal == nil {  // until the journal needs a new page
            let started = try engine.start(durations: [60], name: name)
            do { try engine.commit(to: store) } catch { refusal = error }
            if refusal == nil { _ = try engine.stop(.id(started.id)) }  // acknowledged: undo by a stop
            if refusal == nil { try engine.commit(to: store) }
        }
        let error = try #require(refusal)
        #expect("\(error)".contains("No space left on device"))
        let durable = try store.durableState()
        #expect(!durable.timers.contains { $0.state.isLive && $0.name != "kept" })  // the refused start is not durable
        #expect(durable.timers.first == durableBefore.timers.first)
        #expect(try directory.bytes(mountPoint + "/journal").count >= sizeBefore)
        // The journal as the refusal left it reads back whole and quiet: its records end where its
        // commit witness says (Journal.append writes the records before the witness, so the refused
        // batch failed before its witness was written, and was cut off), so a crash now would not
        // report a loss that never happened.
        var lines: [String] = []
        let found = try Journal.recover(at: mountPoint + "/journal", now: policyTime) { lines.append($0) }
        #expect(lines.isEmpty)
        #expect(found?.isIntact == true)
        #expect(found?.witness?.committedLength == UInt64(try directory.bytes(mountPoint + "/journal").count))
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        var rebuilt = TimerEngine(clock: ManualClock(wall: policyTime))
        _ = rebuilt.restore(durable, sameBoot: true)
        try rebuilt.commit(to: store)  // compacts: space is back
        #expect(try FileStore(directory: mountPoint, bootID: "boot-a").load { _ in }.snapshot == rebuilt.snapshot)
    }
}
