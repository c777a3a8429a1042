import Countdown
import TimerSystem

extension FileStore {
    /// The state as it is durable now: the snapshot file, with the open journal's records up to
    /// the size it had after its last successful append replayed over it (bytes of a refused
    /// append beyond that are never read). Nothing is repaired, copied or logged.
    ///
    /// - Returns: the durable timers and next id.
    /// - Throws: ``StoreError/unavailable(_:)`` when a file cannot be read or no longer decodes.
    /// - Complexity: O(n + k log k) for n timers and k journal records.
    public func durableState() throws(StoreError) -> EngineSnapshot {
        try Self.translating {
            var timers: [TimerRecord] = []
            var nextID: UInt64 = 1
            if FileIO.exists(snapshotPath) {
                let payload = try SnapshotFile.read(snapshotPath).payload
                timers = payload.engine.timers
                nextID = payload.engine.nextID
            }
            if let journal, journal.begin.generation == generation {
                let bytes = try FileIO.readAll(journal.path)
                var entries: [JournalEntry] = []
                if case .record(.begin, _, let beginEnd) = RecordFormat.parse(bytes, at: RecordFormat.headerSize) {
                    // Change records follow the witness slots (format 5).
                    var offset = journal.version >= 5 ? journal.recordsStart : beginEnd
                    let end = min(bytes.count, journal.size)
                    while offset < end,
                        case .record(let kind, let payload, let next) = RecordFormat.parse(bytes, at: offset),
                        next <= end, let entry = try? RecordPayload.decodeEntry(kind, payload, version: journal.version)
                    {
                        entries.append(entry)
                        offset = next
                    }
                }
                timers = Self.replay(entries, over: timers, nextID: &nextID)
            }
            return EngineSnapshot(nextID: nextID, timers: timers)
        }
    }
}
