import Countdown

extension FileStore {
    /// `timers` (by ascending id) with the journal's `entries` applied in order, still by ascending id.
    ///
    /// - Complexity: O(n + k log k) for n timers and k entries.
    static func replay(_ entries: [JournalEntry], over timers: [TimerRecord], nextID: inout UInt64)
        -> [TimerRecord]
    {
        var timers = timers
        if !timers.indices.dropFirst().allSatisfy({ timers[$0 - 1].id < timers[$0].id }) {
            timers.sort { $0.id < $1.id }
        }
        guard !entries.isEmpty else { return timers }
        // The last word of the journal on each id: the timer as it is now, or nil once removed.
        var latest: [UInt64: TimerRecord?] = [:]
        for entry in entries {
            switch entry {
            case .timer(let record):
                latest[record.id] = .some(record)
                nextID = max(nextID, record.id + 1)
            case .removed(let ids):
                for id in ids { latest[id] = .some(nil) }
            case .nextID(let id):
                nextID = max(nextID, id)
            }
        }
        var merged: [TimerRecord] = []
        merged.reserveCapacity(timers.count + latest.count)
        for record in timers {
            if let change = latest.removeValue(forKey: record.id) {
                if let change { merged.append(change) }
            } else {
                merged.append(record)
            }
        }
        let added = latest.values.compactMap { $0 }.sorted { $0.id < $1.id }
        if let first = added.first, let last = merged.last, first.id < last.id {
            merged += added
            merged.sort { $0.id < $1.id }
        } else {
            merged += added
        }
        return merged
    }
}
