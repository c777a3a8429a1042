import Countdown
import TestSupport
import Testing
import TimerModel
import TimerProtocol
import TimerSystem

@testable import TimerDaemon

/// Records datagrams instead of sending them.
private final class RecordingSink: SystemdNotificationSink {
    var datagrams: [String] = []
    func send(_ datagram: [UInt8]) throws { datagrams.append(String(decoding: datagram, as: UTF8.self)) }
}

@Suite("sd_notify messages (man sd_notify(3))")
struct SystemdNotifierTests {
    @Test("Fields become KEY=VALUE lines joined by newlines")
    func formatting() {
        #expect(SystemdNotifier.datagram([.ready, .status("2 running")]) == "READY=1\nSTATUS=2 running")
        #expect(SystemdNotifier.datagram([.stopping]) == "STOPPING=1")
        #expect(SystemdNotifier.datagram([.watchdog]) == "WATCHDOG=1")
        #expect(SystemdNotification.extendTimeout(microseconds: 5_000_000).line == "EXTEND_TIMEOUT_USEC=5000000")
        #expect(SystemdNotification.status("a\nb\rc").line == "STATUS=a b c")
    }

    @Test("RELOADING=1 and MONOTONIC_USEC= go in one datagram")
    func reloading() throws {
        let sink = RecordingSink()
        let notifier = SystemdNotifier(sink: sink, watchdogMicroseconds: nil)
        try notifier.notify(SystemdNotifier.reloading(monotonicMicroseconds: 123_456))
        #expect(sink.datagrams == ["RELOADING=1\nMONOTONIC_USEC=123456"])
        let now = SystemdNotifier.monotonicMicroseconds()
        #expect(now > 0)
    }

    @Test("Nothing is sent without NOTIFY_SOCKET")
    func disabled() throws {
        let notifier = try SystemdNotifier(environment: [:], pid: 42)
        #expect(!notifier.isEnabled)
        try notifier.notify([.ready])
    }

    @Test("NOTIFY_SOCKET: a path, or @ for the abstract namespace")
    func addresses() throws {
        #expect(try SystemdNotifier.address("/run/systemd/notify") == Array("/run/systemd/notify".utf8))
        #expect(try SystemdNotifier.address("@/org/x") == [0] + Array("/org/x".utf8))
        #expect(throws: SystemdNotifier.NotifyAddressError.invalid("relative")) {
            try SystemdNotifier.address("relative")
        }
        #expect(throws: SystemdNotifier.NotifyAddressError.invalid("@")) { try SystemdNotifier.address("@") }
        let long = "/" + String(repeating: "a", count: 200)
        #expect(throws: SystemdNotifier.NotifyAddressError.invalid(long)) { try SystemdNotifier.address(long) }
    }

    @Test(
        "WATCHDOG_USEC applies only when WATCHDOG_PID is ours or unset",
        arguments: [
            (["WATCHDOG_USEC": "200000"], 200_000),
            (["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "42"], 200_000),
            (["WATCHDOG_USEC": "200000", "WATCHDOG_PID": "43"], nil),
            (["WATCHDOG_USEC": "0"], nil),
            (["WATCHDOG_USEC": "soon"], nil),
            ([:], nil),
        ] as [([String: String], UInt64?)])
    func watchdog(environment: [String: String], expected: UInt64?) {
        #expect(SystemdNotifier.watchdogInterval(environment: environment, pid: 42) == expected)
    }

    @Test("The link pings at half the interval and sends STATUS at most once a second, only on change")
    func link() {
        let sink = RecordingSink()
        let link = SystemdLink(notifier: SystemdNotifier(sink: sink, watchdogMicroseconds: 200_000), log: { _ in })
        let second: Int64 = 1_000_000_000
        link.ready(now: 0, status: "no live timers")
        #expect(sink.datagrams == ["READY=1\nSTATUS=no live timers"])
        link.turn(now: 1, status: { "x" })
        #expect(sink.datagrams.last == "WATCHDOG=1")
        #expect(link.millisecondsUntilDue(now: 1, hasLiveTimers: false) == 100)
        link.turn(now: 50_000_000, status: { "x" })
        #expect(sink.datagrams.count == 2)
        link.turn(now: 100_000_001, status: { "x" })
        #expect(sink.datagrams.count == 3)
        link.turn(now: second, status: { "no live timers" })
        #expect(sink.datagrams.last == "WATCHDOG=1")
        link.turn(now: 2 * second, status: { "1 running" })
        #expect(sink.datagrams.last == "WATCHDOG=1\nSTATUS=1 running")
    }

    @Test("The status line counts running and paused timers and the next end")
    func statusLine() {
        #expect(SystemdLink.statusLine([]) == "no live timers")
    }

    /// The daemon's `STATUS=` line, sent once a second, must not list every timer (seconds at a million).
    /// With 100,000 timers of one user and one of another, it reads one record (``RecordProbe``):
    /// the head of the deadline queue; the counts come from counters. The text is the one
    /// ``SystemdLink/statusLine(_:)-([TimerSnapshot])`` gives for the same timers.
    @Test("The STATUS= line visits one record with 100,001 live timers")
    func statusLineVisitsOneRecord() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var engine = TimerEngine(clock: clock)
        engine.eventRecording = .buffered
        for _ in 0..<100_000 { _ = try engine.start(durations: [3_600], owner: 1_000) }
        _ = try engine.start(durations: [90], owner: 2_000)
        _ = try engine.pause(.id(100_001), requester: 2_000)
        clock.advance(bySeconds: 0.5)
        let probe = RecordProbe()
        engine.recordProbe = probe
        // The next end: 3,600 s - 0.5 s, rounded up to 1h.
        #expect(SystemdLink.statusLine(of: engine) == "100000 running, 1 paused, next ends in 1h")
        #expect(probe.count == 1)
        #expect(SystemdLink.statusLine(engine.list()) == SystemdLink.statusLine(of: engine))
    }
}
