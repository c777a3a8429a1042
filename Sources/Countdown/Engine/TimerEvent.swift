#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Something that happened to a timer, as the engine reports it to its owner.
///
/// The engine appends events to a buffer while ``TimerEngine/eventRecording`` is
/// ``TimerEngine/EventRecording/buffered``; the owner takes them with ``TimerEngine/takeEvents()`` after
/// each operation or firing and fans them out (the service's subscription registry does). Within one
/// buffer, events are in the order they happened; a firing that crosses several boundaries of a
/// group reports each step, then the finish.
public struct TimerEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// The timer was started (a group starts with child 0).
        case started
        /// The timer was paused.
        case paused
        /// The timer was resumed.
        case resumed
        /// A group finished child `child - 1` and now runs child `child` (0-based).
        case steppedToChild(Int)
        /// The timer ran to zero.
        case finished
        /// The timer was stopped before it ran to zero.
        case stopped
        /// The timer's end passed while no engine ran; it was finished when the state was restored.
        case missed
        /// Time was added to (positive) or taken from (negative) the timer's current step, in seconds
        /// as applied: a subtraction past zero is clamped, so this is then minus what was left.
        case extended(by: Double)
        /// The timer was started again with the same durations (and the same id).
        case restarted
        /// A heartbeat timer got a beat (``TimerEngine/beat(_:requester:)``): it runs again from its
        /// whole duration.
        case beat
        /// The timer was renamed; carries its previous name (`nil` when it had none).
        case renamed(from: String?)
        /// The ended timer was removed from the history; the snapshot is the timer as it was.
        case removed
        /// An on-finish action run ended (``TimerEngine/recordActionOutcome(timer:kind:outcome:)``).
        case action(ActionReport)
        /// A recurring timer reached an elapse (the event's `date` is its nominal instant) and goes on
        /// to its next one. `missed` is 0 for an elapse rung on time, and for a catch-up the number of
        /// elapses that passed while timerd could not ring them and that this one event stands for.
        case elapsed(missed: Int)
        /// An alarm's warning (`--warn`): its end is that many seconds away (the event's `date` is
        /// when the warning was due).
        case warning
        /// A timer started with `--ring` rings: its `ring`-th ring (1 at its end) since the ringing
        /// began; it is `TimerState.ringing` until acknowledged, snoozed or left unanswered.
        case ringing(ring: Int)
        /// A ringing timer was snoozed: it runs again for that many seconds.
        case snoozed(by: Double)
        /// A ringing timer was left unanswered until its ring limit: it ended as finished.
        case unanswered

        /// The kind without its payload, for filters.
        public var name: Name {
            switch self {
            case .started: return .started
            case .paused: return .paused
            case .resumed: return .resumed
            case .steppedToChild: return .steppedToChild
            case .finished: return .finished
            case .stopped: return .stopped
            case .missed: return .missed
            case .extended: return .extended
            case .restarted: return .restarted
            case .beat: return .beat
            case .renamed: return .renamed
            case .removed: return .removed
            case .action: return .action
            case .elapsed: return .elapsed
            case .warning: return .warning
            case .ringing: return .ringing
            case .snoozed: return .snoozed
            case .unanswered: return .unanswered
            }
        }
    }

    /// The kinds of event, without payloads: what a subscription filters on.
    ///
    /// The raw value is the kind's name on the wire (`"event"` of a `timer.event` notification and
    /// the `events` filter of `timer.subscribe`; docs/protocol.md). A new kind is one new case here
    /// (and in ``Kind``); the service's notification writer then asks, through an exhaustive
    /// `switch`, for the kind's own fields.
    public enum Name: String, Sendable, Hashable, CaseIterable {
        /// ``Kind/started``.
        case started
        /// ``Kind/paused``.
        case paused
        /// ``Kind/resumed``.
        case resumed
        /// ``Kind/steppedToChild(_:)``; `step` on the wire.
        case steppedToChild = "step"
        /// ``Kind/finished``.
        case finished
        /// ``Kind/stopped``.
        case stopped
        /// ``Kind/missed``.
        case missed
        /// ``Kind/extended(by:)``.
        case extended
        /// ``Kind/restarted``.
        case restarted
        /// ``Kind/beat``.
        case beat
        /// ``Kind/renamed(from:)``.
        case renamed
        /// ``Kind/removed``.
        case removed
        /// ``Kind/action(_:)``.
        case action
        /// ``Kind/elapsed(missed:)``.
        case elapsed
        /// ``Kind/warning``.
        case warning
        /// ``Kind/ringing(ring:)``.
        case ringing
        /// ``Kind/snoozed(by:)``.
        case snoozed
        /// ``Kind/unanswered``.
        case unanswered
    }

    /// How an on-finish action run ended: the payload of ``Kind/action(_:)``, on the wire
    /// `{"action":{"kind":"exec","status":0,"trigger":"finished","outcome":"exited"}}`.
    public struct ActionReport: Sendable, Hashable {
        /// What ran.
        public var kind: TimerAction.Kind
        /// The event it followed.
        public var trigger: TimerAction.Trigger
        /// How it ended (``ActionRun/Outcome/status`` is the wire's `status`).
        public var outcome: ActionRun.Outcome

        /// Creates a report.
        ///
        /// - Parameters:
        ///   - kind: what ran.
        ///   - trigger: the event it followed.
        ///   - outcome: how it ended.
        public init(kind: TimerAction.Kind, trigger: TimerAction.Trigger, outcome: ActionRun.Outcome) {
            self.kind = kind
            self.trigger = trigger
            self.outcome = outcome
        }
    }

    /// What happened.
    public var kind: Kind
    /// The uid that owns the timer.
    public var owner: UInt32
    /// When it happened, on the wall clock (for a step or a finish: when the boundary was due).
    public var date: Date
    /// The timer as it is right after the event.
    public var timer: TimerSnapshot

    /// Creates an event.
    ///
    /// - Parameters:
    ///   - kind: what happened.
    ///   - owner: the timer's owner.
    ///   - date: when, on the wall clock.
    ///   - timer: the timer right after the event.
    public init(kind: Kind, owner: UInt32, date: Date, timer: TimerSnapshot) {
        self.kind = kind
        self.owner = owner
        self.date = date
        self.timer = timer
    }
}
