import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import TimerControl

/// `timerctl watch`'s frames and model without a terminal: fixed timers, a fixed local zone (UTC+1),
/// fixed instants. The pseudo-terminal test (TimerPickTests) runs the real thing.
@Suite("timerctl watch: frames, model, keys")
struct WatchScreenTests {
    /// now: 2026-12-01T06:30:00Z = 07:30:00 at UTC+1.
    static let wallNow = Date(timeIntervalSince1970: 1_796_106_600)
    static let screen = WatchScreen(usesColor: false, clock: .fixed(offsetSeconds: 3_600))

    static func timer(
        _ id: String, _ name: String?, _ state: TimerState, duration: Double, remaining: Double,
        children: [TimerInfo]? = nil, current: Int? = nil
    ) -> TimerInfo {
        let total = Int64(duration * 1_000)
        let done = Int64((duration - remaining) * 1_000)
        return TimerInfo(
            id: id, name: name, state: state, duration: duration, remaining: remaining, elapsed: duration - remaining,
            progress: ProgressSnapshot(
                totalUnitCount: total, completedUnitCount: done, fractionCompleted: Double(done) / Double(total),
                isIndeterminate: false, isFinished: state == .finished, isCancelled: state == .stopped,
                isPaused: state == .paused),
            currentChild: current, children: children)
    }

    static var model: WatchModel {
        var model = WatchModel()
        let child = timer("2.1", nil, .running, duration: 300, remaining: 300)
        model.load(
            [
                timer("1", "tea", .running, duration: 1_500, remaining: 1_125),
                timer("2", "pomodoro", .paused, duration: 1_800, remaining: 600, children: [child, child], current: 1),
                timer("3", "お茶の時間です長い名前", .running, duration: 200_000, remaining: 183_845),
            ], now: 0)
        return model
    }

