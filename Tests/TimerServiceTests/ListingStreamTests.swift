import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

@Suite("Long timer.list replies are written a part at a time (docs/fairness.md)")
struct ListingStreamTests {
    /// A service with `count` running timers of 60 s, on a manual clock at 2026-11-29T15:17:33Z.
    private func makeService(timers count: Int) throws -> TimerService {
        let clock = ManualClock(
            boot: BootInstant(nanoseconds: 1_000_000_000), wall: Date(timeIntervalSince1970: 1_795_965_453))
        var service = TimerService(engine: TimerEngine(clock: clock), quota: nil, pid: 1)
        for _ in 0..<count { _ = try service.engine.start(durations: [60], owner: 1_000) }
        return service
    }

    private func list(_ service: inout TimerService, uid: UInt32 = 1_000) -> ServiceOutcome {
        service.handle(
            line: Array(#"{"jsonrpc":"2.0","id":9,"method":"timer.list","params":{"all":true}}"#.utf8),
            context: RequestContext(uid: uid, waiter: 1))
    }

    /// The parts put together are byte for byte the reply a one-shot listing gives (the expected
    /// line is built with the service's own one-shot writer, `json(_:)` and `resultLine`).
    @Test("300 timers: streamed in parts, equal to the one-shot reply")
    func partsMakeTheReply() throws {
        var service = try makeService(timers: 300)
        let outcome = list(&service)
        #expect(outcome.reply == nil)
        var listing = try #require(outcome.listing)
        #expect(listing.remaining == 300)
        var bytes: [UInt8] = []
        var parts = 0
        while !listing.isFinished {
            let before = bytes.count
            service.writeListing(&listing, into: &bytes, upTo: 4_096)
            parts += 1
            // A part stops after the timer that reaches the budget: under 4 KiB + one timer.
            #expect(bytes.count - before < 4_096 + 1_024)
        }
        let expected =
            TimerService.resultLine(id: .number(9), resultJSON: try service.json(service.engine.list())) + [10]
        #expect(bytes == expected)
        #expect(parts > 10)
    }

    /// 256 timers (``TimerService/streamingThreshold``) are answered at once as before; one more
    /// is streamed.
    @Test("At most 256 timers are answered in one line")
    func threshold() throws {
        var service = try makeService(timers: 256)
        var outcome = list(&service)
        #expect(outcome.listing == nil && outcome.reply != nil)
        _ = try service.engine.start(durations: [60], owner: 1_000)
        outcome = list(&service)
        #expect(outcome.listing != nil && outcome.reply == nil)
    }

    /// A timer dropped from the history between two parts is left out; the line stays valid JSON.
    @Test("A timer dropped while the listing is written is left out")
    func droppedTimer() throws {
        var service = try makeService(timers: 300)
        service.engine.historyLimit = 0
        var listing = try #require(list(&service).listing)
        var bytes: [UInt8] = []
        service.writeListing(&listing, into: &bytes, upTo: 1)  // the opening and timer 1
        _ = try service.engine.stop(.id(2))  // ended with history_limit 0: dropped at once
        while !listing.isFinished { service.writeListing(&listing, into: &bytes, upTo: 1 << 20) }
        let reply = try JSONDecoder().decode(RPCResponse<[TimerInfo]>.self, from: Data(bytes))
        #expect(reply.result?.count == 299)
        #expect(reply.result?.map(\.id).prefix(3) == ["1", "3", "4"])
    }
}

/// Just enough of a JSON-RPC reply to read a result.
private struct RPCResponse<Result: Decodable>: Decodable {
    var result: Result?
}
