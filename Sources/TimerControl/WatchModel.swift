import FoundationEssentials
import TimerModel
import TimerProtocol

/// What `timerctl watch` shows, kept from pushed events without asking timerd again: each timer as
/// the last event (or the first listing) gave it, and when that arrived on the local boot-time
/// clock, so that a running timer's remaining time is counted down locally between events.
///
/// Live timers are shown, and timers that ended while watching stay (as finished or stopped) until
/// `rm` removes them; timers that had ended before watch started are left out, as `status` does.
struct WatchModel {
    /// A timer as last reported and when (boot-time nanoseconds).
    struct Entry {
        var timer: TimerInfo
        var receivedAt: Int64
    }

    /// The timers by id.
    private(set) var entries: [String: Entry] = [:]
    /// The selected timer's id (keys act on it), `nil` when there is none.
    private(set) var selectedID: String?
    /// A one-line message for the user (the last error), shown under the timers.
    var message: String?
    /// Whether the first listing has arrived.
    private(set) var isLoaded = false

    /// The timers in id order (numeric, so 10 comes after 9).
    var ordered: [Entry] {
        entries.values.sorted { ($0.timer.id.count, $0.timer.id) < ($1.timer.id.count, $1.timer.id) }
    }

    /// The selected timer, if any.
    var selected: Entry? { selectedID.flatMap { entries[$0] } }

    /// Replaces everything with a listing (`timer.list`): the live timers.
    ///
    /// - Parameters:
    ///   - timers: the listing.
    ///   - now: boot-time nanoseconds when it arrived.
    mutating func load(_ timers: [TimerInfo], now: Int64) {
        entries = [:]
        for timer in timers where timer.state.isLive { entries[timer.id] = Entry(timer: timer, receivedAt: now) }
        isLoaded = true
        keepSelection()
    }

    /// Applies one pushed event: `removed` drops the timer, anything else replaces it with the
    /// event's timer object.
    ///
    /// - Parameters:
    ///   - event: the notification's `event` (`started`, `removed` …).
    ///   - timer: its timer object.
    ///   - now: boot-time nanoseconds when it arrived.
    mutating func apply(event: String, timer: TimerInfo, now: Int64) {
        if event == "removed" {
            entries[timer.id] = nil
        } else {
            entries[timer.id] = Entry(timer: timer, receivedAt: now)
        }
        keepSelection()
    }

    /// Moves the selection up (`-1`) or down (`+1`), stopping at the ends.
    mutating func moveSelection(by step: Int) {
        let ids = ordered.map(\.timer.id)
        guard !ids.isEmpty else { return }
        let index = selectedID.flatMap { ids.firstIndex(of: $0) } ?? 0
        selectedID = ids[min(max(index + step, 0), ids.count - 1)]
    }

    /// Keeps a selection on an existing timer: the first one when the selected one is gone.
    private mutating func keepSelection() {
        if let selectedID, entries[selectedID] != nil { return }
        selectedID = ordered.first?.timer.id
    }

    /// The remaining seconds of `entry` at `now`: counted down locally while it runs.
    ///
    /// - Parameters:
    ///   - entry: a timer as last reported.
    ///   - now: boot-time nanoseconds.
    /// - Returns: seconds, ≥ 0.
    static func remaining(_ entry: Entry, now: Int64) -> Double {
        guard entry.timer.state == .running else { return entry.timer.remaining }
        return max(0, entry.timer.remaining - Double(now - entry.receivedAt) / 1e9)
    }

    /// How long to wait before the next redraw, in milliseconds: until the next whole second of the
    /// running timer closest to one, at most 1 s; 100 ms while any running timer has under 10 s
    /// left (so the last seconds and the bar move smoothly); `-1` (no tick) when nothing runs.
    ///
    /// - Parameter now: boot-time nanoseconds.
    /// - Returns: milliseconds, or -1.
    /// - Complexity: O(n) in the timers shown.
    func tickMilliseconds(now: Int64) -> Int32 {
        var wait: Int32 = -1
        for entry in entries.values where entry.timer.state == .running {
            let left = Self.remaining(entry, now: now)
            // The shown seconds are rounded up: they change when `left` reaches the whole second
            // below it (a full second away when `left` is whole), redrawn 1 ms after.
            let fraction = left - left.rounded(.down)
            let next: Int32 =
                left < 10
                ? 100 : fraction == 0 ? 1_000 : Int32(min(1_000, max(10, (fraction * 1_000).rounded(.up) + 1)))
            wait = wait < 0 ? next : min(wait, next)
        }
        return wait
    }
}
