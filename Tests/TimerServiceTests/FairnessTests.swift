import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// A service on a manual clock at boot 1 s, 2026-11-29T15:17:33Z, with the default limits.
private func makeService() -> (service: TimerService, clock: ManualClock) {
    let clock = ManualClock(
        boot: BootInstant(nanoseconds: 1_000_000_000), wall: Date(timeIntervalSince1970: 1_795_965_453))
    return (TimerService(engine: TimerEngine(clock: clock), pid: 1), clock)
}

extension TimerService {
    /// Sends `line` as `uid` on `connection` under `waiter`; returns the reply text ("" for none).
    fileprivate mutating func send(_ line: String, uid: UInt32, waiter: WaiterID = 1, connection: UInt64 = 0)
        -> String
    {
        let context = RequestContext(uid: uid, waiter: waiter, connection: connection)
        return String(decoding: handle(line: Array(line.utf8), context: context).reply ?? [], as: UTF8.self)
    }
}

@Suite("One user cannot take the daemon from the others (docs/fairness.md)")
struct FairnessTests {
    /// Waits are bounded. The default limit per connection is 1,024
    /// (``WaitLimits/init(perConnection:perUser:)``, docs/fairness.md): the 1,025th is refused
    /// with -32004 and the others stay pending.
    @Test("Pending waits are bounded per connection (1,024 by default)")
    func waitsPerConnection() {
        var (service, _) = makeService()
        _ = service.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[600]}}"#, uid: 1_000)
        let wait = #"{"jsonrpc":"2.0","id":7,"method":"timer.wait","params":{"timer":1}}"#
        for waiter: WaiterID in 1...1_024 { #expect(service.send(wait, uid: 1_000, waiter: waiter) == "") }
        #expect(
            service.send(wait, uid: 1_000, waiter: 1_025)
                == #"{"error":{"code":-32004,"message":"this connection has 1024 pending waits, the limit per connection; wait for some to end or use another connection"},"id":7,"jsonrpc":"2.0"}"#
        )
        #expect(service.subscriptions.count == 1_024)
        // A second connection of the same user may still wait.
        #expect(service.send(wait, uid: 1_000, waiter: 2_000, connection: 1) == "")
        // Cancelling one (its client went away) makes room on the first connection again.
        service.cancelWait(1)
        #expect(service.send(wait, uid: 1_000, waiter: 2_001) == "")
        #expect(service.pendingWaitCount(uid: 1_000) == 1_025)
    }

    /// The per-user limit (4,096 by default, set to 3 here) spans connections; another user and
    /// root are not affected by it.
    @Test("Pending waits are bounded per user across connections")
    func waitsPerUser() {
        var (service, _) = makeService()
        service.waitLimits = WaitLimits(perConnection: 2, perUser: 3)
        _ = service.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[600]}}"#, uid: 1_000)
        _ = service.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[600]}}"#, uid: 1_001)
        let waitA = #"{"jsonrpc":"2.0","id":"a","method":"timer.wait","params":{"timer":1}}"#
        #expect(service.send(waitA, uid: 1_000, waiter: 1, connection: 1) == "")
        #expect(service.send(waitA, uid: 1_000, waiter: 2, connection: 1) == "")
        #expect(service.send(waitA, uid: 1_000, waiter: 3, connection: 2) == "")
        #expect(
            service.send(waitA, uid: 1_000, waiter: 4, connection: 3)
                == #"{"error":{"code":-32004,"message":"uid 1000 has 3 pending waits, the limit per user; wait for some to end first"},"id":"a","jsonrpc":"2.0"}"#
        )
        let waitB = #"{"jsonrpc":"2.0","id":"b","method":"timer.wait","params":{"timer":2}}"#
        #expect(service.send(waitB, uid: 1_001, waiter: 5, connection: 4) == "")
        // Root is bounded per connection only.
        for waiter: WaiterID in 6...7 { #expect(service.send(waitA, uid: 0, waiter: waiter, connection: 5) == "") }
        #expect(service.send(waitA, uid: 0, waiter: 8, connection: 6) == "")
        // The timer's end answers every wait and frees the counts.
        let stop = service.handle(
            line: Array(#"{"jsonrpc":"2.0","id":3,"method":"timer.stop","params":{"timer":1}}"#.utf8),
            context: RequestContext(uid: 1_000, waiter: 99, connection: 1))
        #expect(stop.wakeups.map(\.waiter) == [1, 2, 3, 6, 7, 8])
        #expect(service.pendingWaitCount(uid: 1_000) == 0)
    }

    /// `daemon.stats` must not count every user's timers for anyone. A non-root caller
    /// gets its own figures and no lateness samples (they mix every user's firings); root gets
    /// the daemon's. Expected values: user 1000 has timers 1 (finished after 10 s) and 2 (paused),
    /// user 1001 has 3 and 4 (running); the clock moved 10 s, the loop finished timer 1 on time.
    @Test("daemon.stats tells a non-root caller only about its own timers")
    func statsPerCaller() {
        var (service, clock) = makeService()
        let start = { (seconds: Int) in
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[\#(seconds)]}}"#
        }
        _ = service.send(start(10), uid: 1_000)
        _ = service.send(start(60), uid: 1_000)
        _ = service.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.pause","params":{"timer":2}}"#, uid: 1_000)
        _ = service.send(start(60), uid: 1_001)
        _ = service.send(start(90), uid: 1_001)
        clock.advance(bySeconds: 10)
        _ = service.fireDueTimers()
        let stats = #"{"jsonrpc":"2.0","id":4,"method":"daemon.stats"}"#
        #expect(
            service.send(stats, uid: 1_000)
                == #"{"id":4,"jsonrpc":"2.0","result":{"firedTimers":1,"liveTimers":1,"runningTimers":0}}"#)
        #expect(
            service.send(stats, uid: 1_001)
                == #"{"id":4,"jsonrpc":"2.0","result":{"firedTimers":0,"liveTimers":2,"runningTimers":2}}"#)
        #expect(
            service.send(stats, uid: 0)
                == #"{"id":4,"jsonrpc":"2.0","result":{"catchUpTimers":0,"firedTimers":1,"latenessMicroseconds":{"count":1,"max":0,"p50":0,"p99":0},"liveTimers":3,"runningTimers":2}}"#
        )
        // The daemon's own uid (the owner of a user daemon) gets the daemon's figures, as root does.
        service.daemonUID = 1_001
        #expect(
            service.send(stats, uid: 1_001)
                == #"{"id":4,"jsonrpc":"2.0","result":{"catchUpTimers":0,"firedTimers":1,"latenessMicroseconds":{"count":1,"max":0,"p50":0,"p99":0},"liveTimers":3,"runningTimers":2}}"#
        )
    }
}
