import Countdown
import Foundation
import Testing
import TimerModel

@testable import TimerService

/// An event of `kind` for timer `id` owned by `owner`, at 2026-11-29T15:17:33Z.
private func event(_ kind: TimerEvent.Kind, timer id: UInt64, owner: UInt32 = 1_000) -> TimerEvent {
    let wall = Date(timeIntervalSince1970: 1_795_965_453)
    let snapshot = TimerSnapshot(
        id: id, name: nil, state: .running, duration: 60, remaining: 60, elapsed: 0,
        progress: ProgressSnapshot(
            totalUnitCount: 60_000, completedUnitCount: 0, fractionCompleted: 0, isIndeterminate: false,
            isFinished: false, isCancelled: false, isPaused: false),
        createdAt: wall, startedAt: wall, endedAt: nil, endsAt: nil, missed: false, currentChild: nil, children: [])
    return TimerEvent(kind: kind, owner: owner, date: wall, timer: snapshot)
}

@Suite("EventRing and subscription coverage")
struct EventRingTests {
    @Test("Numbers start at 1, the ring keeps the last `capacity` events, and entries(after:) replays them in order")
    func wrapsAround() {
        var ring = EventRing(capacity: 3)
        #expect(ring.lastSeq == 0 && ring.firstSeq == 1 && ring.entries(after: 0).isEmpty)
        for id in 1...5 { ring.append(event(.started, timer: UInt64(id))) }
        // Five appended into three slots: 1 and 2 are forgotten, 3…5 kept (timer id == seq here).
        #expect(ring.lastSeq == 5 && ring.firstSeq == 3 && ring.count == 3)
        #expect(ring.entries(after: 0).map(\.seq) == [3, 4, 5])
        #expect(ring.entries(after: 0).map(\.event.timer.id) == [3, 4, 5])
        #expect(ring.entries(after: 3).map(\.seq) == [4, 5])
        #expect(ring.entries(after: 5).isEmpty)
        #expect(ring.entry(seq: 2) == nil && ring.entry(seq: 6) == nil && ring.entry(seq: 4)?.event.timer.id == 4)
    }

    @Test("A line written for an event stays with it until the event is forgotten")
    func keepsLines() {
        var ring = EventRing(capacity: 2)
        ring.append(event(.started, timer: 1))
        ring.setLine(Array("one".utf8), forSeq: 1)
        #expect(ring.entry(seq: 1)?.line == Array("one".utf8))
        ring.append(event(.paused, timer: 1))
        ring.append(event(.resumed, timer: 1))  // seq 1 is forgotten
        ring.setLine(Array("gone".utf8), forSeq: 1)  // nothing to keep it with
        #expect(ring.entry(seq: 1) == nil && ring.entry(seq: 3)?.line == nil)
    }

    @Test("The default ring keeps 4,096 events (docs/protocol.md, Events)")
    func defaultCapacity() {
        #expect(EventRing().capacity == 4_096)
        #expect(EventRing(capacity: 0).capacity == 1)
    }

    @Test("covers(_:_:) applies a subscription's scope, owner and kinds to a past event")
    func covers() {
        var registry = SubscriptionRegistry()
        registry.subscribe(1, to: .everyTimer(owner: 1_000), kinds: [.started, .finished], lifetime: .untilCancelled)
        registry.subscribe(2, to: .timer(7), kinds: Set(TimerEvent.Name.allCases), lifetime: .untilCancelled)
        registry.subscribe(3, to: .everyTimer(owner: nil), kinds: [.paused], lifetime: .untilCancelled)
        #expect(registry.covers(1, event(.started, timer: 9, owner: 1_000)))
        #expect(!registry.covers(1, event(.started, timer: 9, owner: 2_000)))  // another user's
        #expect(!registry.covers(1, event(.paused, timer: 9, owner: 1_000)))  // a kind not asked for
        #expect(registry.covers(2, event(.steppedToChild(1), timer: 7)))
        #expect(!registry.covers(2, event(.started, timer: 8)))
        #expect(registry.covers(3, event(.paused, timer: 1, owner: 2_000)))  // root: everyone's
        #expect(!registry.covers(4, event(.paused, timer: 1)))  // no such subscription
    }

    @Test("Wire names: one per kind, `step` for a group's next child (kinds added later follow these)")
    func wireNames() {
        #expect(
            Array(TimerEvent.Name.allCases.map(\.rawValue).prefix(7)) == [
                "started", "paused", "resumed", "step", "finished", "stopped", "missed",
            ])
    }
}
