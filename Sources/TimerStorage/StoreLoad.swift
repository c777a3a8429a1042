import Countdown

/// What ``TimerStore/load()`` found.
public struct StoreLoad: Sendable, Equatable {
    /// Every timer saved, by ascending id, and the next id to hand out.
    public var snapshot: EngineSnapshot
    /// Whether the state was written on this boot of this machine, so that its boot-time instants
    /// still hold (`TimerEngine.restore(_:sameBoot:)`); false after a reboot.
    public var isSameBoot: Bool
    /// Whether nothing was saved at all (a first start).
    public var isEmpty: Bool
    /// One line per thing recovery repaired, ignored or moved aside, in order, for the log
    /// (`WARNING: …/journal: incomplete last record …`: every line that cut, skipped, copied or
    /// moved data starts with `WARNING:`). Empty after a clean stop.
    public var notes: [String]

    /// Creates a load result.
    ///
    /// - Parameters:
    ///   - snapshot: every timer saved.
    ///   - isSameBoot: whether it was written on this boot.
    ///   - isEmpty: whether nothing was saved.
    ///   - notes: what recovery did, one line each.
    public init(snapshot: EngineSnapshot, isSameBoot: Bool, isEmpty: Bool, notes: [String] = []) {
        self.snapshot = snapshot
        self.isSameBoot = isSameBoot
        self.isEmpty = isEmpty
        self.notes = notes
    }
}
