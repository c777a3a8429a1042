#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What marks a heartbeat timer (`timerctl start DURATION --heartbeat`), a dead-man switch: a
/// service calls ``TimerEngine/beat(_:requester:)`` (`timerctl beat NAME`) more often than the
/// timer's duration, each beat re-arms the whole duration from now, and the timer finishes (and
/// its on-finish action alerts) only when the beats stop for a whole duration.
///
/// Persisted as extension tag 3 of the store's record trailer (docs/durability.md). A beat keeps
/// what ``TimerEngine/restart(_:requester:quota:)`` resets (`startedAt`, the action's runs) and
/// counts itself here instead; a restart sets ``beatCount`` back to 0 and ``lastBeatAt`` to `nil`.
public struct TimerHeartbeat: Sendable, Hashable {
    /// Beats since the timer started (or was last restarted); 0 before the first.
    public var beatCount: UInt64
    /// When the latest beat came, on the wall clock; `nil` before the first.
    public var lastBeatAt: Date?

    /// Creates a heartbeat mark.
    ///
    /// - Parameters:
    ///   - beatCount: beats counted so far (default 0).
    ///   - lastBeatAt: the latest beat's wall-clock instant, or `nil` (the default) before any.
    public init(beatCount: UInt64 = 0, lastBeatAt: Date? = nil) {
        self.beatCount = beatCount
        self.lastBeatAt = lastBeatAt
    }
}

extension TimerRecord {
    /// The heartbeat mark (extension tag 3), or `nil` for an ordinary timer; setting `nil` removes it.
    ///
    /// - Complexity: O(e) for e extensions (almost always 0 to 2).
    public var heartbeat: TimerHeartbeat? {
        get {
            for case .heartbeat(let heartbeat) in extensions { return heartbeat }
            return nil
        }
        set {
            let index = extensions.firstIndex { $0.tag == TimerExtension.heartbeatTag }
            switch (index, newValue) {
            case (let index?, let heartbeat?): extensions[index] = .heartbeat(heartbeat)
            case (let index?, nil): extensions.remove(at: index)
            case (nil, let heartbeat?): extensions.append(.heartbeat(heartbeat))
            case (nil, nil): break
            }
        }
    }
}
