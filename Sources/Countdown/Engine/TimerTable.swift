/// The engine's timers by id, remembering which ids were written since the owner last asked.
///
/// A dictionary with a change set beside it: every write through the subscript (insert, update
/// or removal) adds the id to ``changedIDs``, so an owner that persists the engine can journal just
/// what changed in one turn (``TimerEngine/takeChanges()``) instead of the whole state.
struct TimerTable: Sendable, ExpressibleByDictionaryLiteral {
    private var records: [UInt64: TimerRecord]
    /// Ids written since the last ``forgetChanges()``; a removed id stays here.
    private(set) var changedIDs: Set<UInt64> = []

    /// Creates a table from literal pairs; they count as changed.
    init(dictionaryLiteral elements: (UInt64, TimerRecord)...) {
        records = Dictionary(elements, uniquingKeysWith: { _, last in last })
        changedIDs = Set(records.keys)
    }

    /// The record with `id`; setting it (or `nil`) marks `id` changed.
    subscript(id: UInt64) -> TimerRecord? {
        get { records[id] }
        set {
            records[id] = newValue
            changedIDs.insert(id)
        }
    }

    /// Every record, in no particular order.
    var values: Dictionary<UInt64, TimerRecord>.Values { records.values }

    /// Empties the change set.
    mutating func forgetChanges() {
        changedIDs.removeAll(keepingCapacity: true)
    }
}
