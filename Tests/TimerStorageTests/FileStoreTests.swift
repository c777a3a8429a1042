import Countdown
import Foundation
import Glibc
import Testing

@testable import TimerStorage

@Suite("The file store: its write policy, its lock, its wake-up and its formats")
struct FileStoreTests {
    @Test("With writePolicy atClose (timerd --save exit) a crash keeps the start-up state, close saves everything")
    func atClose() throws {
        let directory = try StateDirectory()
        let clock = ManualClock(wall: storeTestTime)
        func open() -> FileStore { FileStore(directory: directory.path, bootID: "boot-a", writePolicy: .atClose) }
        do {
            let store = open()
            var engine = try boot(store, clock: clock).0
            _ = try engine.start(durations: [60], name: "lost")
            try engine.commit(to: store)
        }
        let afterCrash = try open().load()
        #expect(afterCrash.snapshot == EngineSnapshot(nextID: 1, timers: []))  // start-up wrote the empty state
        var expected = EngineSnapshot(nextID: 0, timers: [])
        do {
            let store = open()
            var engine = try boot(store, clock: clock).0
            _ = try engine.start(durations: [60], name: "kept")
            try engine.commit(to: store)
            #expect(store.journalSize?.records == 0)  // nothing written by the commit
            try store.close(engine.snapshot)
            expected = engine.snapshot
        }
        #expect(try open().load().snapshot == expected)
    }

    @Test("A second store on a locked directory is refused until the first closes")
    func lock() throws {
        let directory = try StateDirectory()
        let first = FileStore(directory: directory.path, bootID: "boot-a")
        let second = FileStore(directory: directory.path, bootID: "boot-a")
        _ = try first.load()
        // StateLock.HeldError's text, with this process as the holder.
        #expect(
            throws: StoreError.locked(
                "another timerd (pid \(getpid())) is using the state directory \(directory.path); "
                    + "stop it, or give this one its own --state-dir")
        ) { try second.load() }
        try first.close(EngineSnapshot(nextID: 1, timers: []))
        #expect(try second.load().snapshot == EngineSnapshot(nextID: 1, timers: []))
    }

    @Test("A compaction put off while busy asks for a wake-up 100 ms later, until it is done")
    func wakeForCompaction() throws {
        let directory = try StateDirectory()
        let store = FileStore(directory: directory.path, bootID: "boot-a", journalMaximumRecords: 2)
        var engine = try boot(store, clock: ManualClock(wall: storeTestTime)).0
        #expect(store.nextWake(now: 5_000_000_000) == nil)
        _ = try engine.start(durations: [60])
        try engine.commit(to: store)  // 2 records: the timer and the next id
        let snapshot = engine.snapshot
        #expect(try store.compactIfDue(isQuiet: false, snapshot: { snapshot }) == false)
        #expect(store.nextWake(now: 5_000_000_000) == 5_100_000_000)
        #expect(try store.compactIfDue(isQuiet: true, snapshot: { snapshot }))
        #expect(store.nextWake(now: 5_000_000_000) == nil)
    }

    @Test("State files of format version 1 (JSON, never released) are moved aside, not read")
    func versionOneIsNotRead() throws {
        let directory = try StateDirectory()
        // Only a journal, and it is unusable: refused unless the loss is accepted.
        let store = FileStore(directory: directory.path, bootID: "boot-a", lossPolicy: .accept)
        var journal = RecordFormat.header(magic: RecordFormat.journalMagic, version: 1)
        journal += RecordFormat.record(.begin, payload: Array(#"{"generation":3,"bootID":"boot-a"}"#.utf8))
        try Data(journal).write(to: URL(fileURLWithPath: store.journalPath))
        var lines: [String] = []
        let loaded = try store.load(now: storeTestTime) { lines.append($0) }
        #expect(loaded.snapshot == EngineSnapshot(nextID: 1, timers: []))
        // recoveryTime's name for a damaged file: 2026-11-29T15:17:33Z.
        let aside = store.journalPath + ".damaged-20261129T151733Z"
        #expect(
            lines == [
                "WARNING: \(store.journalPath): not a timerd journal (format version 1; this timerd reads versions 2 to 5); moved it to \(aside) and ignored it",
                "WARNING: \(directory.path): there is no snapshot and the journal is unusable; going on with what is left (--accept-state-loss)",
            ])
    }
}
