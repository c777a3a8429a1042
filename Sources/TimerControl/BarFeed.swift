import FoundationEssentials
import TimerModel
import TimerProtocol

/// What `timerctl bar` prints, as a value: the timers as pushed events (and the listing) left
/// them, which one the bar shows, and its line at an instant, with no socket and no clock of its
/// own, so that tests feed lines and instants and read exact output.
///
/// A running timer's remaining time and progress are counted down from its last report on the
/// boot-time clock (``WatchModel/remaining(_:now:)``); ``waitMilliseconds(now:)`` says when the
/// shown second changes next. ``changedLine(now:wallNow:)`` returns a line only when its text differs
/// from the last one printed.
struct BarFeed {
    /// How lines are written.
    var style: BarStyle
    /// The text of a line that shows a timer.
    var template: BarTemplate
    /// The text when no timer is shown.
    var idleText: String
    /// The followed timer's id or name; `nil` for the running timer that ends soonest.
    var target: String?
    /// The local zone, for `{next}`.
    var clock: LocalClock = .system
    /// The timers as last reported.
    private(set) var model = WatchModel()
    /// The last line returned by ``changedLine(now:wallNow:)``.
    private(set) var lastLine: String?

    /// Creates a feed with no timers yet.
    init(style: BarStyle, template: BarTemplate, idleText: String, target: String?, clock: LocalClock = .system) {
        self.style = style
        self.template = template
        self.idleText = idleText
        self.target = target
        self.clock = clock
    }

    /// Applies one line from timerd: an event, the listing, or a reply.
    ///
    /// - Parameters:
    ///   - line: the line, without its newline.
    ///   - now: boot-time nanoseconds when it arrived.
    ///   - subscribeID: the id of the `timer.subscribe` request.
    ///   - listID: the id of the latest `timer.list` request.
    /// - Returns: whether the listing must be asked for again (events were lost: `timer.gap`).
    /// - Throws: ``ControlError/failed(_:)`` when the subscription was refused,
    ///   ``ControlError/protocolError(_:)`` for a line that is neither a reply nor a notification.
    mutating func receive(_ line: [UInt8], now: Int64, subscribeID: Int, listID: Int) throws(ControlError) -> Bool {
        try Watch.handle(line, model: &model, subscribeID: subscribeID, listID: listID, now: now)
    }

    /// The timer the bar shows at `now`.
    ///
    /// Without a target: the running timer with the least time left (the lower id on a tie), else
    /// the paused one with the least left, else none. With one: the timer of that id or name,
    /// preferring a live one, else the one reported last (so a finished timer stays shown as
    /// finished until it is removed or started again).
    ///
    /// - Parameter now: boot-time nanoseconds.
    /// - Returns: the entry, or `nil` for the idle line.
    /// - Complexity: O(n) in the timers kept.
    func shown(now: Int64) -> WatchModel.Entry? {
        let entries = model.ordered
        if let target {
            let matching = entries.filter { $0.timer.id == target || $0.timer.name == target }
            return matching.first { $0.timer.state.isLive } ?? matching.max { $0.receivedAt < $1.receivedAt }
        }
        for state in [TimerState.running, .paused] {
            let candidates = entries.filter { $0.timer.state == state }
            // `ordered` is in id order and `min` keeps the first of equals: the lower id wins a tie.
            if let soonest = candidates.min(by: {
                WatchModel.remaining($0, now: now) < WatchModel.remaining($1, now: now)
            }) {
                return soonest
            }
        }
        return nil
    }

    /// The line at an instant, without its line end.
    ///
    /// - Parameters:
    ///   - now: boot-time nanoseconds.
    ///   - wallNow: the wall clock now, for `{next}`.
    /// - Returns: the text (``BarStyle/waybar``: the JSON object).
    func line(now: Int64, wallNow: Date) -> String {
        guard let entry = shown(now: now) else {
            guard style == .waybar else { return idleText }
            return Self.waybarObject(
                text: idleText, tooltip: target.map { "\($0): no such live timer" } ?? "no timer running",
                cssClass: "idle", percentage: 0)
        }
        let values = Self.values(of: entry, now: now, wallNow: wallNow, clock: clock)
        let text = template.render { values[$0] ?? "" }
        guard style == .waybar else { return text }
        let name = values[.name] ?? ""
        let state = values[.state] ?? ""
        let remaining = values[.remaining] ?? ""
        let progress = values[.progress] ?? ""
        var tooltip = "\(name): \(state), \(remaining) left, \(progress) done"
        if let next = values[.next], !next.isEmpty { tooltip += ", ends \(next)" }
        return Self.waybarObject(
            text: text, tooltip: tooltip, cssClass: state,
            percentage: Self.percentage(Self.fraction(of: entry, now: now)))
    }

