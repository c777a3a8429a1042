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

@Suite("SubscriptionRegistry")
struct SubscriptionRegistryTests {
    @Test("A one-timer wait gets only its timer's ending, once, in subscription order")
    func waitLikeSubscriptions() {
        var registry = SubscriptionRegistry()
        registry.subscribe(7, to: .timer(1), kinds: TimerEvent.Name.endings, lifetime: .untilFirstEvent)
        registry.subscribe(3, to: .timer(1), kinds: TimerEvent.Name.endings, lifetime: .untilFirstEvent)
        registry.subscribe(9, to: .timer(2), kinds: TimerEvent.Name.endings, lifetime: .untilFirstEvent)
        let paused = registry.deliveries(for: event(.paused, timer: 1))
        #expect(paused.isEmpty)  // not an ending
        let delivered = registry.deliveries(for: event(.finished, timer: 1))
        // 7 subscribed before 3; both end with the delivery; 9 waits on another timer.
        #expect(delivered.map(\.subscriber) == [7, 3] && delivered.allSatisfy(\.endsSubscription))
        #expect(!registry.isSubscribed(7) && !registry.isSubscribed(3) && registry.isSubscribed(9))
        let deliveredAgain = registry.deliveries(for: event(.finished, timer: 1))
        #expect(deliveredAgain.isEmpty)
        #expect(registry.count == 1)
    }

    @Test("An every-timer subscription sees only its owner's timers, and lasts")
    func broadSubscription() {
        var registry = SubscriptionRegistry()
        registry.subscribe(1, to: .everyTimer(owner: 1_000), kinds: [.started, .finished], lifetime: .untilCancelled)
        registry.subscribe(2, to: .everyTimer(owner: nil), kinds: [.started], lifetime: .untilCancelled)
        let started = registry.deliveries(for: event(.started, timer: 5))
        #expect(started.map(\.subscriber) == [1, 2])
        let startedByOther = registry.deliveries(for: event(.started, timer: 6, owner: 2_000))
        #expect(startedByOther.map(\.subscriber) == [2])
        let finished = registry.deliveries(for: event(.finished, timer: 5))
        #expect(finished.map(\.subscriber) == [1])
        let stopped = registry.deliveries(for: event(.stopped, timer: 5))
        #expect(stopped.isEmpty)
        #expect(registry.isSubscribed(1) && registry.isSubscribed(2))
        let first = registry.unsubscribe(1)
        let second = registry.unsubscribe(1)
        #expect(first && !second)
        let afterCancel = registry.deliveries(for: event(.finished, timer: 5))
        #expect(afterCancel.isEmpty)
    }

    // Every-timer subscriptions are matched from an inline copy of their kinds (as bits), owner
    // and lifetime (SubscriptionRegistry.swift); these expectations are the rules
    // of the registry's documentation: subscription order across both kinds of scope, a
    // replacement takes the new kinds, an until-first-event subscription ends with its first event.
    @Test("Every-timer and one-timer subscriptions mix in subscription order; replaced and one-shot ones")
    func mixedScopes() {
        var registry = SubscriptionRegistry()
        registry.subscribe(10, to: .everyTimer(owner: nil), kinds: [.finished], lifetime: .untilCancelled)
        registry.subscribe(11, to: .timer(5), kinds: [.finished], lifetime: .untilCancelled)
        registry.subscribe(12, to: .everyTimer(owner: 1_000), kinds: [.finished, .paused], lifetime: .untilFirstEvent)
        registry.subscribe(13, to: .everyTimer(owner: nil), kinds: [.paused], lifetime: .untilCancelled)
        // 13 now wants `finished` only, and is ordered after the others (it subscribed again last).
        registry.subscribe(13, to: .everyTimer(owner: nil), kinds: [.finished], lifetime: .untilCancelled)
        let finished = registry.deliveries(for: event(.finished, timer: 5))
        #expect(finished.map(\.subscriber) == [10, 11, 12, 13])
        #expect(finished.map(\.endsSubscription) == [false, false, true, false])
        #expect(!registry.isSubscribed(12) && registry.count == 3)
        let paused = registry.deliveries(for: event(.paused, timer: 5))
        #expect(paused.isEmpty)  // 12 ended, 13 no longer wants `paused`
        let again = registry.deliveries(for: event(.finished, timer: 6, owner: 2_000))
        #expect(again.map(\.subscriber) == [10, 13])  // 11 is about timer 5 only
    }

