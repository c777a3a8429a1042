import FoundationEssentials
import TimerModel
import TimerProtocol

/// Formats timers for people: the `status` table, progress bars, and one-line confirmations.
enum StatusTable {
    /// Width of the progress bar, in cells.
    static let barWidth = 20

    /// The table: `ID NAME STATE REMAINING END PROGRESS`, columns aligned by display width
    /// (``DisplayWidth``, as `watch` pads: a CJK character takes 2 columns); a group shows its
    /// aggregate and `step i/n` for the child that runs. REMAINING is ``DurationFormatter/countdown(seconds:)``
    /// (`2d 03:04:05` from a day on); END is the local end time of a running timer (`-` otherwise),
    /// and the column is left out when no timer listed has an end time (only paused or ended ones).
    /// A timer started with `--wake` has `wake` after its progress.
    ///
    /// - Parameters:
    ///   - timers: the timers, in the order to list them.
    ///   - color: whether to colour the state column.
    ///   - now: the instant it is now (END shows only the time of day for an end today).
    ///   - clock: the local zone (the system's; tests fix one).
    /// - Returns: the table, each line newline-terminated.
    static func render(
        _ timers: [TimerInfo], color: Bool, now: Date = Date(), clock: LocalClock = .system
    ) -> String {
        let showsEnd = timers.contains { $0.endsAt != nil && $0.recurrence == nil }
        // Recurring timers: a NEXT column with the next elapse, and their rule and
        // elapse count where a one-shot timer has its progress bar.
        let showsNext = timers.contains { $0.recurrence != nil }
        var header = ["ID", "NAME", "STATE", "REMAINING", "PROGRESS"]
        if showsEnd { header.insert("END", at: 4) }
        if showsNext { header.insert("NEXT", at: 4) }
        let rows = timers.map { timer -> [String] in
            var row = [
                timer.id, timer.name ?? "-", timer.state.rawValue,
                DurationFormatter.countdown(seconds: timer.remaining),
                (timer.recurrence.map { recurrenceText($0, now: now, clock: clock) }
                    ?? timer.heartbeat.map { heartbeatText($0, now: now, clock: clock) } ?? progressText(timer))
                    + (timer.wake == true ? "  wake" : "")
                    + (timer.alarm.map { "  " + alarmText($0, timer.state) } ?? ""),
            ]
            if showsEnd { row.insert(timer.recurrence == nil ? endText(timer, now: now, clock: clock) : "-", at: 4) }
            if showsNext { row.insert(nextText(timer, now: now, clock: clock), at: 4) }
            return row
        }
        let widths = (0..<header.count).map { column in
            ([header] + rows).map { DisplayWidth.of($0[column]) }.max() ?? 0
        }
        func line(_ cells: [String], states: TimerState? = nil) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let padded =
                    column == cells.count - 1
                    ? cell : cell + String(repeating: " ", count: widths[column] - DisplayWidth.of(cell))
                text += column == 2 && color ? paint(padded, states) : padded
                if column < cells.count - 1 { text += "  " }
            }
            return text
        }
        var output = line(header) + "\n"
        for (timer, row) in zip(timers, rows) { output += line(row, states: timer.state) + "\n" }
        return output
    }

    /// A recurring timer's rule, elapse count, latest elapse (local time) and latest action result:
    /// `*:0/15 (UTC)  #12, last 10:00:00 exited 0`; `caught up N` when the latest was a catch-up.
    static func recurrenceText(_ recurrence: RecurrenceInfo, now: Date, clock: LocalClock) -> String {
        var text = recurrence.ruleText
        if let zone = recurrence.zone, recurrence.expression?.hasSuffix(zone) == false { text += " (\(zone))" }
        text += "  #\(recurrence.elapseCount)"
        if let last = recurrence.lastElapse.flatMap({ ISO8601.displayDate(from: $0) }) {
            text += ", last " + clock.endText(last, now: now)
            if let result = recurrence.lastResult { text += " " + result }
        }
        if recurrence.lastMissed > 0 { text += ", caught up \(recurrence.lastMissed)" }
        if let group = recurrence.group { text += ", " + groupText(group) }
        return text
    }

    /// The group a series starts at each elapse: `run 5 step 2/4` while one runs (`+1 queued` when
    /// one waits), else `no run`; then `3 runs, 1 skipped`.
    static func groupText(_ group: SeriesGroupInfo) -> String {
        var text: String
        if let run = group.run {
            text = "run \(run)"
            if let step = group.runStep { text += " step \(step)/\(group.durations.count)" }
            if group.queued { text += " +1 queued" }
        } else {
            text = "no run"
        }
        text += ", \(group.runCount) \(group.runCount == 1 ? "run" : "runs")"
        if group.skippedCount > 0 { text += ", \(group.skippedCount) skipped" }
        return text
    }

    /// A heartbeat timer's beats, where other timers have their progress bar: `heartbeat, 3 beats,
    /// last 10:00:00`; `heartbeat, no beat yet` before the first.
    static func heartbeatText(_ heartbeat: HeartbeatInfo, now: Date, clock: LocalClock) -> String {
        guard heartbeat.beatCount > 0 else { return "heartbeat, no beat yet" }
        var text = "heartbeat, \(heartbeat.beatCount) \(heartbeat.beatCount == 1 ? "beat" : "beats")"
        if let last = heartbeat.lastBeatAt.flatMap({ ISO8601.displayDate(from: $0) }) {
            text += ", last " + clock.endText(last, now: now)
        }
        return text
    }

    /// The local time of a recurring timer's next elapse, `-` for others and while paused or ended.
    static func nextText(_ timer: TimerInfo, now: Date, clock: LocalClock) -> String {
        guard let text = timer.recurrence?.nextElapse, let date = ISO8601.displayDate(from: text) else { return "-" }
        return clock.endText(date, now: now)
    }

    /// `started 7 "standup": *:0/15 (UTC), next elapse 2026-11-29T09:45:00.000Z, in 13m`; for a
    /// series that starts a group, `, each starts 25m + 5m (overlap skip)` before the wake note.
    static func recurringConfirmation(_ timer: TimerInfo) -> String {
        let label = timer.name.map { "\(timer.id) \"\($0)\"" } ?? timer.id
        guard let recurrence = timer.recurrence else { return confirmation(.start, timer) }
        var rule = recurrence.ruleText
        if let zone = recurrence.zone {
            rule += recurrence.followsSystemZone == true ? " (\(zone), the system zone)" : " (\(zone))"
        }
        let next = recurrence.nextElapse ?? "never"
        let group =
            recurrence.group.map { group in
                ", each starts "
                    + group.durations.map { DurationFormatter.compact(seconds: $0) }.joined(separator: " + ")
                    + " (overlap \(group.overlap))"
            } ?? ""
        return "started \(label): \(rule), next elapse \(next), in "
            + DurationFormatter.compact(seconds: timer.remaining.rounded(.up)) + group + wakeNote(timer) + "\n"
    }

    /// An alarm's mark after the progress: `ringing #3` while it rings; `unanswered after 20 rings`
    /// or `acknowledged` once its ringing ended; before, `ring` and `warn 5m` (`warned` once sent;
    /// with `--warn-each`, `warn 5m each` and `warned 1/2` while steps are left).
    static func alarmText(_ alarm: AlarmInfo, _ state: TimerState) -> String {
        if state == .ringing { return "ringing #\(alarm.ringCount)" }
        switch alarm.outcome {
        case "unanswered": return "unanswered after \(alarm.ringCount) \(alarm.ringCount == 1 ? "ring" : "rings")"
        case "acknowledged": return "acknowledged"
        default:
            var parts: [String] = []
            if alarm.ringInterval != nil { parts.append("ring") }
            if let warning = alarm.warning {
                let each = alarm.warnEach == true
                if alarm.warned == true {
                    parts.append("warned")
                } else if each, let steps = alarm.warnedSteps, steps > 0 {
                    parts.append("warned \(steps), warn \(DurationFormatter.compact(seconds: warning)) each")
                } else {
                    parts.append("warn \(DurationFormatter.compact(seconds: warning))" + (each ? " each" : ""))
                }
            }
            return parts.joined(separator: " ")
        }
    }

    /// `, rings, warns 5m before the end` for an alarm: the end of a start's confirmation.
    static func alarmNote(_ timer: TimerInfo) -> String {
        guard let alarm = timer.alarm else { return "" }
        var note = ""
        if alarm.ringInterval != nil { note += ", rings" }
        if let warning = alarm.warning {
            note +=
                ", warns \(DurationFormatter.compact(seconds: warning)) before the end"
                + (alarm.warnEach == true ? " of each step" : "")
        }
        return note
    }

    /// `, wakes the machine` for a timer started with `--wake`, else nothing: the end of a start's
    /// confirmation.
    static func wakeNote(_ timer: TimerInfo) -> String { timer.wake == true ? ", wakes the machine" : "" }

    /// `[####----]  24%`, and for a group `  step 2/4 (5m)`.
    static func progressText(_ timer: TimerInfo) -> String {
        var progress = bar(timer.progress.fractionCompleted) + " " + percent(timer.progress.fractionCompleted)
        if let step = stepText(timer) { progress += "  " + step }
        return progress
    }

    /// `step 2/4 (5m)` for a group, `nil` for a plain timer.
    static func stepText(_ timer: TimerInfo) -> String? {
        guard let children = timer.children else { return nil }
        let step = (timer.currentChild ?? (timer.state == .finished ? children.count - 1 : 0))
        var text = "step \(step + 1)/\(children.count)"
        if children.indices.contains(step) {
            text += " (\(DurationFormatter.compact(seconds: children[step].duration)))"
        }
        return text
    }

    /// The local end time of a running timer, `-` for one that is not running.
    static func endText(_ timer: TimerInfo, now: Date, clock: LocalClock) -> String {
        guard let text = timer.endsAt, let date = ISO8601.displayDate(from: text) else { return "-" }
        return clock.endText(date, now: now)
    }

    /// `[#####---------------]` for a fraction in 0 … 1.
    static func bar(_ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let filled = Int((clamped * Double(barWidth)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]"
    }

    /// ` 25%`: the fraction as a whole percentage, rounded down, right-aligned in 4 characters.
    static func percent(_ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(max(fraction, 0), 1) : 0
        let text = "\(Int((clamped * 100).rounded(.down)))%"
        return String(repeating: " ", count: max(0, 4 - text.count)) + text
    }

    /// One-line confirmation of a change: `started 1 "tea": 25m`.
    static func confirmation(_ verb: Verb, _ timer: TimerInfo) -> String {
        let label = timer.name.map { "\(timer.id) \"\($0)\"" } ?? timer.id
        switch verb {
        case .start:
            let steps = timer.children.map { $0.map { DurationFormatter.compact(seconds: $0.duration) } }
            let what = steps?.joined(separator: " + ") ?? DurationFormatter.compact(seconds: timer.duration)
            return
                "started \(label): \(timer.heartbeat == nil ? "" : "heartbeat ")\(what)\(wakeNote(timer))"
                + alarmNote(timer) + "\n"
        case .stop:
            return "stopped \(label) with \(DurationFormatter.countdown(seconds: timer.remaining)) left\n"
        case .pause:
            return "paused \(label) with \(DurationFormatter.countdown(seconds: timer.remaining)) left\n"
        case .resume:
            return "resumed \(label): \(DurationFormatter.countdown(seconds: timer.remaining)) left\n"
        case .wait:
            guard timer.state == .finished else { return "\(label) was stopped\n" }
            return timer.alarm?.outcome == "unanswered" ? "\(label) finished, unanswered\n" : "\(label) finished\n"
        case .ack:
            return "acknowledged \(label): it finished after \(timer.alarm?.ringCount ?? 0) "
                + (timer.alarm?.ringCount == 1 ? "ring" : "rings") + "\n"
        case .snooze:
            return "snoozed \(label): rings again in \(DurationFormatter.countdown(seconds: timer.remaining))\n"
        case .restart:
            return "restarted \(label): \(DurationFormatter.countdown(seconds: timer.remaining)) left\n"
        case .beat:
            let count = timer.heartbeat.map { " (beat \($0.beatCount))" } ?? ""
            return "beat \(label): \(DurationFormatter.countdown(seconds: timer.remaining)) left\(count)\n"
        case .rename:
            return "renamed \(timer.id) to \"\(timer.name ?? "")\"\n"
        case .extend, .skip:
            return editConfirmation(verb, label, timer)
        case .status, .ping, .reload, .stats, .help, .completion, .completeTimers, .pick, .remove, .events, .bar,
            .notifier, .watch, .calendar, .logs:
            return ""
        }
    }

    /// `extended 1 "tea": 0:29:58 left`; after a skip, the step that runs now; a timer that the
    /// change ended says so.
    ///
    /// - Parameters:
    ///   - verb: `extend` or `skip`.
    ///   - label: `1 "tea"`.
    ///   - timer: the timer after the change.
    ///   - isShortened: whether `extend` took time away (it then says `shortened`).
    /// - Returns: the line, newline-terminated.
    static func editConfirmation(_ verb: Verb, _ label: String, _ timer: TimerInfo, isShortened: Bool = false)
        -> String
    {
        let verbText =
            verb == .skip
            ? (timer.state == .finished ? "skipped the last step of" : "skipped to the next step of")
            : (isShortened ? "shortened" : "extended")
        if timer.state == .finished { return "\(verbText) \(label): it finished\n" }
        var line = "\(verbText) \(label): \(DurationFormatter.countdown(seconds: timer.remaining)) left"
        if let step = stepText(timer) { line += ", " + step }
        if timer.state == .paused { line += " (paused)" }
        return line + "\n"
    }

    private static func paint(_ text: String, _ state: TimerState?) -> String {
        let code: String
        switch state {
        case .running: code = "32"
        case .paused: code = "33"
        case .stopped: code = "31"
        case .ringing: code = "1;35"
        case .finished, .pending, .none: return text
        }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}
