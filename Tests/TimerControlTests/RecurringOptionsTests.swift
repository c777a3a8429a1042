import Testing
import TimerModel
import TimerProtocol

@testable import TimerControl

// Issue 13: timerctl start --on/--every and their options. Messages are ControlOptions' own.

@Suite("timerctl start --on/--every: options, usage errors and the request")
struct RecurringOptionsTests {
    @Test("--every with --from (an instant), --skip-missed and --randomized-delay: the request's members")
    func everyRequest() throws {
        let options = try ControlOptions.parse([
            "start", "--every", "90m", "--from", "2026-12-01T09:00:00+01:00", "--skip-missed", "--randomized-delay",
            "30s", "--name", "water",
        ])
        let params = try StartRecurringParams.make(options)
        // Keys sorted, as RequestJSON writes every request; no timeZone: --from has its own offset.
        #expect(
            params.jsonMembers == [
                #""every":5400"#, #""from":"2026-12-01T09:00:00+01:00""#, #""name":"water""#,
                #""randomizedDelay":30"#, #""skipMissed":true"#,
            ])
    }

    @Test("--on sends the expression as typed (timerd parses it and names the offending token)")
    func onRequest() throws {
        let params = try StartRecurringParams.make(try ControlOptions.parse(["start", "--on", "Mon..Fri 07:00"]))
        #expect(params.on == "Mon..Fri 07:00" && params.every == nil && !params.skipMissed)
    }

    @Test(
        "Usage errors name what goes with what",
        arguments: [
            (
                ["start", "--on", "daily", "5m"],
                "'start' takes one of DURATION..., --at TIME, --on EXPR or --every DURATION"
            ),
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

    @Test("Bad values are refused before anything is sent")
    func badValues() throws {
        #expect(throws: ControlError.self) {
            try StartRecurringParams.make(try ControlOptions.parse(["start", "--every", "5x"]))
        }
        #expect(
            throws: ControlError.usage("--on needs a calendar expression, such as --on 'Mon..Fri 07:00'", verb: .start)
        ) {
            try StartRecurringParams.make(try ControlOptions.parse(["start", "--on", " "]))
        }
        #expect(throws: ControlError.self) {
            try StartRecurringParams.make(try ControlOptions.parse(["start", "--every", "1h", "--from", "fri"]))
        }
    }
}
