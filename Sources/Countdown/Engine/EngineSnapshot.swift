import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What the engine persists: enough to rebuild every timer after a restart.
public struct EngineSnapshot: Sendable, Hashable {
    /// The next id to hand out; ids are never reused within one state.
    public var nextID: UInt64
    /// Every timer the engine holds, live ones and the ended history, by ascending id.
    public var timers: [TimerRecord]

    /// Creates a snapshot, as a store that keeps the state outside the engine rebuilds it.
    ///
    /// - Parameters:
    ///   - nextID: the next id to hand out.
    ///   - timers: every timer, by ascending id.
    public init(nextID: UInt64, timers: [TimerRecord]) {
        self.nextID = nextID
        self.timers = timers
    }
}
