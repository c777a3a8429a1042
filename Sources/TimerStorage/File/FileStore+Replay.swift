import Countdown

extension FileStore {
    /// `timers` (by ascending id) with the recovered journal's entries applied in order, still by
    /// ascending id, after settling what a damaged region in the middle made inconsistent.
    ///
    /// Each record is self-contained (a timer whole, ids removed, the next id), so the last record
    /// about an id is its state, wherever it stands. After a skipped region, one thing can be
    /// inconsistent: the region may have held the end of a timer whose name a later record gives
    /// to a new live timer, leaving two live timers of one owner with one name. Then the timer
    /// whose last record is the latest keeps the name and the others, whose newer records were
    /// lost, are dropped from the live state with a `WARNING:` line (they stay in the damaged
    /// copy). docs/durability.md states the rule.
    ///
    /// - Parameters:
    ///   - recovered: what ``Journal/recover(at:now:log:)`` read.
    ///   - timers: the snapshot's timers.
    ///   - nextID: the next id, raised past every id the journal mentions.
    ///   - log: where a dropped timer is reported.
    /// - Complexity: O(n + k log k) for n timers and k entries.
    static func replay(
        _ recovered: Journal.Recovered, over timers: [TimerRecord], nextID: inout UInt64, log: (String) -> Void
    ) -> [TimerRecord] {
        var merged = replay(recovered.entries, over: timers, nextID: &nextID)
        guard let resumed = recovered.firstEntryAfterDamage else { return merged }
        // Where each id's last word is: its index in the journal, -1 for the snapshot.
        var lastWord: [UInt64: Int] = [:]
        for (index, entry) in recovered.entries.enumerated() {
            if case .timer(let record) = entry { lastWord[record.id] = index }
        }
        struct NameKey: Hashable {
            var owner: UInt32
            var name: String
        }
        var holder: [NameKey: UInt64] = [:]
        var dropped: Set<UInt64> = []
        for record in merged where record.state.isLive {
            guard let name = record.name else { continue }
            let key = NameKey(owner: record.owner, name: name)
            guard let other = holder[key] else {
                holder[key] = record.id
                continue
            }
            let (older, newer) =
                (lastWord[other] ?? -1) < (lastWord[record.id] ?? -1) ? (other, record.id) : (record.id, other)
            holder[key] = newer
            dropped.insert(older)
            log(
                "WARNING: timer \(older) ('\(name)' of uid \(record.owner)) was last recorded before a damaged region "
                    + "of the journal and timer \(newer), recorded after it (record \(resumed) or later), holds its "
                    + "name: dropped timer \(older), whose later records were lost")
        }
        if !dropped.isEmpty { merged.removeAll { dropped.contains($0.id) } }
        return merged
    }

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
