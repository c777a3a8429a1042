import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import TimerControl

/// The everyday verbs' command lines (decided before any connection, so no daemon is needed), the
/// status table's END column and the day format of remaining times.
@Suite("timerctl extend, restart, rename, skip, rm; status END column")
struct EditVerbTests {
    private func run(_ arguments: [String]) -> (status: Int32, output: CapturedOutput) {
        var output = CapturedOutput()
        let status = ControlCommand.run(arguments, output: &output)
        return (status, output)
    }

    @Test(
        "usage errors are exit 64 with the command's usage",
        arguments: [
            (["extend", "tea"], "'extend' takes ID|NAME and DURATION", "timerctl extend ID|NAME DURATION"),
            (
                ["extend", "tea", "xyz"], "invalid duration \"xyz\": \(DurationParser.acceptedForms)",
                "timerctl extend ID|NAME DURATION"
            ),
            (
                ["extend", "tea", "-400d"], "duration must be > 0 and ≤ 366 days, got \"-400d\"",
                "timerctl extend ID|NAME DURATION"
            ),
            (["rename", "1"], "'rename' takes ID|NAME and NEWNAME", "timerctl rename ID|NAME NEWNAME"),
            (
                ["rename", "1", "42"],
                "invalid timer name \"42\": all digits is an id, not a name; \(TimerName.rule)",
                "timerctl rename ID|NAME NEWNAME"
            ),
            (
                ["rm"], "'rm' takes an ID or NAME, or --all-ended (one of them)",
                "timerctl rm ID|NAME\n       timerctl rm --all-ended"
            ),
            (
                ["forget", "1", "--all-ended"], "'rm' takes an ID or NAME, or --all-ended (one of them)",
                "timerctl rm ID|NAME\n       timerctl rm --all-ended"
            ),
            (["skip"], "'skip' takes exactly one ID or NAME", "timerctl skip ID|NAME"),
        ])
    func usageErrors(_ arguments: [String], _ message: String, _ usage: String) {
        let result = run(arguments + ["--socket", "/nonexistent/timerd.sock"])
        #expect(result.status == 64)
        let verb = arguments[0] == "forget" ? "rm" : arguments[0]
        #expect(
            result.output.stderr == "Error: \(message)\nSee 'timerctl \(verb) --help'.\n")
    }

    @Test("next, forget select skip and rm; a good line reaches the connection (exit 69 with no daemon)")
    func aliases() throws {
        #expect(try ControlOptions.parse(["next", "3"]).verb == .skip)
        #expect(try ControlOptions.parse(["forget", "--all-ended"]).verb == .remove)
        #expect(try ControlOptions.parse(["extend", "tea", "-5m"]).arguments == ["tea", "-5m"])
        #expect(run(["extend", "tea", "-5m", "--socket", "/nonexistent/timerd.sock"]).status == 69)
        // Before the command word every command's options are scanned; the check names its command.
        #expect(
            run(["--all-ended", "status"]).output.stderr
                == "Error: option '--all-ended' is only for 'rm'\nSee 'timerctl status --help'.\n")
    }

    @Test("a one-letter typo suggests nothing rather than an unrelated two-letter command")
    func noWildSuggestion() {
        // 'x' is two edits from 'rm' but shares no letter with it.
        #expect(run(["x"]).output.stderr.hasPrefix("Error: unknown command 'x'\n"))
        #expect(run(["rn"]).output.stderr.hasPrefix("Error: unknown command 'rn'. Did you mean 'rm'?\n"))
    }

    @Test(
        "remaining times from one day on show whole days",
        arguments: [
            (0.0, "0:00:00"), (1_500.2, "0:25:01"), (86_399.5, "1d 00:00:00"), (86_400, "1d 00:00:00"),
            (183_845, "2d 03:04:05"), (10_229_850, "118d 09:37:30"),
        ])
    func days(_ seconds: Double, _ text: String) {
        // 2d 03:04:05 = 2 × 86,400 + 3 × 3,600 + 4 × 60 + 5 = 183,845 s; 86,399.5 rounds up to a day.
        #expect(DurationFormatter.countdown(seconds: seconds) == text)
    }

    @Test("END: the local time of day today, the date and minute otherwise, '-' when not running")
    func endColumn() {
        // now: 2026-12-01T06:30:00Z = 07:30:00 at UTC+1.
        let now = Date(timeIntervalSince1970: 1_796_106_600)
        let clock = LocalClock.fixed(offsetSeconds: 3_600)
        func timer(_ id: String, _ state: TimerState, remaining: Double, endsAt: String?) -> TimerInfo {
            TimerInfo(
                id: id, name: nil, state: state, duration: 200_000, remaining: remaining, elapsed: 0,
                progress: ProgressSnapshot(
                    totalUnitCount: 200_000_000, completedUnitCount: 0, fractionCompleted: 0, isIndeterminate: false,
                    isFinished: false, isCancelled: false, isPaused: state == .paused),
                endsAt: endsAt)
        }
        let timers = [
            // 06:30Z + 1,500 s = 06:55Z = 07:55 local, today.
            timer("1", .running, remaining: 1_500, endsAt: "2026-12-01T06:55:00.000Z"),
            // 06:30Z + 183,845 s = 2026-12-03T09:34:05Z = 10:34 local on 3 December.
            timer("2", .running, remaining: 183_845, endsAt: "2026-12-03T09:34:05.000Z"),
            timer("3", .paused, remaining: 60, endsAt: nil),
        ]
        #expect(
            StatusTable.render(timers, color: false, now: now, clock: clock) == """
                ID  NAME  STATE    REMAINING    END               PROGRESS
                1   -     running  0:25:00      07:55:00          [--------------------]   0%
                2   -     running  2d 03:04:05  2026-12-03 10:34  [--------------------]   0%
                3   -     paused   0:01:00      -                 [--------------------]   0%

                """)
    }

    @Test("the calendar arithmetic agrees with known dates, before and after 1970 and across a leap day")
    func civilDates() {
        // Days since 1970-01-01: 0 is 1970-01-01; 20,513 is 2026-03-01 (2026-02-28 is 20,512); -1 is 1969-12-31;
        // 11,016 is 2000-02-29.
        #expect(LocalClock.civil(fromDays: 0) == (1970, 1, 1))
        #expect(LocalClock.civil(fromDays: 20_512) == (2026, 2, 28))
        #expect(LocalClock.civil(fromDays: 20_513) == (2026, 3, 1))
        #expect(LocalClock.civil(fromDays: -1) == (1969, 12, 31))
        #expect(LocalClock.civil(fromDays: 11_016) == (2000, 2, 29))
    }
}
