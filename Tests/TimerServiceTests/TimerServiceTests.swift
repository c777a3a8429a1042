import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// A service on a manual clock, fed request lines as strings.
private struct ServiceHarness {
    static let wall = FixedInstant.engineStart  // 2026-11-29T15:17:33Z

    let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: wall)
    var service: TimerService

    init(quota: Int? = 10_000) {
        service = TimerService(engine: TimerEngine(clock: clock), quota: quota, pid: 4_242)
    }

    /// Handles `line` as sent by `uid` (not root unless 0), under the waiter token `waiter`.
    mutating func send(_ line: String, uid: UInt32 = 1_000, waiter: WaiterID = 1) -> ServiceOutcome {
        service.handle(line: Array(line.utf8), context: RequestContext(uid: uid, waiter: waiter))
    }
}

/// The reply line as text; fails the test when there is none.
private func text(_ reply: [UInt8]?, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    String(decoding: try #require(reply, sourceLocation: sourceLocation), as: UTF8.self)
}

/// The reply line decoded as JSON; fails the test when there is none.
private func json(_ reply: [UInt8]?, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(try #require(reply, sourceLocation: sourceLocation)))
}

/// The JSON of an error reply.
private func errorReply(id: JSONValue, _ code: RPCErrorCode, _ message: String) -> JSONValue {
    .object([
        "jsonrpc": .string("2.0"), "id": id,
        "error": .object(["code": .number(Double(code.rawValue)), "message": .string(message)]),
    ])
}

/// The reply decoded as a response carrying a timer.
private func timerResponse(_ reply: [UInt8]?, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> RPCResponse<TimerInfo>
{
    try JSONDecoder().decode(
        RPCResponse<TimerInfo>.self, from: Data(try #require(reply, sourceLocation: sourceLocation)))
}

/// The timer in a successful reply.
private func timerResult(_ reply: [UInt8]?, sourceLocation: SourceLocation = #_sourceLocation) throws -> TimerInfo {
    try #require(try timerResponse(reply, sourceLocation: sourceLocation).result, sourceLocation: sourceLocation)
}

// The methods in the order of RPCMethod (docs/protocol.md lists the same in its -32601 example).
private let methodList =
    "timer.start, timer.stop, timer.pause, timer.resume, timer.status, timer.list, timer.wait, daemon.ping, daemon.reload, daemon.stats"
    + ", timer.subscribe, timer.unsubscribe, timer.extend, timer.restart, timer.beat, timer.rename, timer.skip"
    + ", timer.remove, timer.runs, daemon.metrics, timer.ack, timer.snooze"

@Suite("TimerService JSON-RPC")
struct TimerServiceTests {
    // MARK: Framing and envelope errors

    @Test("Malformed JSON gets -32700 with id null, pinned byte for byte")
    func parseError() throws {
        var harness = ServiceHarness()
        let outcome = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"#)
        #expect(
            try text(outcome.reply)
                == #"{"error":{"code":-32700,"message":"request is not valid JSON: send one JSON-RPC 2.0 object per line"},"id":null,"jsonrpc":"2.0"}"#
        )
        #expect(!outcome.changedState && outcome.wakeups.isEmpty && outcome.event == nil)
    }

    @Test("Bytes that are not UTF-8 get -32700")
    func notUTF8() throws {
        var harness = ServiceHarness()
        let outcome = harness.service.handle(line: [0xFF, 0xFE, 0x7B], context: RequestContext(uid: 1_000, waiter: 1))
        #expect(
            try json(outcome.reply)
                == errorReply(
                    id: .null, .parseError, "request is not valid JSON: send one JSON-RPC 2.0 object per line"))
    }

    @Test("A batch (array) gets -32600 with id null, pinned byte for byte")
    func batch() throws {
        var harness = ServiceHarness()
        let outcome = harness.send(#"[{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}]"#)
        #expect(
            try text(outcome.reply)
                == #"{"error":{"code":-32600,"message":"batch requests are not supported: send one {\"jsonrpc\":\"2.0\",\"id\":…,\"method\":…} per line"},"id":null,"jsonrpc":"2.0"}"#
        )
    }

    @Test("A JSON value that is not an object gets -32600")
    func notAnObject() throws {
        var harness = ServiceHarness()
        #expect(
            try json(harness.send("42").reply)
                == errorReply(
                    id: .null, .invalidRequest,
                    #"a request is a JSON object: send one {"jsonrpc":"2.0","id":…,"method":…} per line"#))
    }

    @Test("Missing or wrong jsonrpc gets -32600 keeping the id")
    func missingVersion() throws {
        var harness = ServiceHarness()
        #expect(
            try json(harness.send(#"{"id":7,"method":"daemon.ping"}"#).reply)
                == errorReply(id: .number(7), .invalidRequest, #""jsonrpc" must be "2.0""#))
        #expect(
            try json(harness.send(#"{"jsonrpc":"1.0","id":"a","method":"daemon.ping"}"#).reply)
                == errorReply(id: .string("a"), .invalidRequest, #""jsonrpc" must be "2.0""#))
    }

    @Test("Missing or non-string method gets -32600 keeping the id")
    func missingMethod() throws {
        var harness = ServiceHarness()
        let expected = errorReply(id: .number(8), .invalidRequest, #""method" must be a string, e.g. "timer.status""#)
        #expect(try json(harness.send(#"{"jsonrpc":"2.0","id":8}"#).reply) == expected)
        #expect(try json(harness.send(#"{"jsonrpc":"2.0","id":8,"method":3}"#).reply) == expected)
    }

    @Test("An unknown method gets -32601 listing the methods")
    func unknownMethod() throws {
        var harness = ServiceHarness()
        #expect(
            try json(harness.send(#"{"jsonrpc":"2.0","id":9,"method":"timer.explode"}"#).reply)
                == errorReply(
                    id: .number(9), .methodNotFound, "unknown method \"timer.explode\"; methods: \(methodList)"))
    }

    @Test("A line over 64 KiB gets -32600 with the too-long message; 64 KiB exactly is read")
    func tooLong() throws {
        var harness = ServiceHarness()
        let huge = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
        let outcome = harness.service.handle(line: huge, context: RequestContext(uid: 1_000, waiter: 1))
        #expect(try json(outcome.reply) == errorReply(id: .null, .invalidRequest, TimerService.tooLongMessage))
        #expect(
            TimerService.tooLongMessage
                == "request line exceeds 65536 bytes; send one JSON object per line, at most 64 KiB")

        let ping = #"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#
        let padded = ping + String(repeating: " ", count: TimerService.maximumLineBytes - ping.utf8.count)
        #expect(padded.utf8.count == 65_536)
        #expect(try json(harness.send(padded).reply).isResult)
        #expect(
            try json(harness.send(padded + " ").reply)
                == errorReply(id: .null, .invalidRequest, TimerService.tooLongMessage))
    }

    @Test("Error codes are the documented numbers")
    func errorCodes() {
        #expect(
            RPCErrorCode.allCases.map(\.rawValue) == [
                -32_700, -32_600, -32_601, -32_602, -32_603, -32_001, -32_002, -32_003, -32_004, -32_005, -32_006,
                -32_007, -32_008,
            ])
        #expect(RPCError(.timerNotFound(.id(3))) == RPCError(.timerNotFound, "no timer with id 3"))
        #expect(RPCError(.quotaExceeded(limit: 2)).code == -32_004)
        #expect(RPCError(.nameInUse("a", id: "1")).code == -32_003)
        #expect(RPCError(.invalidTransition(timer: "timer 1", state: .running, operation: .resume)).code == -32_002)
        #expect(RPCError(.invalidName("")).code == -32_602)
        #expect(RPCError(.groupTooLong(1)).code == -32_602)
    }

    // MARK: Parameters

    struct ParamsCase: Sendable, CustomStringConvertible {
        var request: String
        var message: String
        var description: String { request }
    }

    static let invalidParams: [ParamsCase] = [
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":"abc"}}"#,
            message:
                #""durations" of timer.start must be an array of durations (seconds as numbers, or strings such as "25m"), got string"#
        ),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{}}"#,
            message:
                #"timer.start needs "durations" (an array of durations (seconds as numbers, or strings such as "25m")) or "at" (an ISO 8601 end time)"#
        ),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[true]}}"#,
            message: #"each of "durations" must be a number of seconds or a string such as "25m", got boolean"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"name":5}}"#,
            message: #""name" of timer.start must be a string, got number"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"wake":"yes"}}"#,
            message: #""wake" of timer.start must be a boolean, got string"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"color":"red"}}"#,
            message:
                #"unknown parameter "color" for timer.start; allowed: action, at, durations, every, from, heartbeat, loops, minuteInterval, name, on, overlap, randomizedDelay, ring, skipMissed, sound, timeZone, wake, warn, warnEach"#
        ),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["5x"]}}"#,
            message: CountdownError.invalidDuration("5x").description),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[0]}}"#,
            message: #"duration must be > 0 and ≤ 366 days, got "0""#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["-5m"]}}"#,
            message: #"duration must be > 0 and ≤ 366 days, got "-5m""#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[]}}"#,
            message: "a timer takes 1 to 100 durations, got 0"),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"name":"-a"}}"#,
            message: CountdownError.invalidName("-a").description),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.stop","params":{"timer":true}}"#,
            message: #""timer" of timer.stop must be an id (whole number ≥ 0) or a name (string), got boolean"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.status","params":{"timer":1.5}}"#,
            message: #""timer" of timer.status must be an id (whole number ≥ 0) or a name (string), got number"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.pause","params":{"timer":-1}}"#,
            message: #""timer" of timer.pause must be an id (whole number ≥ 0) or a name (string), got number"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.resume","params":{}}"#,
            message: #"timer.resume needs "timer": an id (number) or a name (string)"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.wait","params":{"timer":1,"timeout":5}}"#,
            message: #"unknown parameter "timeout" for timer.wait; allowed: timer"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.status","params":{"timer":"bad\tname"}}"#,
            message: CountdownError.invalidName("bad\tname").description),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.list","params":{"all":"yes"}}"#,
            message: #""all" of timer.list must be a boolean, got string"#),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.list","params":[true]}"#,
            message: "params of timer.list must be an object (by name), got array"),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"timer.stop","params":"tea"}"#,
            message: "params of timer.stop must be an object (by name), got string"),
        ParamsCase(
            request: #"{"jsonrpc":"2.0","id":1,"method":"daemon.ping","params":{"x":1}}"#,
            message: #"unknown parameter "x" for daemon.ping; allowed: none"#),
    ]

    @Test("Wrong, missing or unknown parameters get -32602 with the exact message", arguments: invalidParams)
    func invalidParameters(_ paramsCase: ParamsCase) throws {
        var harness = ServiceHarness()
        let outcome = harness.send(paramsCase.request)
        #expect(try json(outcome.reply) == errorReply(id: .number(1), .invalidParams, paramsCase.message))
        #expect(!outcome.changedState && outcome.event == nil)
        #expect(harness.service.engine.list(includeEnded: true).isEmpty)
    }

    @Test("Engine errors keep their codes and messages on the wire")
    func engineErrors() throws {
        var harness = ServiceHarness(quota: 1)
        _ = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"name":"tea"}}"#)
        #expect(
            try json(harness.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.resume","params":{"timer":"tea"}}"#).reply)
                == errorReply(
                    id: .number(2), .invalidTransition,
                    #"cannot resume timer 1 ("tea"): it is running; only paused timers can be resumed"#))
        #expect(
            try json(harness.send(#"{"jsonrpc":"2.0","id":3,"method":"timer.status","params":{"timer":9}}"#).reply)
                == errorReply(id: .number(3), .timerNotFound, "no timer with id 9"))
        #expect(
            try json(
                harness.send(#"{"jsonrpc":"2.0","id":4,"method":"timer.start","params":{"durations":[60]}}"#).reply)
                == errorReply(
                    id: .number(4), .quotaExceeded, "too many live timers: the limit is 1 per user; stop some first"))
        #expect(
            try json(
                harness.send(
                    #"{"jsonrpc":"2.0","id":5,"method":"timer.start","params":{"durations":[1],"name":"tea"}}"#
                )
                .reply)
                == errorReply(
                    id: .number(5), .nameInUse,
                    #"a live timer is already named "tea" (id 1); stop it or choose another name"#))
        // Root has no quota.
        let root = harness.send(#"{"jsonrpc":"2.0","id":6,"method":"timer.start","params":{"durations":[60]}}"#, uid: 0)
        #expect(try timerResult(root.reply).id == "2")
    }

    @Test("Another uid's timer is not found; root sees it")
    func ownership() throws {
        var harness = ServiceHarness()
        _ = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60]}}"#, uid: 1_001)
        #expect(
            try json(harness.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.stop","params":{"timer":1}}"#).reply)
                == errorReply(id: .number(2), .timerNotFound, "no timer with id 1"))
        let list = harness.send(#"{"jsonrpc":"2.0","id":3,"method":"timer.list"}"#)
        #expect(try text(list.reply) == #"{"id":3,"jsonrpc":"2.0","result":[]}"#)
        let root = harness.send(#"{"jsonrpc":"2.0","id":4,"method":"timer.stop","params":{"timer":"1"}}"#, uid: 0)
        #expect(try timerResult(root.reply).state == .stopped)
    }

    // MARK: Results

    @Test("timer.start replies with the new timer, pinned byte for byte")
    func startReply() throws {
        var harness = ServiceHarness()
        let outcome = harness.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["1.5s"],"name":"tea"}}"#)
        #expect(
            try text(outcome.reply)
                == #"{"id":1,"jsonrpc":"2.0","result":{"createdAt":"2026-11-29T15:17:33.000Z","duration":1.5,"elapsed":0,"endsAt":"2026-11-29T15:17:34.500Z","id":"1","name":"tea","progress":{"completedUnitCount":0,"fractionCompleted":0,"isCancelled":false,"isFinished":false,"isIndeterminate":false,"isPaused":false,"totalUnitCount":1500},"remaining":1.5,"startedAt":"2026-11-29T15:17:33.000Z","state":"running"}}"#
        )
        #expect(outcome.changedState && outcome.wakeups.isEmpty)
        #expect(outcome.event == #"started timer 1 ("tea"), 1.5s"#)
    }

    @Test("An unnamed group's reply has name null, children and currentChild")
    func startGroupReply() throws {
        var harness = ServiceHarness()
        let outcome = harness.send(
            #"{"jsonrpc":"2.0","id":"g","method":"timer.start","params":{"durations":[60,"30s"],"name":null}}"#)
        let response = try timerResponse(outcome.reply)
        #expect(response.id == .string("g") && response.error == nil)
        let info = try #require(response.result)
        #expect(info.name == nil && info.duration == 90 && info.currentChild == 0)
        #expect(info.children?.map(\.id) == ["1.1", "1.2"])
        let object = try json(outcome.reply)
        #expect(object["result"]?["name"] == .null)
        #expect(outcome.event == "started timer 1, 1m 30s")
    }

    @Test("daemon.ping reports the versions and the pid, pinned byte for byte")
    func ping() throws {
        var harness = ServiceHarness()
        let outcome = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping","params":{}}"#)
        #expect(
            try text(outcome.reply)
                == #"{"id":1,"jsonrpc":"2.0","result":{"pid":4242,"protocolVersion":1,"version":"0.1.0"}}"#)
        #expect(!outcome.changedState && outcome.event == nil)
        let response = try JSONDecoder().decode(RPCResponse<PingResult>.self, from: Data(try #require(outcome.reply)))
        #expect(response.result == PingResult(version: "0.1.0", protocolVersion: 1, pid: 4_242))
        // With a store and host id set they come first and next to last (keys sorted).
        harness.service.storeDescription = "postgresql host=/run/pg"
        harness.service.hostID = "web1"
        let shared = harness.send(#"{"jsonrpc":"2.0","id":2,"method":"daemon.ping"}"#)
        #expect(
            try text(shared.reply)
                == #"{"id":2,"jsonrpc":"2.0","result":{"hostID":"web1","pid":4242,"protocolVersion":1,"store":"postgresql host=/run/pg","version":"0.1.0"}}"#
        )
    }

    @Test("Ids come back as sent: strings, integers, fractions and null")
    func ids() throws {
        var harness = ServiceHarness()
        let cases: [(String, String)] = [
            (#""abc""#, #""abc""#), ("7", "7"), ("7.0", "7"), ("2.5", "2.5"), ("null", "null"), ("-3", "-3"),
        ]
        for (sent, echoed) in cases {
            let reply = try text(harness.send(#"{"jsonrpc":"2.0","id":\#(sent),"method":"daemon.ping"}"#).reply)
            #expect(reply.hasPrefix(#"{"id":\#(echoed),"jsonrpc":"2.0","result":"#), "id \(sent)")
        }
    }

    @Test(
        "changedState is true exactly for start, stop, pause and resume",
        arguments: [
            ("timer.start", #"{"durations":[60]}"#, true),
            ("timer.pause", #"{"timer":1}"#, true),
            ("timer.resume", #"{"timer":1}"#, true),
            ("timer.status", #"{"timer":1}"#, false),
            ("timer.list", #"{"all":true}"#, false),
            ("daemon.ping", "{}", false),
            ("timer.wait", #"{"timer":1}"#, false),
            ("timer.stop", #"{"timer":1}"#, true),
        ])
    func changedState(method: String, params: String, changes: Bool) throws {
        var harness = ServiceHarness()
        let setup = [
            #"{"jsonrpc":"2.0","id":0,"method":"timer.start","params":{"durations":[60]}}"#,
            #"{"jsonrpc":"2.0","id":0,"method":"timer.pause","params":{"timer":1}}"#,
        ]
        for line in setup.prefix(method == "timer.resume" ? 2 : method == "timer.start" ? 0 : 1) {
            _ = harness.send(line)
        }
        let outcome = harness.send(#"{"jsonrpc":"2.0","id":5,"method":"\#(method)","params":\#(params)}"#)
        #expect(outcome.changedState == changes)
        if method != "timer.wait" {
            #expect(try json(outcome.reply)["error"] == nil)
        }
    }

    @Test("Events name the timer for each change")
    func events() {
        var harness = ServiceHarness()
        let start = harness.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":["25m","5m"],"name":"tea"}}"#)
        #expect(start.event == #"started timer 1 ("tea"), 25m 5m"#)
        #expect(
            harness.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.pause","params":{"timer":1}}"#).event
                == #"paused timer 1 ("tea")"#)
        #expect(
            harness.send(#"{"jsonrpc":"2.0","id":3,"method":"timer.resume","params":{"timer":1}}"#).event
                == #"resumed timer 1 ("tea")"#)
        #expect(
            harness.send(#"{"jsonrpc":"2.0","id":4,"method":"timer.stop","params":{"timer":1}}"#).event
                == #"stopped timer 1 ("tea")"#)
        #expect(harness.send(#"{"jsonrpc":"2.0","id":5,"method":"timer.status","params":{"timer":1}}"#).event == nil)
    }

    @Test("timer.list lists live timers; with all, ended ones too")
    func list() throws {
        var harness = ServiceHarness()
        _ = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60]}}"#)
        _ = harness.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[60]}}"#)
        _ = harness.send(#"{"jsonrpc":"2.0","id":3,"method":"timer.stop","params":{"timer":1}}"#)
        func ids(_ outcome: ServiceOutcome) throws -> [String] {
            let response = try JSONDecoder().decode(
                RPCResponse<[TimerInfo]>.self, from: Data(try #require(outcome.reply)))
            return try #require(response.result).map(\.id)
        }
        #expect(try ids(harness.send(#"{"jsonrpc":"2.0","id":4,"method":"timer.list"}"#)) == ["2"])
        #expect(
            try ids(harness.send(#"{"jsonrpc":"2.0","id":5,"method":"timer.list","params":{"all":false}}"#)) == ["2"])
        #expect(
            try ids(harness.send(#"{"jsonrpc":"2.0","id":6,"method":"timer.list","params":{"all":true}}"#)) == [
                "1", "2",
            ])
    }

    // MARK: Notifications

    @Test("A notification (no id) gets no reply but still acts")
    func notification() throws {
        var harness = ServiceHarness()
        let start = harness.send(#"{"jsonrpc":"2.0","method":"timer.start","params":{"durations":[60],"name":"tea"}}"#)
        #expect(start.reply == nil && start.changedState)
        #expect(try harness.service.engine.status(.name("tea")).state == .running)
        let pause = harness.send(#"{"jsonrpc":"2.0","method":"timer.pause","params":{"timer":"tea"}}"#)
        #expect(pause.reply == nil && pause.changedState)
        #expect(try harness.service.engine.status(.id(1)).state == .paused)
        let failing = harness.send(#"{"jsonrpc":"2.0","method":"timer.pause","params":{"timer":"tea"}}"#)
        #expect(failing.reply == nil && !failing.changedState)
        let badParams = harness.send(#"{"jsonrpc":"2.0","method":"timer.stop","params":{"timer":true}}"#)
        #expect(badParams.reply == nil)
        #expect(harness.send(#"{"jsonrpc":"2.0","method":"daemon.ping"}"#).reply == nil)
    }

    @Test("A notification with an unknown method gets no reply (JSON-RPC 2.0 §4.1)")
    func notificationUnknownMethod() {
        var harness = ServiceHarness()
        #expect(harness.send(#"{"jsonrpc":"2.0","method":"timer.explode"}"#).reply == nil)
    }

    // MARK: Waiting

    @Test("timer.wait on an ended timer answers at once")
    func waitEnded() throws {
        var harness = ServiceHarness()
        _ = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60]}}"#)
        _ = harness.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.stop","params":{"timer":1}}"#)
        let outcome = harness.send(#"{"jsonrpc":"2.0","id":3,"method":"timer.wait","params":{"timer":1}}"#, waiter: 30)
        let response = try timerResponse(outcome.reply)
        #expect(response.id == .number(3) && response.result?.state == .stopped)
        #expect(!harness.service.isWaiting(30))
    }

    @Test("timer.wait defers; fireDueTimers brings the reply with the original request id")
    func waitUntilFinished() throws {
        var harness = ServiceHarness()
        _ = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[10],"name":"tea"}}"#)
        let wait = harness.send(
            #"{"jsonrpc":"2.0","id":"w-1","method":"timer.wait","params":{"timer":"tea"}}"#, waiter: 77)
        #expect(wait.reply == nil && !wait.changedState && wait.wakeups.isEmpty)
        #expect(harness.service.isWaiting(77))

        harness.clock.advance(byNanoseconds: 9_999_999_999)
        #expect(harness.service.fireDueTimers().wakeups.isEmpty)
        harness.clock.advance(byNanoseconds: 1)
        let fired = harness.service.fireDueTimers()
        #expect(fired.endings.map(\.timer.id) == [1])
        #expect(fired.wakeups.map(\.waiter) == [77])
        let reply = try timerResponse(fired.wakeups.first?.reply)
        #expect(reply.id == .string("w-1") && reply.error == nil)
        let info = try #require(reply.result)
        #expect(info.state == .finished && info.remaining == 0 && info.endedAt == "2026-11-29T15:17:43.000Z")
        #expect(!harness.service.isWaiting(77))
        #expect(harness.service.fireDueTimers().wakeups.isEmpty)
    }

    @Test("timer.stop wakes the waiters of the stopped timer with their own request ids")
    func waitUntilStopped() throws {
        var harness = ServiceHarness()
        _ = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60]}}"#)
        _ = harness.send(#"{"jsonrpc":"2.0","id":21,"method":"timer.wait","params":{"timer":1}}"#, waiter: 5)
        _ = harness.send(#"{"jsonrpc":"2.0","id":22,"method":"timer.wait","params":{"timer":"1"}}"#, waiter: 6)
        harness.clock.advance(byNanoseconds: 15 * 1_000_000_000)
        let stop = harness.send(#"{"jsonrpc":"2.0","id":3,"method":"timer.stop","params":{"timer":1}}"#, waiter: 7)
        #expect(stop.changedState)
        let stopped = try timerResult(stop.reply)
        #expect(stopped.state == .stopped && stopped.remaining == 45)
        #expect(stop.wakeups.map(\.waiter) == [5, 6])
        #expect(try stop.wakeups.map { try timerResponse($0.reply).id } == [.number(21), .number(22)])
        #expect(try stop.wakeups.map { try timerResult($0.reply) } == [stopped, stopped])
        #expect(
            try text(stop.wakeups.first?.reply)
                == #"{"id":21,"jsonrpc":"2.0","result":"#
                + String(decoding: try JSONEncoder.sorted.encode(stopped), as: UTF8.self)
                + "}")
    }

    @Test("A stop sent as a notification still wakes the waiters")
    func stopNotificationWakes() throws {
        var harness = ServiceHarness()
        _ = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60]}}"#)
        _ = harness.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.wait","params":{"timer":1}}"#, waiter: 5)
        let stop = harness.send(#"{"jsonrpc":"2.0","method":"timer.stop","params":{"timer":1}}"#)
        #expect(stop.reply == nil && stop.changedState)
        #expect(stop.wakeups.map(\.waiter) == [5])
    }

    @Test("A wait sent as a notification registers nothing; cancelWait forgets a pending wait")
    func waitNotificationAndCancel() throws {
        var harness = ServiceHarness()
        _ = harness.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[10]}}"#)
        let note = harness.send(#"{"jsonrpc":"2.0","method":"timer.wait","params":{"timer":1}}"#, waiter: 4)
        #expect(note.reply == nil && !harness.service.isWaiting(4))
        _ = harness.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.wait","params":{"timer":1}}"#, waiter: 5)
        #expect(harness.service.isWaiting(5))
        harness.service.cancelWait(5)
        #expect(!harness.service.isWaiting(5))
        harness.clock.advance(byNanoseconds: 10 * 1_000_000_000)
        let fired = harness.service.fireDueTimers()
        #expect(fired.endings.count == 1 && fired.wakeups.isEmpty)
    }
}

extension JSONValue {
    /// The member `key` of an object; `nil` for a missing key or a value that is not an object.
    fileprivate subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// Whether this is a successful JSON-RPC reply.
    fileprivate var isResult: Bool { self["result"] != nil && self["error"] == nil }
}

extension JSONEncoder {
    /// The service's encoding: sorted keys, slashes unescaped.
    fileprivate static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// `"wake"` of `timer.start`: the mark in the reply, and the refusal of a daemon that cannot wake.
@Suite("TimerService wake mark")
struct TimerServiceWakeTests {
    @Test("wake: true starts a marked timer whose reply ends with \"wake\":true; false and null start an unmarked one")
    func marked() throws {
        var harness = ServiceHarness()
        let marked = harness.send(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[600],"wake":true}}"#)
        // The sorted members end with state, then wake (TimerInfo+JSONWriting.swift).
        #expect(try text(marked.reply).hasSuffix(#""state":"running","wake":true}}"#))
        #expect(harness.service.engine.snapshot(ofTimer: 1)?.wake == true)
        for value in ["false", "null"] {
            let plain = harness.send(
                #"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[600],"wake":"# + value + "}}")
            #expect(try !text(plain.reply).contains("wake"), "\(value)")
        }
    }

    @Test("a service with a wake refusal answers -32602 with its text and starts nothing")
    func refused() throws {
        var harness = ServiceHarness()
        let reason = "this timerd cannot wake the machine: it lacks CAP_WAKE_ALARM"
        harness.service.wakeRefusal = reason
        let outcome = harness.send(
            #"{"jsonrpc":"2.0","id":3,"method":"timer.start","params":{"at":"2026-11-29T16:00:00Z","wake":true}}"#)
        #expect(try json(outcome.reply) == errorReply(id: .number(3), .invalidParams, reason))
        #expect(harness.service.engine.liveCount == 0)
        // Without wake the same daemon starts timers.
        let plain = harness.send(#"{"jsonrpc":"2.0","id":4,"method":"timer.start","params":{"durations":[60]}}"#)
        #expect(try timerResult(plain.reply).state == .running)
    }
}
