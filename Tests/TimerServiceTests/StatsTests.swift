import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol
import TimerService

@Suite("daemon.stats and the lateness ring")
struct StatsTests {
    @Test("the ring keeps the newest samples and gives nearest-rank percentiles")
    func ring() {
        var ring = LatenessRecorder(capacity: 100)
        #expect(ring.summary == nil)
        for micro in 1...250 { ring.record(nanoseconds: Int64(micro) * 1_000) }
        ring.record(nanoseconds: -5)  // early counts as 0, replacing 151
        #expect(ring.totalCount == 251)
        let summary = ring.summary
        #expect(summary?.count == 100)
        #expect(summary?.max == 250)
        #expect(summary?.p50 == 200)  // samples 0 and 152…250: the 50th is 200
        #expect(summary?.p99 == 249)
    }

    @Test("liveCount follows every transition; firings are timed against their deadlines")
    func counts() throws {
        let clock = ManualClock(
            boot: BootInstant(nanoseconds: 1_000_000_000_000),
            wall: Date(timeIntervalSince1970: 1_795_942_800))  // 2026-11-29T09:00:00Z
        var service = TimerService(engine: TimerEngine(clock: clock, historyLimit: 2), quota: nil, pid: 1)
        func send(_ line: String) -> String {
            let outcome = service.handle(line: Array(line.utf8), context: RequestContext(uid: 0, waiter: 1))
            return String(decoding: outcome.reply ?? [], as: UTF8.self)
        }
        for seconds in [10, 20, 30, 40] {
            _ = send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[\#(seconds)]}}"#)
        }
        _ = send(#"{"jsonrpc":"2.0","id":2,"method":"timer.pause","params":{"timer":4}}"#)
        _ = send(#"{"jsonrpc":"2.0","id":3,"method":"timer.stop","params":{"timer":3}}"#)
        #expect(service.engine.liveCount == 3)
        clock.advance(bySeconds: 25)
        _ = service.fireDueTimers()
        #expect(service.engine.liveCount == 1)
        #expect(service.engine.liveCount == service.engine.list().count)
        #expect(
            send(#"{"jsonrpc":"2.0","id":4,"method":"daemon.stats"}"#)
                == #"{"id":4,"jsonrpc":"2.0","result":{"firedTimers":2,"latenessMicroseconds":{"count":2,"max":15000000,"p50":5000000,"p99":15000000},"liveTimers":1,"runningTimers":0}}"#
        )
        let restored = service.engine.snapshot
        var engine = TimerEngine(clock: clock)
        _ = engine.restore(restored, sameBoot: true)
        #expect(engine.liveCount == 1)
    }
}
