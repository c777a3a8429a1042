import Countdown
import Foundation
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// A service on a manual clock at boot 1 s, 2026-11-29T15:17:33Z.
private func makeService() -> (service: TimerService, clock: ManualClock) {
    let clock = ManualClock(
        boot: BootInstant(nanoseconds: 1_000_000_000), wall: Date(timeIntervalSince1970: 1_795_965_453))
    return (TimerService(engine: TimerEngine(clock: clock), pid: 1), clock)
}

extension TimerService {
    /// Sends `line` as root under `waiter`.
    fileprivate mutating func send(_ line: String, waiter: WaiterID = 1) -> ServiceOutcome {
        handle(line: Array(line.utf8), context: RequestContext(uid: 0, waiter: waiter))
    }

    /// Sends `timer.wait` for timer `id` with request id 100 + `waiter`.
    fileprivate mutating func wait(_ id: Int, waiter: WaiterID) -> ServiceOutcome {
        send(
            #"{"jsonrpc":"2.0","id":\#(100 + waiter),"method":"timer.wait","params":{"timer":\#(id)}}"#, waiter: waiter)
    }
}

// These were the engine's waiter tests; a wait is now a one-timer subscription in the service.
@Suite("timer.wait as a subscription")
struct WaitSubscriptionTests {
    @Test("wait answers at once for a timer that already ended, and subscribes nothing")
    func waitEnded() {
        var (service, _) = makeService()
        _ = service.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[10]}}"#)
        _ = service.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.stop","params":{"timer":1}}"#)
        #expect(service.wait(1, waiter: 7).reply != nil)
        #expect(!service.isWaiting(7) && service.subscriptions.count == 0)
    }

    @Test("Waits on a live timer are delivered, in order, when it finishes; others keep waiting")
    func waitersOnFinish() {
        var (service, clock) = makeService()
        _ = service.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[10]}}"#)
        _ = service.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.start","params":{"durations":[20]}}"#)
        #expect(service.wait(1, waiter: 7).reply == nil)
        #expect(service.wait(1, waiter: 3).reply == nil)
        #expect(service.wait(2, waiter: 9).reply == nil)
        #expect(service.isWaiting(7) && service.isWaiting(3) && service.isWaiting(9))
        clock.advance(bySeconds: 10)
        #expect(service.fireDueTimers().wakeups.map(\.waiter) == [7, 3])
        #expect(!service.isWaiting(7) && !service.isWaiting(3) && service.isWaiting(9))
        #expect(service.subscriptions.count == 1)
    }

    @Test("A wait on a paused timer is delivered when it is stopped")
    func waitersOnStop() {
        var (service, _) = makeService()
        _ = service.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[10]}}"#)
        _ = service.send(#"{"jsonrpc":"2.0","id":2,"method":"timer.pause","params":{"timer":1}}"#)
        #expect(service.wait(1, waiter: 5).reply == nil)
        let stop = service.send(#"{"jsonrpc":"2.0","id":3,"method":"timer.stop","params":{"timer":1}}"#)
        #expect(stop.wakeups.map(\.waiter) == [5] && !service.isWaiting(5))
    }

    @Test("cancelWait forgets a wait; cancelling an unknown one does nothing")
    func cancel() {
        var (service, _) = makeService()
        _ = service.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[10]}}"#)
        _ = service.wait(1, waiter: 5)
        _ = service.wait(1, waiter: 6)
        service.cancelWait(5)
        service.cancelWait(42)
        #expect(!service.isWaiting(5) && service.isWaiting(6))
        let stop = service.send(#"{"jsonrpc":"2.0","id":3,"method":"timer.stop","params":{"timer":1}}"#)
        #expect(stop.wakeups.map(\.waiter) == [6])
    }

    @Test("A wait on a group is answered at its finish, not at its steps")
    func groupWait() {
        var (service, clock) = makeService()
        _ = service.send(#"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[10,10]}}"#)
        _ = service.wait(1, waiter: 4)
        clock.advance(bySeconds: 10)  // child 0 ends: a step, no answer yet
        #expect(service.fireDueTimers().wakeups.isEmpty && service.isWaiting(4))
        clock.advance(bySeconds: 10)
        let fired = service.fireDueTimers()
        #expect(fired.endings.map(\.timer.id) == [1] && fired.wakeups.map(\.waiter) == [4])
    }

    @Test("What JSONDecoder accepted is still accepted: a trailing comma, a UTF-8 BOM, UTF-16")
    func lenientRequests() throws {
        var (service, _) = makeService()
        let ping = #"{"jsonrpc":"2.0","id":1,"method":"daemon.ping",}"#
        let expected = #"{"id":1,"jsonrpc":"2.0","result":{"pid":1,"protocolVersion":1,"version":"0.1.0"}}"#
        #expect(service.send(ping).reply.map { String(decoding: $0, as: UTF8.self) } == expected)
        let bom = [0xEF, 0xBB, 0xBF] + Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#.utf8)
        let reply = service.handle(line: bom, context: RequestContext(uid: 0, waiter: 2)).reply
        #expect(reply.map { String(decoding: $0, as: UTF8.self) } == expected)
        let utf16 = Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#.utf16).flatMap {
            [UInt8($0 & 0xFF), UInt8($0 >> 8)]
        }
        let reply16 = service.handle(line: utf16, context: RequestContext(uid: 0, waiter: 3)).reply
        #expect(reply16.map { String(decoding: $0, as: UTF8.self) } == expected)
    }
}
