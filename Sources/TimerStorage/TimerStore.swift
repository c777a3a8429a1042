import Countdown

/// Where the engine's timers outlive the process: the seam between the daemon's event loop and
/// whatever keeps the state (a journal on disk, memory, later a database shared by several hosts).
///
/// The daemon owns one store and calls it from its event loop, one call at a time, in this order:
///
/// 1. ``load()`` once at start-up; the daemon restores its engine from the returned snapshot
///    (`TimerEngine.restore(_:sameBoot:)`), which finishes the timers that ended while nobody ran.
/// 2. ``commit(_:durability:snapshot:)`` with what the restore changed, then once per turn of the
///    loop in which anything changed, *before* that turn's replies are sent: a change the store
///    has not accepted is never acknowledged.
/// 3. ``compactIfDue(isQuiet:snapshot:)`` after every turn, and again no later than
///    ``nextWake(now:)`` asks for.
/// 4. ``close(_:)`` once at a clean stop, with the whole state.
///
/// A store is a class because it owns resources (descriptors, a lock, a connection) and has one
/// owner: it is not `Sendable` and never shared between threads.
///
/// ## Implementations
/// - ``FileStore``: a snapshot and a write-ahead journal in a state directory (`timerd`'s default),
///   or the same files written only at a clean stop (`timerd --save exit`, ``FileStore/WritePolicy``).
/// - ``MemoryStore``: the state in memory, checked as a shared store would check it.
///
/// ## How a shared store (several hosts, one database) uses each method
/// A store that several daemons share (prior art: the job queues river, Oban and solid_queue) is
/// the authority, not a copy of one engine. The PostgreSQL store (`PostgresStore` in the
/// TimerPostgres module) is built so far in the form where one timerd serves a schema
/// (docs/multihost.md); this is the contract its shared form will meet:
/// - ``load()`` reads the timers this host may serve; `isSameBoot` is false, because boot-time
///   instants of another host mean nothing here (the engine then re-times running timers from
///   their wall-clock start).
/// - ``commit(_:durability:snapshot:)`` writes the changes in one transaction and refuses the whole
///   commit with ``StoreError/nameTaken(owner:name:)`` when another host holds the name, or
///   ``StoreError/idReused(_:)`` when an id was handed out twice; the caller then drops the turn's
///   replies, as for any failed commit, and must then reload the refused timers from the store.
///   ``MemoryStore`` makes the same checks, so these refusals are tested today. Ids come from the
///   store: its ``load()`` returns a `nextID` at the start of a range reserved for this host.
/// - ``deadlineClock`` is the clock every deadline is measured on: a shared store returns one that
///   reads the database's `now()`, so that hosts whose clocks disagree still fire a timer once.
/// - ``nextWake(now:)`` is when to poll for timers other hosts made due (capped at about 1 s).
/// - ``compactIfDue(isQuiet:snapshot:)`` is where such a store would rescue expired claims; a
///   database compacts by itself.
public protocol TimerStore: AnyObject {
    /// Where the state is kept, for log lines: a directory, `memory`, a database's name.
    var location: String { get }

    /// The clock deadlines are measured on, when the store owns it; `nil` (the default) means the
    /// host's own boot-time clock, which the daemon then passes to its engine.
    ///
    /// File and memory stores serve one host and return `nil`. A shared store returns a clock that
    /// follows the database's `now()`: hosts must compare deadlines against one clock, never each
    /// their own, or a timer fires twice or late when their clocks disagree.
    var deadlineClock: (any CountdownClock)? { get }

    /// Reads the saved state, repairing what a crash can leave (a torn journal tail, a damaged
    /// file moved aside), and takes whatever exclusive hold the store needs (the file store locks
    /// its directory).
    ///
    /// - Returns: the snapshot to restore, whether it was written on this boot, and one line per
    ///   repair for the log (``StoreLoad``).
    /// - Throws: ``StoreError/unavailable(_:)`` when the state cannot be read or repaired, or
    ///   ``StoreError/locked(_:)`` when another process holds it.
    /// - Complexity: O(n) in the saved timers (plus O(k log k) for k journal records).
    func load() throws(StoreError) -> StoreLoad

