/// What a store counts about itself, for the daemon's metrics (docs/metrics.md): each figure is
/// `nil` when the store has no such thing (a memory store has no journal).
public struct StoreFigures: Sendable, Hashable {
    /// The size of the journal in use, in bytes (begin record and commit witness included).
    public var journalBytes: Int?
    /// The change records in the journal in use.
    public var journalRecords: Int?
    /// Compactions (a new snapshot and an empty journal) since the store was opened, the one at
    /// start-up included.
    public var compactions: Int?

    /// Creates figures; every figure left out is `nil`.
    ///
    /// - Parameters:
    ///   - journalBytes: the journal's size in bytes.
    ///   - journalRecords: its change records.
    ///   - compactions: compactions since the store was opened.
    public init(journalBytes: Int? = nil, journalRecords: Int? = nil, compactions: Int? = nil) {
        self.journalBytes = journalBytes
        self.journalRecords = journalRecords
        self.compactions = compactions
    }
}