    @Test("80 columns: every column; END is the local time (today) or the date; the first timer is selected")
    func wide() {
        // 2 s after the listing: tea has 1,123 s left (0:18:43) and ends at 07:48:45 local;
        // the third has 183,843 s (2d 03:04:03) and ends 2026-12-03T09:34:03Z = 10:34 local.
        // Widths: 29 fixed columns (marker, id, state, the 11 of "2d 03:04:03", separators), END 16
        // and "step 2/2" 8 leave 14 of 80 for name and bar: the name 8 (its minimum before the bar
        // grows), the bar 6 cells (25% of 6 is 1 '#', 66% is 4).
        let lines = Self.screen.lines(
            Self.model, columns: 80, rows: 24, now: 2_000_000_000, wallNow: Self.wallNow.addingTimeInterval(2))
        #expect(
            lines == [
                "timerctl watch · 3 live timers · 07:30:02",
                "",
                "  ID  NAME      STATE     LEFT         END               PROGRESS",
                "> 1   tea       running   0:18:43      07:48:45          [#-----]  25%",
                "  2   pomodoro  paused    0:10:00      -                 [####--]  66%  step 2/2",
                "  3   お茶の…   running   2d 03:04:03  2026-12-03 10:34  [------]   8%",
                "",
                WatchScreen.keys,
            ])
    }

    @Test("40 columns and narrower: no line wider than the terminal; step, END and the bar give way")
    func narrow() {
        for columns in [40, 30, 20, 8] {
            let lines = Self.screen.lines(Self.model, columns: columns, rows: 24, now: 0, wallNow: Self.wallNow)
            for line in lines { #expect(DisplayWidth.of(line) <= columns, "\(columns): \(line)") }
        }
        let forty = Self.screen.lines(Self.model, columns: 40, rows: 24, now: 0, wallNow: Self.wallNow)
        #expect(
            forty == [
                "3 live timers · 07:30:00", "",
                "  ID  NAME   STATE     LEFT         DONE",
                "> 1   tea    running   0:18:45       25%",
                "  2   pomo…  paused    0:10:00       66%",
                "  3   お茶…  running   2d 03:04:05    8%",
                "",
                WatchScreen.shortKeys,
            ])
    }

    /// Two-digit ids and a timer with 118 days left ("118d 09:37:30", 13 columns): at 40 columns
    /// even the percentage alone (DONE) does not fit beside ID, NAME, STATE and LEFT.
    static var longModel: WatchModel {
        var model = WatchModel()
        model.load(
            [
                timer("9", "tea", .running, duration: 1_500, remaining: 1_125),
                timer("10", "release", .running, duration: 10_368_000, remaining: 10_230_000),
                timer("11", "お茶の時間", .paused, duration: 1_800, remaining: 600),
            ], now: 0)
        return model
    }

    @Test("40, 60 and 80 columns: whole columns go by the rule (DONE, then STATE), none is cut mid-word")
    func columnRule() {
        func frame(_ columns: Int) -> [String] {
            Self.screen.lines(Self.longModel, columns: columns, rows: 24, now: 0, wallNow: Self.wallNow)
        }
        // 40: with a 4-column name, DONE would need 2 + 2 (ID) + 2 + 4 + 2 + 8 (STATE) + 2 + 13 (LEFT)
        // + 2 + 4 = 41 columns: DONE goes whole, and NAME gets the 9 columns left (before: the
        // header ended in "DON" and the rows in a cut percentage).
        #expect(
            frame(40) == [
                "3 live timers · 07:30:00", "",
                "  ID  NAME       STATE     LEFT",
                "> 9   tea        running   0:18:45",
                "  10  release    running   118d 09:40:00",
                "  11  お茶の時…  paused    0:10:00",
                "",
                WatchScreen.shortKeys,
            ])
        // 60: END goes (16 columns), the bar keeps 10 cells; 118 days ahead of 07:30 local on
        // 2026-12-01 is 2027-03-29 17:10 local (END at 80).
        #expect(
            frame(60) == [
                "timerctl watch · 3 live timers · 07:30:00", "",
                "  ID  NAME        STATE     LEFT           PROGRESS",
                "> 9   tea         running   0:18:45        [##--------]  25%",
                "  10  release     running   118d 09:40:00  [----------]   1%",
                "  11  お茶の時間  paused    0:10:00        [######----]  66%",
                "",
                WatchScreen.shortKeys,
            ])
        #expect(
            frame(80) == [
                "timerctl watch · 3 live timers · 07:30:00", "",
                "  ID  NAME        STATE     LEFT           END               PROGRESS",
                "> 9   tea         running   0:18:45        07:48:45          [###---------]  25%",
                "  10  release     running   118d 09:40:00  2027-03-29 17:10  [------------]   1%",
                "  11  お茶の時間  paused    0:10:00        -                 [########----]  66%",
                "",
                WatchScreen.keys,
            ])
        // Narrower still, STATE goes too before anything is cut: 2 + 2 + 2 + 4 + 2 + 13 = 25.
        #expect(frame(25)[2] == "  ID  NAME  LEFT")
    }

    @Test("events replace a timer, removed drops it; the selection moves and survives; tick timing")
    func model() {
        var model = Self.model
        #expect(model.selected?.timer.id == "1")
        model.moveSelection(by: 1)
        #expect(model.selected?.timer.id == "2")
        model.apply(event: "removed", timer: Self.timer("2", "pomodoro", .stopped, duration: 1, remaining: 1), now: 0)
        #expect(model.ordered.map(\.timer.id) == ["1", "3"] && model.selected?.timer.id == "1")
        model.apply(event: "started", timer: Self.timer("10", nil, .running, duration: 9, remaining: 9), now: 0)
        #expect(model.ordered.map(\.timer.id) == ["1", "3", "10"])  // numeric order
        // Timer 10 has 9 s left, under 10 s: 100 ms ticks (tea, at a whole 1,125 s, next changes
        // in 1 s). Without it, 0.4 s later tea has 1,124.6 s left: the shown 1,125 becomes 1,124
        // in 0.6 s, redrawn 1 ms after (601 ms).
        #expect(model.tickMilliseconds(now: 0) == 100)
        model.apply(event: "removed", timer: Self.timer("10", nil, .stopped, duration: 9, remaining: 9), now: 0)
        #expect(model.tickMilliseconds(now: 400_000_000) == 601)
        var idle = WatchModel()
        idle.load([], now: 0)
        #expect(idle.tickMilliseconds(now: 0) == -1)
    }

    @Test("keys: letters, + and -, arrows (CSI and SS3); other bytes ignored")
    func keys() {
        #expect(
            Watch.actions(Array("pqs+-n=_x".utf8))
                == [.pauseOrResume, .quit, .stop, .extend(60), .extend(-60), .next, .extend(60), .extend(-60)])
        #expect(Watch.actions([0x1B, 0x5B, 0x41, 0x1B, 0x4F, 0x42, 0x6B, 0x6A]) == [.up, .down, .up, .down])
    }
}
