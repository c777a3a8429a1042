import Foundation
import Testing
import TimerClient
import TimerModel
import TimerProtocol

@testable import TimerControl

// timerctl start --on/--every and their options. Messages are ControlOptions' own.

@Suite("timerctl start --on/--every: options, usage errors and the request")
struct RecurringOptionsTests {
    @Test("--every with --from (an instant), --skip-missed and --randomized-delay: the request's members")
    func everyRequest() throws {
        let options = try ControlOptions.parse([
            "start", "--every", "90m", "--from", "2026-12-01T09:00:00+01:00", "--skip-missed", "--randomized-delay",
            "30s", "--name", "water",
        ])
        let params = try RecurringStart.make(options)
        // Keys sorted, as TimerClient's request writer writes every request; no timeZone: --from has
        // its own offset. 90m is 5400 s, 30s is 30.
        var writer = JSONBytesWriter()
        try TimerRequest.startRecurring(params).writeParams(to: &writer)
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == #"{"every":5400,"from":"2026-12-01T09:00:00+01:00","name":"water","randomizedDelay":30,"skipMissed":true}"#
        )
    }

    @Test("--every with DURATIONs, --loops and --overlap: the group each elapse starts, in the request")
    func groupRequest() throws {
        let options = try ControlOptions.parse([
            "start", "--every", "1h", "25m", "5m", "--loops", "2", "--overlap", "queue", "--name", "pomo",
        ])
        let params = try RecurringStart.make(options)
        // 1h is 3600 s, 25m and 5m are 1500 s and 300 s; timerd repeats them (loops), so they are sent
        // once. (--every: no TZ is read, so the request does not depend on the environment.)
        var writer = JSONBytesWriter()
        try TimerRequest.startRecurring(params).writeParams(to: &writer)
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == #"{"durations":[1500,300],"every":3600,"loops":2,"name":"pomo","overlap":"queue"}"#)
    }

    @Test("--on sends the expression as typed (timerd parses it and names the offending token)")
    func onRequest() throws {
        let params = try RecurringStart.make(try ControlOptions.parse(["start", "--on", "Mon..Fri 07:00"]))
        #expect(params.on == "Mon..Fri 07:00" && params.every == nil && !params.skipMissed)
    }

    @Test(
        "Usage errors name what goes with what",
        arguments: [
            (
                ["start", "--on", "daily", "--at", "09:00"],
                "'start' takes one of DURATION..., --at TIME, --on EXPR or --every DURATION"
            ),
            (
                ["start", "--on", "daily", "--overlap", "queue"],
                "option '--overlap' goes with 'start --on EXPR DURATION...' or 'start --every DURATION DURATION...' "
                    + "(the group each elapse starts)"
            ),
            (
                ["start", "--on", "daily", "5m", "--overlap", "twice"],
                "--overlap must be skip, queue or restart, got \"twice\""
            ),
            (["start", "--on", "daily", "5m", "--heartbeat"], "'start' takes --heartbeat or --on/--every, not both"),
            (
                ["start", "--on", "daily", "--every", "1h"],
                "'start' takes one of DURATION..., --at TIME, --on EXPR or --every DURATION"
            ),
            (["start", "--on", "daily", "--from", "09:00"], "option '--from' goes with 'start --every DURATION'"),
            (
                ["start", "5m", "--skip-missed"],
                "option '--skip-missed' goes with 'start --on EXPR' or 'start --every DURATION'"
            ),
            (
                ["start", "--at", "09:00", "--randomized-delay", "5s"],
                "option '--randomized-delay' goes with 'start --on EXPR' or 'start --every DURATION'"
            ),
            (
                ["start", "--on", "daily", "--persistent", "--skip-missed"],
                "'start' takes --persistent or --skip-missed, not both"
            ),
        ])
    func usage(arguments: [String], message: String) {
        #expect(throws: ControlError.usage(message, verb: .start)) { try ControlOptions.parse(arguments) }
    }

    @Test("status: a NEXT column and the rule, count, latest elapse and result where the bar would be")
    func statusTable() {
        // now: 2026-12-01T06:30:00Z = 07:30:00 at UTC+1 (the fixed clock's zone).
        let now = Date(timeIntervalSince1970: 1_796_106_600)
        let clock = LocalClock.fixed(offsetSeconds: 3_600)
        let progress = ProgressSnapshot(
            totalUnitCount: 900_000, completedUnitCount: 0, fractionCompleted: 0, isIndeterminate: false,
            isFinished: false, isCancelled: false, isPaused: false)
        var quarter = TimerInfo(
            id: "1", name: "q", state: .running, duration: 900, remaining: 600, elapsed: 300, progress: progress,
            endsAt: "2026-12-01T06:40:00.000Z")
        quarter.recurrence = RecurrenceInfo(
            elapseCount: 12, every: nil, expression: "*:0/10", followsSystemZone: true,
            lastElapse: "2026-12-01T06:30:00.000Z", lastMissed: 0, lastResult: "exited 0",
            nextElapse: "2026-12-01T06:40:00.000Z", persistent: true, randomizedDelay: 0, zone: "Europe/Paris")
        var walk = TimerInfo(
            id: "2", name: "w", state: .running, duration: 5_400, remaining: 5_400, elapsed: 0, progress: progress,
            endsAt: "2026-12-01T08:00:00.000Z")
        walk.recurrence = RecurrenceInfo(
            elapseCount: 3, every: 5_400, expression: nil, followsSystemZone: nil,
            lastElapse: "2026-12-01T06:30:00.000Z", lastMissed: 2, lastResult: nil,
            nextElapse: "2026-12-01T08:00:00.000Z", persistent: true, randomizedDelay: 0, zone: nil)
        let tea = TimerInfo(
            id: "3", name: "tea", state: .running, duration: 900, remaining: 900, elapsed: 0, progress: progress,
            endsAt: "2026-12-01T06:45:00.000Z")
        // Local times at UTC+1: next 07:40:00 and 09:00:00, latest 07:30:00; tea ends 07:45:00.
        #expect(
            StatusTable.render([quarter, walk, tea], color: false, now: now, clock: clock) == """
                ID  NAME  STATE    REMAINING  NEXT      END       PROGRESS
                1   q     running  0:10:00    07:40:00  -         *:0/10 (Europe/Paris)  #12, last 07:30:00 exited 0
                2   w     running  1:30:00    09:00:00  -         every 1h30m  #3, last 07:30:00, caught up 2
                3   tea   running  0:15:00    -         07:45:00  [--------------------]   0%

                """)
    }

    @Test("Bad values are refused before anything is sent")
    func badValues() throws {
        #expect(throws: ControlError.self) {
            try RecurringStart.make(try ControlOptions.parse(["start", "--every", "5x"]))
        }
        #expect(
            throws: ControlError.usage("--on needs a calendar expression, such as --on 'Mon..Fri 07:00'", verb: .start)
        ) {
            try RecurringStart.make(try ControlOptions.parse(["start", "--on", " "]))
        }
        #expect(throws: ControlError.self) {
            try RecurringStart.make(try ControlOptions.parse(["start", "--every", "1h", "--from", "fri"]))
        }
    }
}
