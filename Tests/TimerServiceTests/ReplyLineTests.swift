import Countdown
import Foundation
import TestSupport
import Testing
import TimerModel
import TimerProtocol

@testable import TimerService

/// `resultLine(id:snapshot:resolvedAt:)` (a plain timer written straight from its
/// snapshot, the whole line in one buffer) must give the very bytes of the path it replaced,
/// `resultLine(id:resultJSON:)` around `json(_:resolvedAt:)` (`TimerInfo.write`, which
/// JSONBytesWriterTests check against JSONEncoder): that path's output is the expected value.
@Suite("Reply lines written straight from a snapshot equal the TimerInfo path, byte for byte")
struct ReplyLineTests {
    /// The line both ways, each with a fresh timestamp cache (the cache changes no output).
    private static func bothWays(
        _ snapshot: TimerSnapshot, id: RPCID, resolvedAt: LocalTimeResolution? = nil, service: TimerService
    ) throws -> (direct: String, expected: String) {
        var direct = service
        var reference = service
        let line = try direct.resultLine(id: id, snapshot: snapshot, resolvedAt: resolvedAt)
        let expected = TimerService.resultLine(
            id: id, resultJSON: try reference.json(snapshot, resolvedAt: resolvedAt))
        return (String(decoding: line, as: UTF8.self), String(decoding: expected, as: UTF8.self))
    }

    @Test("Running, paused, stopped, finished, named, grouped, recurring and edited snapshots")
    func snapshotsAgree() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        let service = TimerService(engine: TimerEngine(clock: clock), pid: 1)
        var engine = TimerEngine(clock: clock)
        var snapshots: [TimerSnapshot] = []
        snapshots.append(try engine.start(durations: [86_400]))
        snapshots.append(try engine.start(durations: [0.5], name: "tea \"green\" \\ é 😀"))
        snapshots.append(try engine.start(durations: [60, 30, 1e-5], name: "group"))  // children: TimerInfo path
        snapshots.append(try engine.start(at: FixedInstant.engineStart.addingTimeInterval(3_600.25), name: "at"))
        let every = TimerEngine.RecurrenceRequest(
            kind: .every(seconds: 90, from: nil), skipMissed: false, randomizedDelay: 0)
        snapshots.append(try engine.start(recurring: every, name: "every"))  // recurrence: TimerInfo path
        let paused = try engine.start(durations: [120])
        clock.advance(bySeconds: 7.125)
        snapshots.append(try engine.pause(.id(paused.id)))
        let stopped = try engine.start(durations: [300])
        clock.advance(bySeconds: 1.5)
        snapshots.append(try engine.stop(.id(stopped.id)).timer)
        clock.advance(bySeconds: 86_400)
        snapshots += engine.fireDueTimers().map(\.timer)
        snapshots.append(try engine.status(.id(paused.id)))
        // Fields no request above sets: a missed elapse, an id past Int64.max, odd figures.
        var edited = snapshots[0]
        edited.missed = true
        edited.id = UInt64.max
        edited.duration = 1e21
        edited.remaining = 123.456
        edited.elapsed = -0.0
        edited.name = "control \n\t\u{1} characters the engine refuses"
        snapshots.append(edited)
        #expect(snapshots.count >= 12)
        let ids: [RPCID] = [.number(1), .string("a\"b"), .null, .largeInteger("9007199254740993")]
        for (index, snapshot) in snapshots.enumerated() {
            let (direct, expected) = try Self.bothWays(snapshot, id: ids[index % ids.count], service: service)
            #expect(direct == expected, "snapshot \(index)")
        }
        // A local `at` resolved: always the TimerInfo path, the same line.
        let resolution = LocalTimeResolution(
            date: FixedInstant.engineStart, localTime: "2026-11-29T16:17", timeZone: "Europe/Paris", adjustment: "exact"
        )
        let (direct, expected) = try Self.bothWays(
            snapshots[3], id: .number(2), resolvedAt: resolution, service: service)
        #expect(direct == expected)
    }

    @Test("timer.start through handle replies with the line of the TimerInfo path")
    func handleAgrees() throws {
        let clock = ManualClock(boot: BootInstant(nanoseconds: 1_000_000_000), wall: FixedInstant.engineStart)
        var service = TimerService(engine: TimerEngine(clock: clock), pid: 1)
        let line = #"{"jsonrpc":"2.0","id":7,"method":"timer.start","params":{"durations":[86400.0],"name":"n"}}"#
        let outcome = service.handle(line: Array(line.utf8), context: RequestContext(uid: 0, waiter: 1))
        let reply = String(decoding: try #require(outcome.reply), as: UTF8.self)
        var reference = service
        let snapshot = try service.engine.status(.id(1))
        let expected = TimerService.resultLine(id: .number(7), resultJSON: try reference.json(snapshot))
        #expect(reply == String(decoding: expected, as: UTF8.self))
        #expect(outcome.event == "started timer 1 (\"n\"), 1d")
        // A notification (no id) starts the timer and gets no reply, as before.
        let notification = #"{"jsonrpc":"2.0","method":"timer.start","params":{"durations":[5]}}"#
        let silent = service.handle(line: Array(notification.utf8), context: RequestContext(uid: 0, waiter: 2))
        #expect(silent.reply == nil)
        #expect(silent.requiresDurability)
        #expect(try service.engine.status(.id(2)).duration == 5)
    }

    @Test("The cache's quoted timestamps are the quoted text of string(from:), hits, swaps and misses alike")
    func quotedTimestamps() {
        // Expected: JSONBytesWriter.string of the text string(from:) gives, which is ISO8601.string(from:)
        // (ISO8601Tests); before 1970 and after 9999 the cache does not hold the instant.
        var cache = TimestampCache()
        let start = FixedInstant.engineStart
        let dates = [
            start, start, start.addingTimeInterval(0.001), start, start.addingTimeInterval(0.0004),
            start.addingTimeInterval(3_600), Date(timeIntervalSince1970: -1.5),
            Date(timeIntervalSince1970: 253_402_300_800),
            start,
        ]
        for date in dates {
            let quoted = cache.quoted(from: date)
            var writer = JSONBytesWriter()
            writer.string(ISO8601.string(from: date))
            #expect(quoted == writer.bytes, "\(date.timeIntervalSince1970)")
        }
    }
}
