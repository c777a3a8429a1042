import Countdown
import Foundation
import Glibc
import TestSupport
import TimerPostgres
import TimerStorage

/// When the stores of these tests are used: 2026-11-29T15:17:33Z.
let storeTestTime = Date(timeIntervalSince1970: 1_795_965_453)

/// The stores the conformance suite runs on.
enum StoreKind: String, CaseIterable, CustomStringConvertible, Sendable {
    /// ``FileStore`` in a temporary directory, journal limit 4 records so that compaction happens.
    case file
    /// ``MemoryStore`` over one ``MemoryStore/Contents``.
    case memory
    /// `PostgresStore` in a fresh schema of the test cluster, host `host-a`, boot `boot-a`.
    case postgres

    /// Every store; PostgreSQL whenever the test cluster is enabled (always in CI, where a missing
    /// server then fails these tests rather than leaving them out).
    static var allCases: [StoreKind] {
        PostgresTestCluster.isEnabled ? [.file, .memory, .postgres] : [.file, .memory]
    }

    var description: String { rawValue }

    /// A fixture with nothing saved yet.
    func makeFixture() throws -> StoreFixture { try StoreFixture(self) }
}

/// Opens stores over one saved state, as each start of a daemon opens the same state directory.
final class StoreFixture {
    /// Which store.
    let kind: StoreKind
    private let directory: StateDirectory?
    private let contents = MemoryStore.Contents()
    private let postgres: String?

    init(_ kind: StoreKind) throws {
        self.kind = kind
        directory = kind == .file ? try StateDirectory() : nil
        if kind == .postgres {
            // A schema of its own: the tables the store creates stay apart from other tests'.
            let base = try PostgresTestCluster.connectionString()
            let schema = "c_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try PostgresConnection(connectionString: base).execute("CREATE SCHEMA \(schema)")
            postgres = base + " options='-csearch_path=\(schema)'"
        } else {
            postgres = nil
        }
    }

    /// A new store over the same state as every earlier one of this fixture (a restart). The file
    /// store's boot id is fixed, so a restart is on the same boot.
    func open() -> any TimerStore {
        if let directory {
            return FileStore(directory: directory.path, bootID: "boot-a", journalMaximumRecords: 4)
        }
        if let postgres { return PostgresStore(connectionString: postgres, hostID: "host-a", bootID: "boot-a") }
        return MemoryStore(contents: contents)
    }
}

/// Starts an engine from `store` the way timerd does: load, restore, commit what the restore
/// changed.
///
/// - Parameters:
///   - store: a store not yet loaded.
///   - clock: the engine's clock.
///   - historyLimit: ended timers to keep.
/// - Returns: the engine and what the store loaded.
func boot(_ store: any TimerStore, clock: ManualClock, historyLimit: Int = 1_000) throws -> (TimerEngine, StoreLoad) {
    let loaded = try store.load()
    var engine = TimerEngine(clock: clock, historyLimit: historyLimit)
    _ = engine.restore(loaded.snapshot, sameBoot: loaded.isSameBoot)
    try store.commit(engine.takeChanges(), durability: .synchronous, snapshot: { engine.snapshot })
    return (engine, loaded)
}

extension TimerEngine {
    /// Commits what changed since the last commit to `store`.
    mutating func commit(to store: any TimerStore, _ durability: CommitDurability = .synchronous) throws {
        let snapshot = self.snapshot
        try store.commit(takeChanges(), durability: durability, snapshot: { snapshot })
    }
}

extension StoreFixture {
    /// Opens a store, runs `body` with it and lets it go: the end of a daemon's run. Without a
    /// ``TimerStore/close(_:)`` in `body` it is a crash (the file store's lock goes with it).
    func session(_ body: (any TimerStore) throws -> Void) throws {
        try body(open())
    }
}
