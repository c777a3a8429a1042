import Countdown

/// The state in memory: what a program embedding the engine uses when nothing must outlive the
/// process, and the reference for a shared store's checks.
///
/// Every commit is applied at once (``CommitDurability`` makes no difference: memory has no
/// `fsync`), after two checks a store of several writers must make and the file store, whose only
/// writer is one engine, leaves out: a new timer's id must never have been handed out before
/// (``StoreError/idReused(_:)``), and no two live timers of one owner may share a name
/// (``StoreError/nameTaken(owner:name:)``). A refused commit changes nothing.
///
/// The state sits in ``Contents``, which outlives a store as a directory outlives a daemon: a new
/// `MemoryStore` over the same contents loads what the last one committed.
public final class MemoryStore: TimerStore {
    /// The memory a ``MemoryStore`` keeps its state in.
    public final class Contents {
        fileprivate struct NameKey: Hashable {
            var owner: UInt32
            var name: String
        }

        /// The next id to hand out: every id below it has been used.
        public fileprivate(set) var nextID: UInt64
        fileprivate var timers: [UInt64: TimerRecord] = [:]
        fileprivate var liveNames: [NameKey: UInt64] = [:]

        /// Memory holding `snapshot` (by default none: nothing saved, the next id 1).
        ///
        /// - Parameter snapshot: the state to start with.
        /// - Complexity: O(n) in the timers.
        public init(snapshot: EngineSnapshot = EngineSnapshot(nextID: 1, timers: [])) {
            nextID = 1
            replace(with: snapshot)
        }

        /// Every timer held, by ascending id.
        ///
        /// - Complexity: O(n log n) in the timers.
        public var snapshot: EngineSnapshot {
            EngineSnapshot(nextID: nextID, timers: timers.values.sorted { $0.id < $1.id })
        }

        /// Whether nothing was ever stored.
        public var isEmpty: Bool { timers.isEmpty && nextID == 1 }

        fileprivate func replace(with snapshot: EngineSnapshot) {
            timers = Dictionary(snapshot.timers.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            nextID = max(snapshot.nextID, (snapshot.timers.map(\.id).max() ?? 0) + 1)
            liveNames = [:]
            for record in snapshot.timers where record.state.isLive {
                if let name = record.name { liveNames[NameKey(owner: record.owner, name: name)] = record.id }
            }
        }

        /// Checks `changes` against the contents, then applies them; nothing is applied on refusal.
        fileprivate func apply(_ changes: EngineChanges) throws(StoreError) {
            let removed = Set(changes.removed)
            var updated: [UInt64: TimerRecord] = [:]
            for record in changes.updated {
                if timers[record.id] == nil, record.id < nextID { throw .idReused(record.id) }
                updated[record.id] = record
            }
            // Who holds each name after the commit: the new state wins over the stored one.
            var claimed: [NameKey: UInt64] = [:]
            for record in changes.updated where record.state.isLive && !removed.contains(record.id) {
                guard let name = record.name else { continue }
                let key = NameKey(owner: record.owner, name: name)
                if let other = claimed[key], other != record.id { throw .nameTaken(owner: record.owner, name: name) }
                claimed[key] = record.id
                if let holder = liveNames[key], holder != record.id, !removed.contains(holder),
                    updated[holder].map({ $0.state.isLive && $0.name == name && $0.owner == record.owner }) ?? true
                {
                    throw .nameTaken(owner: record.owner, name: name)
                }
            }
            for id in changes.removed { forget(id) }
            for record in changes.updated {
                forget(record.id)
                timers[record.id] = record
                if record.state.isLive, let name = record.name {
                    liveNames[NameKey(owner: record.owner, name: name)] = record.id
                }
            }
            nextID = max(nextID, changes.nextID, (changes.updated.map(\.id).max() ?? 0) + 1)
        }

        private func forget(_ id: UInt64) {
            guard let old = timers.removeValue(forKey: id), let name = old.name else { return }
            let key = NameKey(owner: old.owner, name: name)
            if liveNames[key] == id { liveNames[key] = nil }
        }
    }

    /// The memory this store reads and writes.
    public let contents: Contents

    /// `memory`.
    public var location: String { "memory" }

    /// What the last accepted commit left: the contents.
    ///
    /// - Returns: ``Contents/snapshot``.
    /// - Complexity: O(n log n) in the timers.
    public func durableState() throws(StoreError) -> EngineSnapshot { contents.snapshot }

    /// A store over `contents` (by default fresh, empty memory).
    ///
    /// - Parameter contents: the memory to use; pass the contents of an earlier store to load what
    ///   it committed.
    public init(contents: Contents = Contents()) {
        self.contents = contents
    }

    /// The contents as they are. Boot-time instants hold: memory does not outlive a boot.
    ///
    /// - Returns: the contents' snapshot, with `isSameBoot` true and no notes.
    /// - Complexity: O(n log n) in the timers.
    public func load() throws(StoreError) -> StoreLoad {
        StoreLoad(snapshot: contents.snapshot, isSameBoot: true, isEmpty: contents.isEmpty)
    }

    /// Checks and applies `changes` (see the type's discussion); `durability` and `snapshot` are
    /// not needed in memory.
    ///
    /// - Parameters:
    ///   - changes: what changed.
    ///   - durability: ignored: applied changes are as durable as memory is.
    ///   - snapshot: not evaluated.
    /// - Throws: ``StoreError/idReused(_:)`` or ``StoreError/nameTaken(owner:name:)``; the contents
    ///   are then unchanged.
    /// - Complexity: O(k) for k changed timers.
    public func commit(_ changes: EngineChanges, durability: CommitDurability, snapshot: () -> EngineSnapshot)
        throws(StoreError)
    {
        try contents.apply(changes)
    }

    /// Memory has no journal to fold: never due.
    ///
    /// - Parameters:
    ///   - isQuiet: unused.
    ///   - snapshot: not evaluated.
    /// - Returns: false.
    @discardableResult
    public func compactIfDue(isQuiet: Bool, snapshot: () -> EngineSnapshot) throws(StoreError) -> Bool { false }

    /// Replaces the contents with `snapshot`, the whole state at a clean stop.
    ///
    /// - Parameter snapshot: every timer.
    /// - Complexity: O(n) in the timers.
    public func close(_ snapshot: EngineSnapshot) throws(StoreError) {
        contents.replace(with: snapshot)
    }
}