    /// The line at an instant with its line end, when its text differs from the last one returned.
    ///
    /// - Parameters:
    ///   - now: boot-time nanoseconds.
    ///   - wallNow: the wall clock now.
    /// - Returns: the line to print, or `nil` when the bar already shows it or the first listing
    ///   has not arrived yet (so a bar never flashes the idle text at start-up).
    mutating func changedLine(now: Int64, wallNow: Date) -> String? {
        guard model.isLoaded else { return nil }
        let text = line(now: now, wallNow: wallNow)
        guard text != lastLine else { return nil }
        lastLine = text
        return text + "\n"
    }

    /// How long until the shown text may change without an event: until the shown timer's
    /// remaining time reaches the whole second below it (shown seconds are rounded up), 1 ms
    /// after, at most 1 s; `-1` (wait for an event) when the shown timer does not run or is at 0.
    ///
    /// - Parameter now: boot-time nanoseconds.
    /// - Returns: milliseconds, or -1.
    func waitMilliseconds(now: Int64) -> Int32 {
        guard let entry = shown(now: now), entry.timer.state == .running else { return -1 }
        let left = WatchModel.remaining(entry, now: now)
        guard left > 0 else { return -1 }
        let fraction = left - left.rounded(.down)
        return fraction == 0 ? 1_000 : Int32(min(1_000, max(1, (fraction * 1_000).rounded(.up) + 1)))
    }

    /// Each field's text for `entry` at `now`.
    static func values(of entry: WatchModel.Entry, now: Int64, wallNow: Date, clock: LocalClock)
        -> [BarTemplate.Field: String]
    {
        let timer = entry.timer
        let left = WatchModel.remaining(entry, now: now)
        var next = ""
        if timer.state == .running { next = clock.endText(wallNow.addingTimeInterval(left), now: wallNow) }
        return [
            .name: timer.name ?? timer.id, .id: timer.id, .remaining: DurationFormatter.countdown(seconds: left),
            .progress: "\(percentage(fraction(of: entry, now: now)))%", .state: timer.state.rawValue, .next: next,
            .icon: icon(timer.state),
        ]
    }

    /// The fraction completed at `now`: the reported `fractionCompleted`, plus for a running timer
    /// the time since the report over the whole duration (a group's progress counts milliseconds
    /// of all its steps, so it moves at that rate too); 0 … 1.
    static func fraction(of entry: WatchModel.Entry, now: Int64) -> Double {
        var fraction = entry.timer.progress.fractionCompleted
        if entry.timer.state == .running, entry.timer.duration > 0 {
            fraction += (entry.timer.remaining - WatchModel.remaining(entry, now: now)) / entry.timer.duration
        }
        return fraction.isFinite ? min(1, max(0, fraction)) : 0
    }

    /// A fraction as a whole percentage, rounded down (as `status` shows it): 0 … 100.
    static func percentage(_ fraction: Double) -> Int { Int((fraction * 100).rounded(.down)) }

    /// The state's one-character mark.
    static func icon(_ state: TimerState) -> String {
        switch state {
        case .running: return "▶"
        case .paused: return "⏸"
        case .stopped: return "■"
        case .finished: return "✓"
        case .pending: return "·"
        case .ringing: return "⏰"
        }
    }

    /// The JSON object of a waybar line, its members in waybar's documented order, text and tooltip
    /// escaped for Pango markup (`&`, `<`, `>`) and then for JSON.
    static func waybarObject(text: String, tooltip: String, cssClass: String, percentage: Int) -> String {
        var writer = JSONBytesWriter()
        writer.raw(#"{"text":"#)
        writer.string(pango(text))
        writer.raw(#","tooltip":"#)
        writer.string(pango(tooltip))
        writer.raw(#","class":"#)
        writer.string(cssClass)
        writer.raw(#","percentage":"#)
        writer.integer(Int64(percentage))
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `text` with the characters Pango markup gives a meaning to replaced by entities.
    static func pango(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            default: result.append(character)
            }
        }
        return result
    }
}
