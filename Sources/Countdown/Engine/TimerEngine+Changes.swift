/// What changed in a ``TimerEngine`` since its owner last took the changes: the input of a
/// write-ahead journal.
///
/// Changes are whole records, not operations: a timer that was started, paused and resumed in one
/// turn appears once, as it is now. Replaying changes in order over the snapshot they follow gives
/// the engine's ``TimerEngine/snapshot`` again.
public struct EngineChanges: Sendable, Hashable {
    /// The next id the engine hands out (ids are never reused, even for timers already dropped).
    public var nextID: UInt64
    /// Timers created or changed, whole, by ascending id.
    public var updated: [TimerRecord]
    /// Ids of timers dropped from the history (by count or age), ascending.
    public var removed: [UInt64]

    /// Creates a change set.
    ///
    /// - Parameters:
    ///   - nextID: the engine's next id.
    ///   - updated: timers created or changed, whole.
    ///   - removed: ids of timers dropped.
    public init(nextID: UInt64, updated: [TimerRecord] = [], removed: [UInt64] = []) {
        self.nextID = nextID
        self.updated = updated
        self.removed = removed
    }

    /// Whether no timer changed (``nextID`` alone is not a change).
    public var isEmpty: Bool { updated.isEmpty && removed.isEmpty }
}

extension TimerEngine {
    /// Whether any timer changed since the last ``takeChanges()``.
    public var hasChanges: Bool { timers.hasChanges }

    /// Returns the timers changed since the last call, and forgets them.
    ///
    /// Every mutation marks the timers it writes: start, stop, pause, resume, finishing (including
    /// missed timers in ``restore(_:sameBoot:)``), and dropping from the history. A restore marks
    /// only the records it changes (rebased after a reboot or for a wall-clock deadline, missed,
    /// trimmed): the others are as the store that gave them holds them.
    ///
    /// - Returns: the changes, records whole, ids ascending.
    /// - Complexity: O(k log k) for k changed timers.
    public mutating func takeChanges() -> EngineChanges {
        var changes = EngineChanges(nextID: nextID)
        for id in timers.changedIDs {
            if let record = timers[id] {
                changes.updated.append(record)
            } else {
                changes.removed.append(id)
            }
        }
        timers.forgetChanges()
        return changes
    }
}
