import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// `timer.start` with `loops`: the group of `durations` repeated, one loop after the other, and the
/// errors for a count out of range or a form without a group (docs/protocol.md, `timer.start`).
@Suite("timer.start loops")
struct LoopsParameterTests {
    private static func service() -> TimerService {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        return TimerService(engine: TimerEngine(clock: clock), quota: 10_000, pid: 4_242)
    }

    private static func start(_ service: inout TimerService, _ params: String) -> String {
        let line = #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"# + params + "}}"
        let outcome = service.handle(
            line: Array(line.utf8), context: RequestContext(uid: 1_000, waiter: 1, connection: 1))
        return outcome.reply.map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    private static func error(_ service: inout TimerService, _ params: String) -> String? {
        let reply = start(&service, params)
        guard let object = JSONValue(parsing: Array(reply.utf8)), case .object(let members) = object,
            case .object(let error)? = members["error"], case .string(let message)? = error["message"],
            case .number(let code)? = error["code"]
        else { return nil }
        return "\(Int(code)) \(message)"
    }

    @Test("25m 5m with loops 4 is the group of 8 steps 25m 5m … in order, 2 hours in all")
    func repeatsTheGroup() throws {
        #expect(try TimerService.repeated([1_500, 300], loops: 4) == [1_500, 300, 1_500, 300, 1_500, 300, 1_500, 300])
        #expect(try TimerService.repeated([60], loops: 1) == [60])
        var service = Self.service()
        let reply = Self.start(&service, #""durations":["25m","5m"],"loops":4,"name":"pomo""#)
        // 4 × (1,500 s + 300 s) = 7,200 s; children 1.1 … 1.8 alternate 1,500 and 300 s.
        #expect(reply.contains(#""duration":7200,"#))
        let durations = service.engine.list(includeEnded: false, requester: 1_000).first?.children.map(
            \.duration)
        #expect(durations == [1_500, 300, 1_500, 300, 1_500, 300, 1_500, 300])
    }

    @Test("loops 1 and null are a plain group; loops 50 of 2 durations is the 100-step limit")
    func limits() throws {
        var service = Self.service()
        #expect(Self.start(&service, #""durations":[60,30],"loops":1"#).contains(#""duration":90,"#))
        #expect(Self.start(&service, #""durations":[60,30],"loops":null"#).contains(#""duration":90,"#))
        // 50 × 2 = 100 = TimerLimits.maximumGroupSize: accepted; 100 × (60 + 30) s = 4,500 s.
        #expect(Self.start(&service, #""durations":[60,30],"loops":50"#).contains(#""duration":4500,"#))
    }

    @Test("a count out of range, a fraction, a string, or loops without a group are -32602 with the reason")
    func refusals() {
        var service = Self.service()
        #expect(
            Self.error(&service, #""durations":[60,30],"loops":51"#)
                == "-32602 51 loops of 2 durations are 102 steps; a timer takes at most 100")
        #expect(
            Self.error(&service, #""durations":[60],"loops":0"#)
                == "-32602 \"loops\" of timer.start must be 1 to 100, got 0")
        #expect(
            Self.error(&service, #""durations":[60],"loops":101"#)
                == "-32602 \"loops\" of timer.start must be 1 to 100, got 101")
        #expect(
            Self.error(&service, #""durations":[60],"loops":1.5"#)
                == "-32602 \"loops\" of timer.start must be a whole number, got number")
        #expect(
            Self.error(&service, #""durations":[60],"loops":"4""#)
                == "-32602 \"loops\" of timer.start must be a whole number, got string")
        #expect(
            Self.error(&service, #""durations":[60],"heartbeat":true,"loops":2"#)
                == "-32602 \"loops\" repeats a group of \"durations\"; it cannot be used with \"heartbeat\"")
        #expect(
            Self.error(&service, #""on":"daily","loops":2"#)
                == "-32602 \"loops\" repeats a group of \"durations\"; it cannot be used with \"on\"")
        #expect(
            Self.error(&service, #""at":"2026-11-30T09:00:00Z","loops":2"#)
                == "-32602 \"loops\" repeats a group of \"durations\"; it cannot be used with \"at\"")
        // Nothing was started by any of them.
        #expect(service.engine.list(includeEnded: true, requester: 1_000).isEmpty)
    }
}
