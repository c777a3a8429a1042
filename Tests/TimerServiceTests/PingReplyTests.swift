import Countdown
import TestSupport
import Testing
import TimerModel
import TimerProtocol
import TimerService

/// `daemon.ping`'s result is written once and reused (`TimerService.pingResult()`); these tests
/// check that the reply is the documented one and follows every change of what it reports.
@Suite("daemon.ping reply")
struct PingReplyTests {
    private static func ping(_ service: inout TimerService, id: Int) throws -> String {
        let line = #"{"jsonrpc":"2.0","id":\#(id),"method":"daemon.ping"}"#
        let outcome = service.handle(line: Array(line.utf8), context: RequestContext(uid: 1_000, waiter: WaiterID(id)))
        return String(decoding: try #require(outcome.reply), as: UTF8.self)
    }

    @Test("The reply is docs/protocol.md's, byte for byte, and follows pid, store and hostID")
    func followsChanges() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), pid: 4_242)
        // docs/protocol.md, "daemon.ping": the reply of a daemon with no store line.
        let documented = #"{"id":1,"jsonrpc":"2.0","result":{"pid":4242,"protocolVersion":1,"version":"0.1.0"}}"#
        #expect(try Self.ping(&service, id: 1) == documented)
        #expect(try Self.ping(&service, id: 1) == documented)  // the cached result: same bytes
        #expect(
            try Self.ping(&service, id: 2)
                == #"{"id":2,"jsonrpc":"2.0","result":{"pid":4242,"protocolVersion":1,"version":"0.1.0"}}"#)
        // Each change shows in the next reply (keys sorted: hostID, pid, protocolVersion, store, version;
        // the quote and backslash escaped as JSON requires).
        service.storeDescription = #"file /var/lib/"timerd"\x"#
        #expect(
            try Self.ping(&service, id: 3)
                == #"{"id":3,"jsonrpc":"2.0","result":{"pid":4242,"protocolVersion":1,"store":"file /var/lib/\"timerd\"\\x","version":"0.1.0"}}"#
        )
        service.pid = 7
        #expect(
            try Self.ping(&service, id: 4)
                == #"{"id":4,"jsonrpc":"2.0","result":{"pid":7,"protocolVersion":1,"store":"file /var/lib/\"timerd\"\\x","version":"0.1.0"}}"#
        )
        service.hostID = "a"
        service.storeDescription = "postgresql host=/run/pg"
        #expect(
            try Self.ping(&service, id: 5)
                == #"{"id":5,"jsonrpc":"2.0","result":{"hostID":"a","pid":7,"protocolVersion":1,"store":"postgresql host=/run/pg","version":"0.1.0"}}"#
        )
        service.hostID = "b"
        #expect(
            try Self.ping(&service, id: 6)
                == #"{"id":6,"jsonrpc":"2.0","result":{"hostID":"b","pid":7,"protocolVersion":1,"store":"postgresql host=/run/pg","version":"0.1.0"}}"#
        )
        service.hostID = nil
        service.storeDescription = nil
        service.pid = 4_242
        #expect(try Self.ping(&service, id: 1) == documented)
    }

    @Test("Parameters are still refused, and a notification gets no reply")
    func parametersAndNotification() {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), pid: 1)
        let withParams = service.handle(
            line: Array(#"{"jsonrpc":"2.0","id":9,"method":"daemon.ping","params":{"x":1}}"#.utf8),
            context: RequestContext(uid: 1_000, waiter: 1))
        // The message of allowOnly (TimerService+Parameters.swift) for a method taking none.
        #expect(
            withParams.reply.map { String(decoding: $0, as: UTF8.self) }
                == #"{"error":{"code":-32602,"message":"unknown parameter \"x\" for daemon.ping; allowed: none"},"id":9,"jsonrpc":"2.0"}"#
        )
        let notification = service.handle(
            line: Array(#"{"jsonrpc":"2.0","method":"daemon.ping"}"#.utf8),
            context: RequestContext(uid: 1_000, waiter: 2))
        #expect(notification.reply == nil)
    }
}
