import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// `timer.extend`, `timer.restart`, `timer.rename`, `timer.skip` and `timer.remove` through the
/// service: per user like every method, durable (the reply waits for the commit), and their
/// parameter errors. The expected messages are the service's own wording (docs/protocol.md).
@Suite("Edit methods: per user, durable, parameters")
struct EditMethodTests {
    private static func service() -> TimerService {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        return TimerService(engine: TimerEngine(clock: clock), quota: 10_000, pid: 4_242)
    }

    private static func send(_ service: inout TimerService, _ line: String, uid: UInt32) -> ServiceOutcome {
        service.handle(line: Array(line.utf8), context: RequestContext(uid: uid, waiter: 1))
    }

    private static func errorCode(_ outcome: ServiceOutcome) -> Int? {
        guard let reply = outcome.reply, case .object(let object)? = JSONValue(parsing: reply),
            case .object(let error)? = object["error"], case .number(let code)? = error["code"]
        else { return nil }
        return Int(code)
    }

    @Test(
        "another user's timer is missing (-32001) for every edit; root may edit it",
        arguments: [
            #"{"jsonrpc":"2.0","id":2,"method":"timer.extend","params":{"timer":1,"by":60}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"timer.restart","params":{"timer":"tea"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"timer.rename","params":{"timer":1,"name":"mine"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"timer.skip","params":{"timer":1}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"timer.remove","params":{"timer":1}}"#,
        ])
    func perUser(_ request: String) {
        var service = Self.service()
        _ = Self.send(
            &service, #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60,60],"name":"tea"}}"#,
            uid: 1_000)
        let stranger = Self.send(&service, request, uid: 1_001)
        #expect(Self.errorCode(stranger) == RPCErrorCode.timerNotFound.rawValue)
        #expect(!stranger.changedState && !stranger.requiresDurability)
        // root sees every timer: the request reaches the timer (remove of a live one is -32002).
        let root = Self.send(&service, request, uid: 0)
        if request.contains("timer.remove") {
            #expect(Self.errorCode(root) == RPCErrorCode.invalidTransition.rawValue)
        } else {
            #expect(
                Self.errorCode(root) == nil && root.requiresDurability,
                "\(root.reply.map { String(decoding: $0, as: UTF8.self) } ?? "")")
        }
    }

    @Test("remove with allEnded takes only the caller's own history, root's included")
    func allEndedIsPerUser() throws {
        var service = Self.service()
        for (uid, id) in [(UInt32(1_000), 1), (1_001, 2), (0, 3)] {
            _ = Self.send(
                &service, #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60]}}"#, uid: uid)
            _ = Self.send(
                &service, #"{"jsonrpc":"2.0","id":2,"method":"timer.stop","params":{"timer":\#(id)}}"#, uid: uid)
        }
        let root = Self.send(
            &service, #"{"jsonrpc":"2.0","id":3,"method":"timer.remove","params":{"allEnded":true}}"#, uid: 0)
        #expect(root.requiresDurability)
        // Root removed its own timer 3 only; 1 and 2 stay in their owners' histories.
        #expect(service.engine.list(includeEnded: true).map(\.id) == [1, 2])
        let nothing = Self.send(
            &service, #"{"jsonrpc":"2.0","id":4,"method":"timer.remove","params":{"allEnded":true}}"#, uid: 1_002)
        #expect(try #require(nothing.reply).count > 0 && !nothing.requiresDurability)
        #expect(
            String(decoding: try #require(nothing.reply), as: UTF8.self) == #"{"id":4,"jsonrpc":"2.0","result":[]}"#)
    }

    @Test(
        "parameter errors are -32602 with a message that says what is allowed",
        arguments: [
            (
                #"{"jsonrpc":"2.0","id":5,"method":"timer.extend","params":{"timer":1}}"#,
                #"timer.extend needs \"by\": seconds (a number, negative to subtract) or a duration such as \"5m\" or \"-5m\""#
            ),
            (
                #"{"jsonrpc":"2.0","id":5,"method":"timer.extend","params":{"timer":1,"by":0}}"#,
                #"duration must be > 0 and ≤ 366 days, got \"0\""#
            ),
            (
                #"{"jsonrpc":"2.0","id":5,"method":"timer.extend","params":{"timer":1,"by":true}}"#,
                #"\"by\" of timer.extend must be a number of seconds or a duration string such as \"5m\", got boolean"#
            ),
            (
                #"{"jsonrpc":"2.0","id":5,"method":"timer.rename","params":{"timer":1}}"#,
                #"timer.rename needs \"name\": the new name (a string)"#
            ),
            (
                #"{"jsonrpc":"2.0","id":5,"method":"timer.remove","params":{"timer":1,"allEnded":true}}"#,
                #"timer.remove takes either \"timer\" or \"allEnded\", not both"#
            ),
            (
                #"{"jsonrpc":"2.0","id":5,"method":"timer.skip","params":{"timer":1,"by":60}}"#,
                #"unknown parameter \"by\" for timer.skip; allowed: timer"#
            ),
        ])
    func parameterErrors(_ request: String, _ message: String) {
        var service = Self.service()
        _ = Self.send(
            &service, #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60]}}"#, uid: 1_000)
        let outcome = Self.send(&service, request, uid: 1_000)
        #expect(
            outcome.reply.map { String(decoding: $0, as: UTF8.self) }
                == #"{"error":{"code":-32602,"message":""# + message + #""},"id":5,"jsonrpc":"2.0"}"#)
    }
}