    @Test("An every-timer subscription to one kind gets that kind and no other, for every kind")
    func everyKindAlone() {
        let kinds: [TimerEvent.Kind] = [
            .started, .paused, .resumed, .steppedToChild(1), .finished, .stopped, .missed, .extended(by: 1),
            .restarted, .beat, .renamed(from: nil), .removed, .elapsed(missed: 0), .warning, .ringing(ring: 2),
            .snoozed(by: 540), .unanswered,
            .action(TimerEvent.ActionReport(kind: .exec, trigger: .finished, outcome: .exited(0))),
        ]
        // Every kind the protocol names is in this list once.
        #expect(Set(kinds.map(\.name)) == Set(TimerEvent.Name.allCases))
        for (subscriber, wanted) in kinds.enumerated() {
            var registry = SubscriptionRegistry()
            registry.subscribe(
                UInt64(subscriber), to: .everyTimer(owner: nil), kinds: [wanted.name], lifetime: .untilCancelled)
            for kind in kinds {
                let delivered = registry.deliveries(for: event(kind, timer: 1))
                #expect(
                    delivered.count == (kind.name == wanted.name ? 1 : 0),
                    "subscribed \(wanted.name), event \(kind.name)")
            }
        }
    }

    @Test("Removing one of 10,000 waits on the same timer touches a constant number of entries")
    func removalIsConstant() {
        var registry = SubscriptionRegistry()
        for subscriber in 0..<UInt64(10_000) {
            registry.subscribe(subscriber, to: .timer(1), kinds: TimerEvent.Name.endings, lifetime: .untilFirstEvent)
        }
        let before = registry.entriesTouched
        let removed = registry.unsubscribe(5_000)
        #expect(removed)
        // Two entries: the subscription and its place under timer 1; a scan would touch up to 10,000.
        #expect(registry.entriesTouched - before == 2)
        let again = registry.entriesTouched
        let removedLast = registry.unsubscribe(9_999)
        #expect(removedLast)
        #expect(registry.entriesTouched - again == 2)
        #expect(registry.count == 9_998)
    }

    // Every-timer subscriptions are kept in subscription order in an array with tombstones that
    // is compacted once they are half of it; the expected orders are the
    // rule of the registry's documentation: deliveries in subscription order.
    @Test("Subscription order and tags survive removals and the compaction of every-timer subscriptions")
    func orderAfterCompaction() {
        var registry = SubscriptionRegistry()
        for subscriber in 0..<UInt64(40) {
            registry.subscribe(
                subscriber, to: .everyTimer(owner: nil), kinds: [.started], lifetime: .untilCancelled,
                tag: 1_000 + subscriber)
        }
        registry.subscribe(100, to: .timer(5), kinds: [.started], lifetime: .untilFirstEvent)
        // 31 removals: the array is compacted once on the way (at the 20th, tombstones half of 40).
        for subscriber in 0..<UInt64(30) where subscriber % 4 != 3 { registry.unsubscribe(subscriber) }
        for subscriber in UInt64(30)..<38 { registry.unsubscribe(subscriber) }
        registry.subscribe(41, to: .everyTimer(owner: nil), kinds: [.started], lifetime: .untilCancelled, tag: 7)
        // Left: 3, 7, …, 27 (every fourth below 30), 38, 39, then 100 (one timer), then 41.
        let delivered = registry.deliveries(for: event(.started, timer: 5))
        #expect(delivered.map(\.subscriber) == [3, 7, 11, 15, 19, 23, 27, 38, 39, 100, 41])
        #expect(delivered.map(\.tag) == [1_003, 1_007, 1_011, 1_015, 1_019, 1_023, 1_027, 1_038, 1_039, nil, 7])
        #expect(delivered.map(\.endsSubscription).filter { $0 }.count == 1)
        #expect(registry.count == 10 && !registry.isSubscribed(100))
        // Re-subscribing moves a subscriber to the end.
        registry.subscribe(3, to: .everyTimer(owner: nil), kinds: [.started], lifetime: .untilCancelled)
        let again = registry.deliveries(for: event(.started, timer: 6))
        #expect(again.map(\.subscriber) == [7, 11, 15, 19, 23, 27, 38, 39, 41, 3])
        #expect(again.last?.tag == nil)
    }
}
