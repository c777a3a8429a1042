import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel

@testable import TimerService

/// A request's cost does not grow with other users' timers. Counted with a
/// ``RecordProbe`` (reads, writes and scanned slots of the engine's record table), not timed.
@Suite("Requests cost the same whatever other users hold")
struct FlatCostTests {
    /// With 100,000 timers of uid 1000, a `timer.start` by uid 2000 under the default quota
    /// (10,000 per uid) visits exactly one record, its own (the quota is a per-owner counter);
    /// a scan would visit all 100,000. Its `timer.list` reads its own record only.
    @Test("A non-root start and list with 100,000 timers of another user visit 1 record each")
    func nonRootStartVisitsOneRecord() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var engine = TimerEngine(clock: clock)
        for _ in 0..<100_000 { _ = try engine.start(durations: [3_600], owner: 1_000) }
        var service = TimerService(engine: engine, quota: 10_000, pid: 1)
        let probe = RecordProbe()
        service.engine.recordProbe = probe
        let context = RequestContext(uid: 2_000, waiter: 1, connection: 1)

        let start = #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[60]}}"#
        let started = String(
            decoding: service.handle(line: Array(start.utf8), context: context).reply ?? [], as: UTF8.self)
        #expect(started.contains(#""id":"100001""#))
        #expect(probe.count == 1)

        probe.reset()
        let list = #"{"jsonrpc":"2.0","id":2,"method":"timer.list"}"#
        let listed = String(
            decoding: service.handle(line: Array(list.utf8), context: context).reply ?? [], as: UTF8.self)
        #expect(listed.contains(#""id":"100001""#))
        // listIDs (1 read) decides whether to stream, then list (1 read) builds the reply.
        #expect(probe.count == 2)
    }
}
