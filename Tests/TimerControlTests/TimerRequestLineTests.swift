import Foundation
import Testing
import TimerClient
import TimerProtocol

// TimerClient's one request writer: the exact line of every request, and the errors of connecting
// where no timerd is. The params are those docs/protocol.md gives for each method, keys sorted.

@Suite("TimerClient: request lines and connection errors")
struct TimerRequestLineTests {
    @Test(
        "Each request's line: the envelope, the method, the params with keys sorted and absent options left out",
        arguments: [
            (
                TimerRequest.start(durations: [1500, 0.5], name: "tea", action: nil, isHeartbeat: false),
                #""method":"timer.start","params":{"durations":[1500,0.5],"name":"tea"}"#
            ),
            (
                .start(durations: [1500, 300], name: nil, action: nil, isHeartbeat: false, loops: 4),
                #""method":"timer.start","params":{"durations":[1500,300],"loops":4}"#
            ),
            (
                .startAt(at: "14:30", timeZone: "Europe/Paris", minuteInterval: 5, name: nil, action: nil),
                #""method":"timer.start","params":{"at":"14:30","minuteInterval":5,"timeZone":"Europe/Paris"}"#
            ),
            (
                .start(
                    durations: [120], name: "eggs", action: nil, isHeartbeat: false,
                    alarm: AlarmRequest(rings: true, warning: 30)),
                #""method":"timer.start","params":{"durations":[120],"name":"eggs","ring":true,"warn":30}"#
            ),
            (
                .startAt(
                    at: "07:00", timeZone: nil, minuteInterval: nil, name: nil, action: nil, wake: true,
                    alarm: AlarmRequest(rings: false, warning: 300)),
                #""method":"timer.start","params":{"at":"07:00","wake":true,"warn":300}"#
            ),
            (
                .startRecurring(RecurringStart(on: "Mon..Fri 07:00", timeZone: "UTC")),
                #""method":"timer.start","params":{"on":"Mon..Fri 07:00","timeZone":"UTC"}"#
            ),
            (.stop("3"), #""method":"timer.stop","params":{"timer":"3"}"#),
            (.pause("tea"), #""method":"timer.pause","params":{"timer":"tea"}"#),
            (.resume("tea"), #""method":"timer.resume","params":{"timer":"tea"}"#),
            (.status("3.2"), #""method":"timer.status","params":{"timer":"3.2"}"#),
            (.list(includingEnded: true), #""method":"timer.list","params":{"all":true}"#),
            (.wait("tea"), #""method":"timer.wait","params":{"timer":"tea"}"#),
            (.extend("tea", seconds: -300), #""method":"timer.extend","params":{"by":-300,"timer":"tea"}"#),
            (.restart("tea"), #""method":"timer.restart","params":{"timer":"tea"}"#),
            (.beat("backup"), #""method":"timer.beat","params":{"timer":"backup"}"#),
            (.rename("tea", to: "green"), #""method":"timer.rename","params":{"name":"green","timer":"tea"}"#),
            (.skip("steps"), #""method":"timer.skip","params":{"timer":"steps"}"#),
            (.remove("tea"), #""method":"timer.remove","params":{"timer":"tea"}"#),
            (.remove(nil), #""method":"timer.remove","params":{"allEnded":true}"#),
            (.runs("eggs"), #""method":"timer.runs","params":{"timer":"eggs"}"#),
            (.ack("eggs"), #""method":"timer.ack","params":{"timer":"eggs"}"#),
            (.snooze("eggs", seconds: nil), #""method":"timer.snooze","params":{"timer":"eggs"}"#),
            (.snooze("eggs", seconds: 540), #""method":"timer.snooze","params":{"for":540,"timer":"eggs"}"#),
            (
                .subscribe(timer: "tea", kinds: ["finished"], afterSeq: 0),
                #""method":"timer.subscribe","params":{"afterSeq":0,"events":["finished"],"timer":"tea"}"#
            ),
            (.subscribe(timer: nil, kinds: nil, afterSeq: nil), #""method":"timer.subscribe","params":{}"#),
            (.unsubscribe(22), #""method":"timer.unsubscribe","params":{"subscription":22}"#),
            (.ping, #""method":"daemon.ping","params":{}"#),
            (.reload, #""method":"daemon.reload","params":{}"#),
            (.stats, #""method":"daemon.stats","params":{}"#),
            (.metrics, #""method":"daemon.metrics","params":{}"#),
        ])
    func line(request: TimerRequest, expected: String) throws {
        let line = String(decoding: try request.line(id: 7), as: UTF8.self)
        #expect(line == #"{"jsonrpc":"2.0","id":7,"# + expected + "}\n")
        // One whole JSON value on one line, which the product's reader reads back.
        #expect(JSONValue(parsing: Array(line.utf8.dropLast())) != nil)
    }

    @Test("A name with quotes and control characters is escaped (RFC 8259 §7)")
    func escaping() throws {
        let line = try TimerRequest.rename("a", to: "say \"hi\"\n\u{1}").line(id: 1)
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":1,"method":"timer.rename","params":{"name":"say \"hi\"\n\u0001","timer":"a"}}"#
                + "\n")
    }

    @Test("A duration that is not finite is refused before anything is sent")
    func nonFinite() {
        #expect(throws: TimerClientError.invalidRequest("a number in the params of timer.extend is not finite")) {
            try TimerRequest.extend("tea", seconds: .infinity).line(id: 1)
        }
    }

    @Test("Connecting where nothing listens, or to a directory, names the path and what is there")
    func connectErrors() async throws {
        let directory = NSTemporaryDirectory() + "timerclient-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = directory + "/timerd.sock"
        // TimerSystem's connect error text: "connect PATH: No such file or directory" (strerror of ENOENT).
        await #expect(
            throws: TimerClientError.notRunning(
                path: missing, reason: "connect \(missing): No such file or directory")
        ) {
            _ = try await TimerClient.connect(path: missing)
        }
        await #expect(throws: TimerClientError.notASocket(path: directory, kind: "a directory")) {
            _ = try await TimerClient.connect(path: directory)
        }
        let refusal = TimerClientError.daemon(RPCError(.timerNotFound, "no timer \"tea\""))
        #expect(refusal.code == -32001 && refusal.message == "no timer \"tea\"")
        #expect(TimerClientError.unavailable("gone").code == nil)
    }
}
