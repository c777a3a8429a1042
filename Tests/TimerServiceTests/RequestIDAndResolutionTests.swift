import Countdown
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// Integer ids beyond 2^53 come back digit for digit, and durations under the
/// timers' resolution (1 µs) are refused instead of starting a timer that ends at once.
@Suite("Request ids and the duration resolution")
struct RequestIDAndResolutionTests {
    /// A service on a manual clock (FixedInstant.engineStart: 2026-11-29T15:17:33Z).
    private static func reply(to line: String) throws -> String {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), quota: 100, pid: 4_242)
        let outcome = service.handle(line: Array(line.utf8), context: RequestContext(uid: 1_000, waiter: 1))
        return String(decoding: try #require(outcome.reply), as: UTF8.self)
    }

    /// Ids a Double cannot hold: 2^53 + 1 (rounds to 2^53), Int64.max, one below Int64.min and a
    /// 30-digit id. JSON-RPC 2.0 §4: the response's id is the request's, so the digits must match.
    @Test(
        "A large integer id is echoed with its exact digits",
        arguments: [
            "9007199254740993", "9223372036854775807", "-9223372036854775809", "123456789012345678901234567890",
        ]
    )
    func largeIntegerID(digits: String) throws {
        let reply = try Self.reply(to: #"{"jsonrpc":"2.0","id":"# + digits + #","method":"daemon.ping"}"#)
        #expect(reply.hasPrefix(#"{"id":"# + digits + #","jsonrpc":"2.0","result":"#), "\(reply)")
        // An error reply keeps the digits too (sorted keys: error, id, jsonrpc).
        let error = try Self.reply(to: #"{"jsonrpc":"2.0","id":"# + digits + #","method":"nope"}"#)
        #expect(error.contains(#"},"id":"# + digits + #","jsonrpc":"2.0"}"#), "\(error)")
    }

    @Test("Ids a Double holds keep their usual form")
    func smallIDs() throws {
        // 2^53 itself is exact in a Double; 1e3 is a number, echoed as the integer 1000.
        #expect(
            try Self.reply(to: #"{"jsonrpc":"2.0","id":9007199254740992,"method":"daemon.ping"}"#)
                .hasPrefix(#"{"id":9007199254740992,"#))
        #expect(try Self.reply(to: #"{"jsonrpc":"2.0","id":1e3,"method":"daemon.ping"}"#).hasPrefix(#"{"id":1000,"#))
    }

    @Test("The integer literal of a member is read from the text, first key winning")
    func integerLiteral() {
        let line = Array(#"{"a":[1], "id" : -12345678901234567890 ,"id":2}"#.utf8)
        #expect(JSONValue.integerLiteral(ofMember: "id", in: line, leniency: .strict) == "-12345678901234567890")
        #expect(JSONValue.integerLiteral(ofMember: "id", in: Array(#"{"id":1.5}"#.utf8), leniency: .strict) == nil)
        #expect(JSONValue.integerLiteral(ofMember: "id", in: Array(#"{"x":{"id":7}}"#.utf8), leniency: .strict) == nil)
        #expect(JSONValue.integerLiteral(ofMember: "id", in: Array(#"{"id":7"#.utf8), leniency: .strict) == nil)
    }

    /// `5e-324` (the smallest subnormal Double) and `"0.0000000001s"` used to start 0.1-ns timers.
    @Test(
        "Durations under 1 µs are refused with -32602",
        arguments: [(#"5e-324"#, "5e-324"), (#""0.0000000001s""#, "0.0000000001s"), (#""999ns""#, "999ns")])
    func tooShort(json: String, shown: String) throws {
        let reply = try Self.reply(
            to: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["# + json + "]}}")
        let expected =
            #"{"error":{"code":-32602,"message":"duration must be at least 1us (the timers' resolution), got \""#
            + shown + #"\""},"id":1,"jsonrpc":"2.0"}"#
        #expect(reply == expected)
    }

    @Test("1 µs is the shortest duration accepted")
    func shortest() throws {
        #expect(DurationParser.minimumSeconds == 1e-6)
        #expect(try DurationParser.seconds(from: "1us") == 1e-6)
        #expect(throws: CountdownError.durationTooShort("0.5us")) { try DurationParser.seconds(from: "0.5us") }
        let reply = try Self.reply(
            to: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["1us"]}}"#)
        #expect(reply.hasPrefix(#"{"id":1,"jsonrpc":"2.0","result":{"#), "\(reply)")
    }
}
