/// Everything that can go wrong in the countdown engine and its protocol, with messages a person can act on.
///
/// Each case's ``description`` says what was wrong and what is allowed. The daemon sends these
/// messages verbatim in JSON-RPC error objects (see `RPCErrorCode` for the codes), and `timerctl`
/// prints them after `Error: `.
public enum CountdownError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A duration's text is in none of the accepted forms (see ``DurationParser``).
    case invalidDuration(String)
    /// A duration is ≤ 0 or longer than 366 days; carries the text as given.
    case durationOutOfRange(String)
    /// A duration is > 0 but shorter than ``DurationParser/minimumSeconds`` (1 µs, the timers'
    /// resolution); carries the text as given.
    case durationTooShort(String)
    /// `timer.start` got no durations, or more than ``TimerLimits/maximumGroupSize``.
    case groupSizeOutOfRange(Int)
    /// A group's durations add up to more than 366 days (seconds given).
    case groupTooLong(Double)
    /// A timer name breaks the naming rule (see ``TimerName``); carries the name as given.
    case invalidName(String)
    /// A live (running or paused) timer already has this name; carries the name and that timer's id.
    case nameInUse(String, id: String)
    /// No timer matches the reference.
    case timerNotFound(TimerReference)
    /// The operation is not allowed in the timer's state: resume a running timer, stop a finished one.
    case invalidTransition(timer: String, state: TimerState, operation: TimerOperation)
    /// An absolute deadline is not in the next 366 days; carries it and the time now (ISO 8601).
    case deadlineOutOfRange(String, now: String)
    /// The owner already has the maximum number of live timers.
    case quotaExceeded(limit: Int)
    /// `skip` was asked of a timer that is not a group (a single timer has no next step); carries the
    /// timer's label (`timer 3 ("tea")`).
    case notAGroup(timer: String)
    /// A recurring timer (`timerctl start --on`/`--every`) could not be created: a calendar expression
    /// that does not parse (carries the parser's message with the token and its offset, systemd.time(7)),
    /// one that never elapses again, an unknown zone, or a period or randomized delay out of range.
    case invalidRecurrence(String)
    /// `extend`, `skip` or `restart` was asked of a recurring timer, whose times come from its rule;
    /// carries the timer's label and the operation's name.
    case notForRecurring(timer: String, operation: String)
    /// `skip` was asked of a recurring series that starts a group at each elapse while none of its
    /// runs is live; carries the series' label.
    case noRunInProgress(timer: String)
    /// `beat` was asked of a timer started without `--heartbeat`; carries the timer's label.
    case notAHeartbeat(timer: String)
    /// A beat came at or after a running heartbeat timer's deadline, before timerd finished it: too
    /// late, its alert is due; carries the timer's label and its end (ISO 8601).
    case beatTooLate(timer: String, end: String)
    /// A heartbeat timer could not be created as asked (a group, an end time, a recurrence); carries
    /// what was asked.
    case invalidHeartbeat(String)
    /// `--ring` or `--warn` asked of a timer that cannot have it; the text says what and why.
    case invalidAlarm(String)

    /// What went wrong and what is allowed, for a person.
    public var description: String {
        switch self {
        case .invalidDuration(let text):
            return "invalid duration \"\(text)\": \(DurationParser.acceptedForms)"
        case .durationOutOfRange(let text):
            return "duration must be > 0 and ≤ 366 days, got \"\(text)\""
        case .durationTooShort(let text):
            return "duration must be at least 1us (the timers' resolution), got \"\(text)\""
        case .groupSizeOutOfRange(let count):
            return "a timer takes 1 to \(TimerLimits.maximumGroupSize) durations, got \(count)"
        case .groupTooLong(let seconds):
            return
                "the durations of a group must add up to ≤ 366 days, got \(DurationFormatter.compact(seconds: seconds))"
        case .invalidName(let name):
            guard let problem = TimerName.problem(with: name) else {
                return "invalid timer name \"\(name)\": \(TimerName.rule)"
            }
            return "invalid timer name \"\(name)\": \(problem); \(TimerName.rule)"
        case .nameInUse(let name, let id):
            return "a live timer is already named \"\(name)\" (id \(id)); stop it or choose another name"
        case .timerNotFound(let reference):
            switch reference {
            case .id(let id): return "no timer with id \(id)"
            case .name(let name): return "no timer named \"\(name)\""
            case .step(let group, let step): return "no step \(group).\(step): no group \(group) with a step \(step)"
            }
        case .invalidTransition(let timer, let state, let operation):
            return "cannot \(operation.rawValue) \(timer): it \(state.phrase); \(operation.allowedStates)"
        case .deadlineOutOfRange(let deadline, let now):
            return "the end time must be after now and at most 366 days ahead, got \(deadline) (now \(now))"
        case .quotaExceeded(let limit):
            return "too many live timers: the limit is \(limit) per user; stop some first"
        case .notAGroup(let timer):
            return
                "cannot skip \(timer): it is a single timer, not a group; skip ends the current step of a group "
                + "(stop ends a single timer)"
        case .invalidRecurrence(let message):
            return message
        case .notForRecurring(let timer, let operation):
            return
                "cannot \(operation) \(timer): it is a recurring timer, whose elapses come from its rule; stop it and "
                + "start a new one, or pause and resume it"
        case .noRunInProgress(let timer):
            return "cannot skip \(timer): no run of its group is in progress; the next elapse starts one"
        case .notAHeartbeat(let timer):
            return
                "cannot beat \(timer): it is not a heartbeat timer; beats re-arm timers started with "
                + "'timerctl start DURATION --heartbeat' (use extend or restart for other timers)"
        case .beatTooLate(let timer, let end):
            return
                "cannot beat \(timer): the beat came after its end (\(end)); it finishes now and its alert runs: "
                + "'timerctl restart' watches again"
        case .invalidHeartbeat(let what):
            return "a heartbeat timer takes exactly one DURATION, the longest silence between beats; got \(what)"
        case .invalidAlarm(let message):
            return message
        }
    }
}

/// The operations that change a timer's state, as named in errors and in the protocol.
public enum TimerOperation: String, Sendable, Codable, Hashable {
    /// Stop (cancel) a running or paused timer.
    case stop
    /// Pause a running timer.
    case pause
    /// Resume a paused timer.
    case resume
    /// Add time to (or take time from) a running or paused timer.
    case extend
    /// End the current step of a running or paused group and start the next.
    case skip
    /// Remove an ended timer from the history.
    case remove
    /// Re-arm a running or paused heartbeat timer to its whole duration.
    case beat
    /// Acknowledge a ringing timer (`timerctl ack`): it ends as finished.
    case ack
    /// Snooze a ringing timer (`timerctl snooze`): it runs again for a while.
    case snooze

    var allowedStates: String {
        switch self {
        case .stop: return "only running, paused or ringing timers can be stopped"
        case .pause: return "only running timers can be paused"
        case .resume: return "only paused timers can be resumed"
        case .extend: return "only running or paused timers can be extended (restart an ended one)"
        case .skip: return "only a running or paused group can skip to its next step"
        case .remove: return "only ended (finished or stopped) timers can be removed; stop it first"
        case .beat:
            return
                "only a running or paused heartbeat timer takes a beat; once it has ended, its alert has run: "
                + "'timerctl restart' watches again"
        case .ack: return "only a ringing timer (started with --ring) can be acknowledged"
        case .snooze: return "only a ringing timer (started with --ring) can be snoozed"
        }
    }
}
