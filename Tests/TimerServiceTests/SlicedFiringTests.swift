import Countdown
import Foundation
import TestSupport
import Testing
import TimerProtocol

@testable import TimerService

/// Overdue timers at a resume are finished in bounded slices, and requests are answered
/// between the slices (timerd serves one request or one timer expiry per step of its loop).
@Suite("TimerService finishes overdue timers in slices and answers between them")
struct SlicedFiringTests {
    @Test("2,500 overdue timers: each ping is answered after one slice of at most 1,000")
    func pingBetweenSlices() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), quota: nil, pid: 4_242)
        #expect(service.maximumFiringsPerCall == 1_000)
        for _ in 0..<2_500 { _ = try service.engine.start(durations: [60]) }
        clock.suspend(forNanoseconds: 3_600_000_000_000)
        var finishedPerPing: [Int] = []
        for waiter in 1...4 {
            let ping = #"{"jsonrpc":"2.0","id":\#(waiter),"method":"daemon.ping"}"#
            let outcome = service.handle(
                line: Array(ping.utf8), context: RequestContext(uid: 1_000, waiter: WaiterID(waiter)))
            let reply = String(decoding: try #require(outcome.reply), as: UTF8.self)
            #expect(reply.contains(#""id":\#(waiter)"#) && reply.contains(#""result""#))
            finishedPerPing.append(outcome.endings.count)
        }
        #expect(finishedPerPing == [1_000, 1_000, 500, 0])
        #expect(service.engine.liveCount == 0 && !service.engine.hasDueTimers)
    }
}