    /// Accepts one turn's changes: after this returns they survive a crash at the `durability`
    /// asked for. The first commit after ``load()`` carries what the engine's restore changed and
    /// ends the store's start-up (the file store decides there whether to go on with the journal
    /// it found or to write a fresh snapshot).
    ///
    /// - Parameters:
    ///   - changes: what changed since the last commit (`TimerEngine.takeChanges()`).
    ///   - durability: whether the changes must be durable before this returns
    ///     (``CommitDurability/synchronous``) or may ride with the next synchronous commit.
    ///   - snapshot: the whole state now; evaluated only when the store rewrites everything (after
    ///     an earlier failure, at start-up compaction).
    /// - Throws: ``StoreError``: nothing of this commit may be durable, the caller must not
    ///   acknowledge the changes; the store recovers on the next commit (the file store then
    ///   writes a whole snapshot).
    /// - Complexity: O(k) for k changed timers; O(n) when it rewrites the snapshot.
    func commit(_ changes: EngineChanges, durability: CommitDurability, snapshot: () -> EngineSnapshot)
        throws(StoreError)

    /// The state as the store last made it durable: what a crash now would restart from.
    ///
    /// After ``commit(_:durability:snapshot:)`` threw, the caller rebuilds its engine from this
    /// (`TimerEngine.restore(_:sameBoot:)`) and answers the turn's changing requests with an
    /// error, so a change that could not be made durable is neither acknowledged nor kept in
    /// memory, and can never be written later by a compaction (docs/durability.md, "Disk full").
    ///
    /// - Returns: every timer durable now, and the next id (never lower than an id handed out).
    /// - Throws: ``StoreError/unavailable(_:)`` when the durable state cannot be read.
    /// - Complexity: O(n + k log k) for n timers and k journal records.
    func durableState() throws(StoreError) -> EngineSnapshot

    /// Compacts when the store's own bookkeeping says it is due (the file store: the journal past
    /// its limits), and when `isQuiet` or the need is pressing.
    ///
    /// - Parameters:
    ///   - isQuiet: whether nothing would be delayed now (no reply waiting, no timer due within
    ///     100 ms); a busy caller passes false and the store compacts only when it must.
    ///   - snapshot: the whole state now, evaluated only when compacting.
    /// - Returns: whether it compacted.
    /// - Throws: ``StoreError/unavailable(_:)``; the store stays usable and retries later.
    /// - Complexity: O(1) when not due; O(n) in the timers when compacting.
    @discardableResult
    func compactIfDue(isQuiet: Bool, snapshot: () -> EngineSnapshot) throws(StoreError) -> Bool

    /// When the loop should call ``compactIfDue(isQuiet:snapshot:)`` again even if nothing happens
    /// (a compaction put off while busy), in nanoseconds of the boot-time clock; `nil` for never.
    ///
    /// - Parameter now: the boot-time clock's reading, in nanoseconds.
    /// - Returns: a boot-time instant in nanoseconds (≥ `now`), or `nil`.
    func nextWake(now: Int64) -> Int64?

    /// Saves the whole state at a clean stop and releases what the store holds (descriptors, the
    /// directory lock). A closed store may be loaded again.
    ///
    /// - Parameter snapshot: every timer, as the engine holds them now.
    /// - Throws: ``StoreError/unavailable(_:)``: the state may be as of the last commit only.
    /// - Complexity: O(n) in the timers.
    func close(_ snapshot: EngineSnapshot) throws(StoreError)

    /// What the store counts about itself (journal size, compactions), read when the daemon's
    /// metrics are scraped; the default has no figures.
    ///
    /// - Complexity: O(1).
    var figures: StoreFigures { get }
}

extension TimerStore {
    /// The host's boot-time clock: no store of one host owns the clock.
    public var deadlineClock: (any CountdownClock)? { nil }

    /// No wake-up needed.
    ///
    /// - Parameter now: unused.
    /// - Returns: `nil`.
    public func nextWake(now: Int64) -> Int64? { nil }

    /// No figures.
    public var figures: StoreFigures { StoreFigures() }
}
