import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol
import TimerService

/// `timer.runs` on a real ``TimerService``: the output kept per run is bounded (65,536 bytes per
/// run, 16 runs per timer, as docs/actions.md says) and matched to the engine's run records.
@Suite("timer.runs: kept output and its bounds")
struct ActionRunsTests {
    private static func service() -> (TimerService, ManualClock) {
        let clock = ManualClock(
            boot: BootInstant(nanoseconds: 1_000_000_000_000),
            wall: Date(timeIntervalSince1970: 1_795_942_800))  // 2026-11-29T09:00:00Z
        var service = TimerService(engine: TimerEngine(clock: clock), quota: 100, pid: 1)
        service.actionUID = 1_000
        return (service, clock)
    }

    private static func call(_ service: inout TimerService, _ line: String, uid: UInt32 = 1_000) -> String {
        let outcome = service.handle(line: Array(line.utf8), context: RequestContext(uid: uid, waiter: 1))
        return outcome.reply.map { String(decoding: $0, as: UTF8.self) } ?? "(no reply)"
    }

    private static let start =
        #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60],"name":"tea","action":{"exec":"yes","cwd":"/"}}}"#
    private static let runs = #"{"jsonrpc":"2.0","id":2,"method":"timer.runs","params":{"timer":"tea"}}"#

    @Test("output over 65,536 bytes is cut there and marked outputTruncated")
    func truncated() throws {
        var (service, clock) = Self.service()
        _ = Self.call(&service, Self.start)
        clock.advance(bySeconds: 60)
        _ = service.fireDueTimers()
        // 70,000 bytes of "y\n" (as `yes` writes), 4,464 more than the cap.
        let output = Array(repeating: Array("y\n".utf8), count: 35_000).flatMap { $0 }
        let kept = service.keepActionOutput(timer: 1, kind: .exec, output: output, truncated: false)
        #expect(kept)
        let recorded = service.recordActionOutcome(timer: 1, kind: .exec, outcome: .signalled(15)).recorded
        #expect(recorded)
        let reply = try #require(JSONValue(parsing: Array(Self.call(&service, Self.runs).utf8)))
        guard case .object(let envelope) = reply, case .object(let result) = envelope["result"],
            case .array(let list) = result["runs"], case .object(let run) = list.first
        else {
            Issue.record("unexpected reply \(reply)")
            return
        }
        #expect(list.count == 1)
        #expect(run["output"] == .string(String(repeating: "y\n", count: 32_768)))  // 65,536 bytes
        #expect(run["outputTruncated"] == .bool(true))
        #expect(run["exitStatus"] == .number(143))  // 128 + SIGTERM
        #expect(run["outcome"] == .string("signalled"))
    }

    @Test("a run without a running record keeps nothing; another uid gets no such timer")
    func noRunAndOtherUser() {
        var (service, _) = Self.service()
        _ = Self.call(&service, Self.start)
        // Timer 1 has not finished: no run is in progress, so there is nothing to attach output to.
        let kept = service.keepActionOutput(timer: 1, kind: .exec, output: Array("x".utf8), truncated: false)
        #expect(!kept)
        let own = Self.call(&service, Self.runs)
        #expect(own == #"{"id":2,"jsonrpc":"2.0","result":{"id":"1","name":"tea","runs":[]}}"#)
        let other = Self.call(&service, Self.runs, uid: 1_001)
        #expect(other == #"{"error":{"code":-32001,"message":"no timer named \"tea\""},"id":2,"jsonrpc":"2.0"}"#)
    }
}
