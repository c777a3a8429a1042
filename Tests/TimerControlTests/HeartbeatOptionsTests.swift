import Foundation
import Testing
import TimerClient
import TimerModel
import TimerProtocol

@testable import TimerControl

// timerctl start DURATION --heartbeat and timerctl beat: options, usage errors, the request, and the
// text status, beat and events print. Messages are ControlOptions' and StatusTable's own.

@Suite("timerctl start --heartbeat and beat: options, usage errors, request and output")
struct HeartbeatOptionsTests {
    @Test("--heartbeat adds \"heartbeat\":true to a start with one duration; without it nothing is sent")
    func request() throws {
        let options = try ControlOptions.parse(["start", "5m", "--heartbeat", "--name", "backup"])
        #expect(options.heartbeat && options.arguments == ["5m"])
        // The params object of timer.start (docs/protocol.md, "Heartbeat timers"), keys sorted.
        var writer = JSONBytesWriter()
        try TimerRequest.start(durations: [300], name: "backup", action: nil, isHeartbeat: options.heartbeat)
            .writeParams(to: &writer)
        #expect(
            String(decoding: writer.bytes, as: UTF8.self) == #"{"durations":[300],"heartbeat":true,"name":"backup"}"#)
        var plain = JSONBytesWriter()
        try TimerRequest.start(durations: [300], name: nil, action: nil, isHeartbeat: false).writeParams(to: &plain)
        #expect(String(decoding: plain.bytes, as: UTF8.self) == #"{"durations":[300]}"#)
    }

    @Test(
        "Usage errors: one DURATION, not for other commands, beat takes one timer",
        arguments: [
            (
                ["start", "5m", "5m", "--heartbeat"], Verb.start,
                "option '--heartbeat' goes with 'start DURATION' (one duration: the longest silence between beats)"
            ),
            (
                ["start", "--at", "09:00", "--heartbeat"], .start,
                "option '--heartbeat' goes with 'start DURATION' (one duration: the longest silence between beats)"
            ),
            (
                ["start", "--every", "1h", "--heartbeat"], .start,
                "option '--heartbeat' goes with 'start DURATION' (one duration: the longest silence between beats)"
            ),
            (["beat", "svc", "--heartbeat"], .beat, "unknown option '--heartbeat' for 'beat'"),
            (["beat"], .beat, "'beat' takes exactly one ID or NAME"),
            (["beat", "a", "b"], .beat, "'beat' takes exactly one ID or NAME"),
        ])
    func usage(arguments: [String], verb: Verb, message: String) {
        #expect(throws: ControlError.usage(message, verb: verb)) { try ControlOptions.parse(arguments) }
    }

    /// A running 5 min heartbeat timer (the figures of docs/protocol.md's example).
    private static func backup(beats: Int, last: String?) -> TimerInfo {
        var timer = TimerInfo(
            id: "7", name: "backup", state: .running, duration: 300, remaining: 300, elapsed: 0,
            progress: ProgressSnapshot(
                totalUnitCount: 300_000, completedUnitCount: 0, fractionCompleted: 0, isIndeterminate: false,
                isFinished: false, isCancelled: false, isPaused: false),
            endsAt: "2026-12-01T06:35:00.000Z")
        timer.heartbeat = HeartbeatInfo(beatCount: beats, lastBeatAt: last)
        return timer
    }

    @Test("status shows the beats where other timers have a bar; start and beat confirm in one line")
    func text() {
        // now: 2026-12-01T06:30:00Z = 07:30:00 at UTC+1 (the fixed clock's zone).
        let now = Date(timeIntervalSince1970: 1_796_106_600)
        let clock = LocalClock.fixed(offsetSeconds: 3_600)
        let fresh = Self.backup(beats: 0, last: nil)
        let beaten = Self.backup(beats: 3, last: "2026-12-01T06:30:00.000Z")
        #expect(
            StatusTable.render([fresh, beaten], color: false, now: now, clock: clock) == """
                ID  NAME    STATE    REMAINING  END       PROGRESS
                7   backup  running  0:05:00    07:35:00  heartbeat, no beat yet
                7   backup  running  0:05:00    07:35:00  heartbeat, 3 beats, last 07:30:00

                """)
        #expect(StatusTable.confirmation(.start, fresh) == "started 7 \"backup\": heartbeat 5m\n")
        #expect(StatusTable.confirmation(.beat, beaten) == "beat 7 \"backup\": 0:05:00 left (beat 3)\n")
    }
}
