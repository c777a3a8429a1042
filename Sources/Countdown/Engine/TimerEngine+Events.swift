#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension TimerEngine {
    /// Whether the engine keeps the ``TimerEvent``s of its operations for its owner.
    public enum EventRecording: Sendable, Hashable {
        /// Events are not kept (the default): an engine nobody drains does not grow.
        case discarded
        /// Events are appended to a buffer that the owner empties with ``TimerEngine/takeEvents()``
        /// after each operation or firing.
        case buffered
    }

    /// Returns the events since the last call, oldest first, and forgets them.
    ///
    /// - Returns: the buffered events; always empty with ``EventRecording/discarded``.
    /// - Complexity: O(1) (the buffer is handed over, not copied).
    public mutating func takeEvents() -> [TimerEvent] {
        guard !events.isEmpty else { return [] }
        defer { events = [] }
        return events
    }

    /// Appends one event when events are recorded.
    mutating func report(_ kind: TimerEvent.Kind, owner: UInt32, date: Date, _ snapshot: TimerSnapshot) {
        guard eventRecording == .buffered else { return }
        events.append(TimerEvent(kind: kind, owner: owner, date: date, timer: snapshot))
    }

    /// Reports the children a running group entered between the boundary it was woken for (`since`)
    /// and `now`: one ``TimerEvent/Kind/steppedToChild(_:)`` per child, dated when it began.
    ///
    /// - Complexity: O(c) for a group of c children; nothing for a plain timer.
    mutating func reportSteps(of record: TimerRecord, since wake: BootInstant, now: BootInstant, wall: Date) {
        guard eventRecording == .buffered, record.segmentCount > 1, let runStart = record.runStart else { return }
        // The child that ran just before the wake-up, and the one that runs (or ran last) now.
        let before = record.childIndex(atElapsed: max(0, record.elapsedNanoseconds(at: wake) - 1))
        let after = record.childIndex(atElapsed: record.elapsedNanoseconds(at: now))
        guard after > before else { return }
        let snapshot = record.snapshot(at: now, wallNow: wall)
        let ends = record.segmentNanoseconds.reduce(into: [Int64]()) { ends, segment in
            ends.append((ends.last ?? 0).addingReportingOverflow(segment).partialValue)
        }
        for child in (before + 1)...after {
            let began = runStart.advanced(byNanoseconds: ends[child - 1] - record.accumulatedNanoseconds)
            let date = wall.addingTimeInterval(-Double(now.nanoseconds(since: began)) / 1e9)
            events.append(TimerEvent(kind: .steppedToChild(child), owner: record.owner, date: date, timer: snapshot))
        }
    }
}
