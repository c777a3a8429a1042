import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol
import TimerService

// `timer.start` with `on`/`every` over the service (docs/protocol.md, "Recurring timers").
// Expected messages are the service's own (TimerService+Parameters.swift) and the calendar parser's
// (CalendarExpressionError), written out here so that a change to either is seen.

private func reply(_ request: String, wall: Date = Date(timeIntervalSince1970: 1_795_942_800)) -> String {
    let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: wall)  // 2026-11-29T09:00:00Z
    var service = TimerService(engine: TimerEngine(clock: clock), quota: 10_000, pid: 1)
    let outcome = service.handle(line: Array(request.utf8), context: RequestContext(uid: 1_000, waiter: 1))
    return String(decoding: outcome.reply ?? [], as: UTF8.self)
}

private func start(_ params: String) -> String {
    reply(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":"# + params + "}")
}

private func error(_ message: String) -> String {
    #"{"error":{"code":-32602,"message":"# + "\"" + message.replacingOccurrences(of: "\"", with: "\\\"")
        + #""},"id":1,"jsonrpc":"2.0"}"#
}

@Suite("timer.start with on/every: parameters and errors")
struct RecurringParametersTests {
    @Test("on with a zone: the reply carries the recurrence; the first elapse is the expression's next")
    func calendar() throws {
        let text = start(#"{"on":"*:0/15","timeZone":"Europe/Paris","skipMissed":true,"randomizedDelay":"30s"}"#)
        // 09:00Z is 10:00 in Paris: the next :0/15 is 10:15 CET = 09:15Z, plus this timer's fixed part of
        // the 30 s randomized delay (TimerEngine.fixedDelay of id 1 and 09:15Z).
        #expect(text.contains(#""expression":"*:0/15","followsSystemZone":false"#), "\(text)")
        #expect(text.contains(#""persistent":false,"randomizedDelay":30,"zone":"Europe/Paris""#), "\(text)")
        #expect(text.contains(#""nextElapse":"2026-11-29T09:15:"#), "\(text)")
    }

    @Test("on with durations, loops and overlap: the reply's recurrence carries the group, repeated, no run yet")
    func group() throws {
        let text = start(#"{"on":"daily","durations":["25m","5m"],"loops":2,"overlap":"queue"}"#)
        // 25m and 5m are 1,500 s and 300 s; two loops repeat them; nothing ran yet.
        #expect(
            text.contains(
                #""group":{"durations":[1500,300,1500,300],"overlap":"queue","queued":false,"runCount":0,"skippedCount":0}"#
            ), "\(text)")
        // Without "overlap" the rule is skip (systemd's: no second start of an active unit).
        #expect(start(#"{"every":"1h","durations":[60]}"#).contains(#""group":{"durations":[60],"overlap":"skip""#))
        // 101 steps without loops: the engine's group limit (CountdownError.groupSizeOutOfRange), as
        // for a one-shot group.
        let many = "[" + Array(repeating: "1", count: 101).joined(separator: ",") + "]"
        #expect(
            start(#"{"on":"daily","durations":"# + many + "}")
                == error("a timer takes 1 to 100 durations, got 101"))
    }

    @Test("every with from: the first elapse is from; a number of seconds and a duration string both work")
    func every() throws {
        let text = start(#"{"every":"90m","from":"2026-11-29T09:20:00Z"}"#)
        #expect(text.contains(#""endsAt":"2026-11-29T09:20:00.000Z""#), "\(text)")
        #expect(text.contains(#""recurrence":{"elapseCount":0,"every":5400,"lastMissed":0"#), "\(text)")
        #expect(start(#"{"every":5400}"#).contains(#""endsAt":"2026-11-29T10:30:00.000Z""#))
    }

    @Test(
        "Bad combinations and values get -32602 with the exact message",
        arguments: [
            (
                #"{"on":"*-*-* 25:00"}"#,
                "invalid calendar expression '*-*-* 25:00': hour '25' at offset 6 is out of range; allowed: 0..23"
            ),
            (
                #"{"on":"daily","at":"2026-11-29T10:00:00Z"}"#,
                "timer.start takes one of \"durations\", \"at\", \"on\" or \"every\""
            ),
            // A series that starts a group at each elapse ("durations" with "on" or "every").
            (
                #"{"durations":[60],"overlap":"queue"}"#,
                "\"overlap\" of timer.start goes with \"durations\" and \"on\" or \"every\" (a group started at each elapse)"
            ),
            (
                #"{"on":"daily","overlap":"queue"}"#,
                "\"overlap\" of timer.start goes with \"durations\" and \"on\" or \"every\" (a group started at each elapse)"
            ),
            (
                #"{"on":"daily","durations":[60],"overlap":"later"}"#,
                "\"overlap\" of timer.start must be \"skip\", \"queue\" or \"restart\", got \"later\""
            ),
            (
                #"{"on":"daily","durations":[60],"overlap":1}"#,
                "\"overlap\" of timer.start must be \"skip\", \"queue\" or \"restart\", got number"
            ),
            (
                #"{"on":"daily","durations":[60,60],"loops":51}"#,
                "51 loops of 2 durations are 102 steps; a timer takes at most 100"
            ),
            (
                #"{"on":"daily","loops":2}"#,
                "\"loops\" repeats a group of \"durations\"; it cannot be used with \"on\""
            ),
            // DurationParser.validate's message (CountdownError.durationOutOfRange), as for a one-shot start.
            (#"{"every":"1h","durations":[0]}"#, "duration must be > 0 and ≤ 366 days, got \"0\""),
            (#"{"on":"daily","every":60}"#, "timer.start takes \"on\" or \"every\", not both"),
            (#"{"durations":[60],"skipMissed":true}"#, "\"skipMissed\" of timer.start goes with \"on\" or \"every\""),
            (
                #"{"on":"daily","from":"2026-11-29T10:00:00Z"}"#,
                "\"from\" of timer.start goes with \"every\", not \"on\""
            ),
            (
                #"{"on":"daily","timeZone":"Mars/Olympus"}"#,
                "unknown time zone \"Mars/Olympus\": use an IANA name such as Europe/Paris or UTC"
            ),
            (
                #"{"on":"2020-01-01"}"#,
                "calendar expression '2020-01-01' never elapses after 2026-11-29T09:00:00.000Z (normalized: 2020-01-01 00:00:00)"
            ),
            (#"{"every":0.1}"#, "the period of --every must be 0.5s to 366 days, got 100ms"),
            (
                #"{"on":7}"#,
                "\"on\" of timer.start must be a calendar expression (string) such as \"Mon..Fri 07:00\", got number"
            ),
        ])
    func errors(params: String, message: String) throws {
        #expect(start(params) == error(message))
    }
}
