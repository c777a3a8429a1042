import Countdown
import TimerStorage

/// The `TimerStore` in a PostgreSQL database: `timerd --store postgresql://…`.
///
/// What is built now is the single-writer form (docs/multihost.md): one timerd at a time serves a
/// schema's timers, held by a session-level advisory lock taken at ``load()``; a second timerd on
/// the same schema gets `StoreError/locked(_:)`. Within that form the store behaves exactly as
/// the file store does for one host, and the database is durable, replicable and reachable from
/// other machines:
///
/// - Every ``commit(_:durability:snapshot:)`` is one transaction: the changed timers (each with
///   its engine record, so it round-trips exactly), the removed ones, the next id and one outbox
///   row per state transition. It returns after the server's `COMMIT` (synchronous commit; a
///   `CommitDurability/mayBatch` commit uses `SET LOCAL synchronous_commit = off`, which the
///   next synchronous commit flushes). A failure rolls the transaction back, so nothing is
///   half-applied, and throws `StoreError/unavailable(_:)` reading `database unavailable (…)`.
/// - Ids are assigned by the store's counter (`timerd_ids`) and never handed out twice; names are
///   unique among one owner's live timers by a partial unique index
///   (`StoreError/nameTaken(owner:name:)`).
/// - The connection comes back by itself: the next call after a failure reconnects, takes the
///   lock again, and first writes the durable state back over whatever a commit that broke in
///   flight left (a `COMMIT` lost with its connection may or may not have happened; the caller
///   was told it did not, so it must not have).
///
/// ``durableState()`` answers from the copy of the last committed state the store keeps, so the
/// daemon can undo a refused turn even while the database is down.
public final class PostgresStore: TimerStore {
    /// The connection string (libpq keywords or a `postgresql://` URI; no password).
    public let connectionString: String
    /// This host's name in the database (`timerd --host-id`).
    public let hostID: String
    /// This host's boot id: the engine's boot-time instants hold only on the same boot.
    public let bootID: String

    var connection: PostgresConnection?
    /// Whether this store holds the schema's single-writer lock on ``connection``.
    var holdsLock = false
    /// The state as last committed (what the database holds, since this store is its only writer).
    var durable: [UInt64: TimerRecord] = [:]
    /// The next id as last committed.
    var durableNextID: UInt64 = 1
    /// Whether the database may differ from ``durable`` (a commit failed, maybe after the server
    /// applied it): the next commit first writes ``durable`` back.
    var needsResync = false

    /// How long ``load()`` retries a single-writer lock held by another session, in milliseconds:
    /// a timerd of this host that was just killed may still be leaving the server.
    public var lockWaitMilliseconds = 3_000

    /// The server-side timeouts of the store's connection (``PostgresSessionTimeouts/standard``
    /// unless set before ``load()``).
    public var timeouts = PostgresSessionTimeouts.standard

    /// A store over the database `connectionString` names; nothing is contacted before ``load()``.
    ///
    /// - Parameters:
    ///   - connectionString: a libpq connection string or URI, without a password.
    ///   - hostID: this host's name (`timerd --host-id`; default hostname and boot id).
    ///   - bootID: the machine's boot id (`/proc/sys/kernel/random/boot_id`).
    public init(connectionString: String, hostID: String, bootID: String) {
        self.connectionString = connectionString
        self.hostID = hostID
        self.bootID = bootID
    }

    /// The database as libpq names it (`postgresql://db/timers`, `host=/run/pg dbname=timers`).
    public var location: String { connectionString }

    /// Connects, migrates the schema, takes the single-writer lock and reads every timer.
    ///
    /// - Returns: the timers and next id; `isSameBoot` when this host's recorded boot id matches.
    /// - Throws: `StoreError/unavailable(_:)` (`database unavailable (…)`, a damaged record),
    ///   `StoreError/locked(_:)` when another timerd serves this schema.
    /// - Complexity: O(n) in the timers.
    public func load() throws(StoreError) -> StoreLoad {
        do {
            try connectAndLock()
            guard let connection else { throw PostgresError.unavailable("not connected") }
            let previousBoot = try connection.query(
                "SELECT boot_id FROM timerd_hosts WHERE host_id = $1", [hostID]
            ).value(0, 0)
            try connection.query(
                """
                INSERT INTO timerd_hosts (host_id, boot_id) VALUES ($1, $2)
                ON CONFLICT (host_id) DO UPDATE SET boot_id = EXCLUDED.boot_id, seen_at = now()
                """, [hostID, bootID])
            let (timers, nextID) = try readAll(connection)
            durable = Dictionary(timers.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            durableNextID = nextID
            needsResync = false
            return StoreLoad(
                snapshot: EngineSnapshot(nextID: nextID, timers: timers), isSameBoot: previousBoot == bootID,
                isEmpty: timers.isEmpty && nextID == 1)
        } catch let error as StoreError {
            throw error
        } catch let error as PostgresError {
            throw Self.storeError(error)
        } catch {
            throw .unavailable("\(error)")
        }
    }

    /// Writes one turn's changes in one transaction (see the type's discussion).
    ///
    /// - Parameters:
    ///   - changes: what changed.
    ///   - durability: `CommitDurability/mayBatch` commits without waiting for the WAL flush.
    ///   - snapshot: not evaluated: the store rewrites from its own durable copy.
    /// - Throws: `StoreError/unavailable(_:)`, `StoreError/nameTaken(owner:name:)`,
    ///   `StoreError/idReused(_:)`; nothing of the commit is then applied.
    /// - Complexity: O(k) statements for k changed timers (one round trip each).
    public func commit(_ changes: EngineChanges, durability: CommitDurability, snapshot: () -> EngineSnapshot)
        throws(StoreError)
    {
        if changes.isEmpty && changes.nextID <= durableNextID && !needsResync { return }
        try write(changes, durability: durability)
    }

    /// The state as last committed, kept in memory: readable while the database is down.
    ///
    /// - Returns: the committed timers by ascending id and the next id.
    /// - Complexity: O(n log n).
    public func durableState() throws(StoreError) -> EngineSnapshot {
        EngineSnapshot(nextID: durableNextID, timers: durable.values.sorted { $0.id < $1.id })
    }

    /// A database compacts itself (autovacuum): never due.
    ///
    /// - Parameters:
    ///   - isQuiet: unused.
    ///   - snapshot: not evaluated.
    /// - Returns: false.
    @discardableResult
    public func compactIfDue(isQuiet: Bool, snapshot: () -> EngineSnapshot) throws(StoreError) -> Bool { false }

    /// Writes what differs between the durable state and `snapshot`, then disconnects (releasing
    /// the lock). The store may be loaded again.
    ///
    /// - Parameter snapshot: every timer.
    /// - Throws: `StoreError/unavailable(_:)`; the database then holds the last commit.
    /// - Complexity: O(n) in the timers.
    public func close(_ snapshot: EngineSnapshot) throws(StoreError) {
        defer {
            connection = nil
            holdsLock = false
        }
        let present = Set(snapshot.timers.map(\.id))
        let changed = snapshot.timers.filter { durable[$0.id] != $0 }
        let removed = durable.keys.filter { !present.contains($0) }.sorted()
        try write(EngineChanges(nextID: snapshot.nextID, updated: changed, removed: removed), durability: .synchronous)
    }

    /// The store error a database error becomes: the text is what a client reads after
    /// `state could not be saved:` or `the change was not saved …:`.
    static func storeError(_ error: PostgresError) -> StoreError {
        switch error {
        case .unavailable, .readOnly, .server, .constraint, .invalidConnectionString:
            return .unavailable(error.description)
        }
    }
}
