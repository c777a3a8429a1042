// Over 450 lines on purpose: one suite per extension tag of the trailer, each with its byte layout,
// round trips and damage, beside the one codec file they check (TimerRecord+ExtensionCoding.swift).
import Countdown
import Foundation
import Testing
import TimerModel

@testable import TimerStorage

/// A finished timer whose action ran twice (exec and notify): every field of tag 1 set.
private let finishedWithAction = TimerRecord(
    id: 7, name: "tea", durations: [300], segmentNanoseconds: [300_000_000_000], state: .finished,
    accumulatedNanoseconds: 300_000_000_000, runStart: nil, runStartWall: nil,
    createdAt: Date(timeIntervalSince1970: 1_795_965_400),  // 2026-11-29T15:16:40Z
    startedAt: Date(timeIntervalSince1970: 1_795_965_400),  // 2026-11-29T15:16:40Z
    endedAt: Date(timeIntervalSince1970: 1_795_965_700),  // 2026-11-29T15:21:40Z
    missed: true, owner: 1_000, wallDeadline: nil,
    extensions: [
        .action(
            TimerAction(
                command: "echo \"$TIMER_NAME\" >> done.txt", notify: true, workingDirectory: "/home/ann/Tee 🍵",
                environment: [.init("PATH", "/usr/bin:/bin"), .init("LANG", "de_DE.UTF-8")],
                runs: [
                    ActionRun(
                        kind: .exec, trigger: .missed,
                        startedAt: Date(timeIntervalSince1970: 1_795_965_701),  // 2026-11-29T15:21:41Z
                        endedAt: Date(timeIntervalSince1970: 1_795_965_702.5), outcome: .exited(3)),
                    ActionRun(
                        kind: .notify, trigger: .missed,
                        startedAt: Date(timeIntervalSince1970: 1_795_965_701), outcome: .interrupted),
                ]))
    ])

private func decode(_ bytes: [UInt8], version: UInt32 = 4) throws(BinaryReader.Problem) -> TimerRecord {
    try BinaryReader.withReader(bytes[...]) { reader throws(BinaryReader.Problem) in
        let record = try TimerRecord(from: &reader, version: version)
        try reader.expectEnd()
        return record
    }
}

/// The trailer bytes of one extension: a count of 1, the tag, the length and the bytes.
private func trailer(tag: UInt16, _ body: [UInt8]) -> [UInt8] {
    var writer = BinaryWriter()
    writer.write(UInt32(1))
    writer.write(tag)
    writer.write(UInt32(body.count))
    writer.write(raw: body)
    return writer.bytes
}

@Suite("The extension trailer (format 4): the action round-trips, unknown tags are kept, damage is refused")
struct TimerRecordExtensionCodingTests {
    @Test(
        "An action with runs of every outcome round-trips",
        arguments: [
            ActionRun.Outcome.running, .exited(0), .exited(255), .signalled(9), .timedOut, .failedToStart(2),
            .interrupted,
        ])
    func actionRoundTrip(outcome: ActionRun.Outcome) throws {
        var record = finishedWithAction
        record.action?.runs[0].outcome = outcome
        #expect(try decode(record.binaryEncoded) == record)
        #expect(try decode(record.binaryEncoded).action?.runs[0].outcome == outcome)
    }

    @Test("A sound (flag 4) is written after the command, and its runs (kind 2) round-trip")
    func soundRoundTrip() throws {
        var record = finishedWithAction
        record.action?.sound = "/usr/share/timerd/timerd-beep.wav"
        record.action?.runs.append(
            ActionRun(
                kind: .sound, trigger: .ringing,
                startedAt: Date(timeIntervalSince1970: 1_795_965_731),  // 2026-11-29T15:22:11Z
                endedAt: Date(timeIntervalSince1970: 1_795_965_732), outcome: .exited(1)))
        let decoded = try decode(record.binaryEncoded)
        #expect(decoded == record)
        #expect(decoded.action?.kinds == [.exec, .notify, .sound])
        // The tag's body starts with the flags (1 command, 2 notify, 4 sound = 7), then the command
        // and the sound as UInt32 byte counts and UTF-8.
        let trailerStart = TimerRecord.binaryFixedSize + 4 + 3 + 4 + 16
        let body = Array(record.binaryEncoded[(trailerStart + 10)...])
        let command = "echo \"$TIMER_NAME\" >> done.txt"
        #expect(body[0] == 7)
        let soundAt = 1 + 4 + command.utf8.count
        #expect(Array(body[soundAt..<soundAt + 4]) == [33, 0, 0, 0])
        #expect(Array(body[(soundAt + 4)..<(soundAt + 37)]) == Array("/usr/share/timerd/timerd-beep.wav".utf8))
    }

    @Test("An alarm with --warn-each is tag 6 version 2: flag 16 and warnedSteps at the end; others stay version 1")
    func warnEachAlarm() throws {
        var record = finishedWithAction
        record.action = nil
        record.alarm = TimerAlarm(ring: nil, warning: 60, warnsEachStep: true, warnedSteps: 1)
        let bytes = Array(record.binaryEncoded)
        let trailerStart = TimerRecord.binaryFixedSize + 4 + 3 + 4 + 16
        // Count 1, tag 6, length 47: version 2, flags 2 (warns) | 16 (each step), …, warnedSteps 1.
        #expect(Array(bytes[trailerStart..<(trailerStart + 10)]) == [1, 0, 0, 0, 6, 0, 47, 0, 0, 0])
        #expect(bytes[trailerStart + 10] == 2 && bytes[trailerStart + 11] == 18)
        #expect(Array(bytes.suffix(4)) == [1, 0, 0, 0])
        #expect(try decode(bytes) == record)
        record.alarm = TimerAlarm(ring: nil, warning: 60)
        let plain = Array(record.binaryEncoded)
        #expect(plain[trailerStart + 6] == 43 && plain[trailerStart + 10] == 1)
        #expect(try decode(plain) == record)
        // Version 1 with flag 16 is damage, named.
        var damaged = plain
        damaged[trailerStart + 11] |= 16
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "alarm flags", offset: trailerStart + 11, reason: "unknown flag bits 16")
        ) { try decode(damaged) }
    }

    @Test("The environment is kept sorted by name, as TimerAction stores it")
    func environmentSorted() throws {
        let decoded = try decode(finishedWithAction.binaryEncoded)
        #expect(decoded.action?.environment.map(\.name) == ["LANG", "PATH"])
        #expect(decoded.action?.value(of: "PATH") == "/usr/bin:/bin")
    }

    @Test("An unknown tag is kept verbatim next to a known one, and written back as it came")
    func unknownTagKept() throws {
        // The record without its empty trailer (its last 4 bytes), then a trailer of two
        // extensions: tag 9 with 3 bytes (a tag no build has yet), then this record's action.
        let base = Array(finishedWithAction.binaryEncoded)
        let actionTrailer = Array(base[(TimerRecord.binaryFixedSize + 4 + 3 + 4 + 16)...])  // count, tag 1 …
        var bytes = Array(base.prefix(TimerRecord.binaryFixedSize + 4 + 3 + 4 + 16))
        var writer = BinaryWriter()
        writer.write(UInt32(2))
        writer.write(UInt16(9))
        writer.write(UInt32(3))
        writer.write(raw: [0xAA, 0xBB, 0xCC])
        bytes += writer.bytes + actionTrailer.dropFirst(4)
        let decoded = try decode(bytes)
        #expect(decoded.extensions.first == .unknown(tag: 9, bytes: [0xAA, 0xBB, 0xCC]))
        #expect(decoded.action == finishedWithAction.action)
        #expect(decoded.binaryEncoded == bytes)
    }

    @Test("Format 2 and 3 records have no trailer: read without extensions, and a 4 reader wants one")
    func olderFormats() throws {
        var plain = finishedWithAction
        plain.extensions = []
        let withoutTrailer = Array(plain.binaryEncoded.dropLast(4))
        #expect(try decode(withoutTrailer, version: 3) == plain)
        #expect(try decode(withoutTrailer, version: 2) == plain)
        #expect(throws: BinaryReader.Problem.self) { try decode(withoutTrailer, version: 4) }
    }

    @Test("A damaged action is refused with the field, never trapped on")
    func damage() throws {
        let bytes = finishedWithAction.binaryEncoded
        // The record's own part: fixed fields, the name "tea" (4 + 3 bytes) and one segment (4 + 16).
        let trailerStart = TimerRecord.binaryFixedSize + 4 + 3 + 4 + 16
        let body = Array(bytes[(trailerStart + 10)...])
        // An action flag no writer sets.
        var badFlags = body
        badFlags[0] = 0x80
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "action flags", offset: trailerStart + 10, reason: "unknown flag bits 128")
        ) { try decode(Array(bytes.prefix(trailerStart)) + trailer(tag: 1, badFlags)) }
        // A length announcing more than the action holds: the extra byte is unread.
        #expect(throws: BinaryReader.Problem.self) {
            try decode(Array(bytes.prefix(trailerStart)) + trailer(tag: 1, body + [0]))
        }
        // A length beyond the record.
        var overrun = bytes
        overrun[trailerStart + 6] = 0xFF
        #expect(throws: BinaryReader.Problem.self) { try decode(overrun) }
        // Every truncation throws; none traps.
        for length in trailerStart..<bytes.count {
            #expect(throws: BinaryReader.Problem.self, "cut at \(length)") { try decode(Array(bytes.prefix(length))) }
        }
    }

    @Test("A record with an action survives each store across a restart", arguments: StoreKind.allCases)
    func stores(kind: StoreKind) throws {
        let fixture = try kind.makeFixture()
        let clock = ManualClock(wall: storeTestTime)
        var expected = EngineSnapshot(nextID: 0, timers: [])
        let action = TimerAction(
            command: "touch done", notify: false, workingDirectory: "/tmp", environment: [.init("HOME", "/root")])
        try fixture.session { store in
            var engine = try boot(store, clock: clock).0
            _ = try engine.start(durations: [60], name: "act", action: action)
            try engine.commit(to: store)
            clock.advance(bySeconds: 61)
            _ = engine.fireDueTimers()
            try engine.commit(to: store)
            expected = engine.snapshot
        }
        try fixture.session { store in
            let loaded = try store.load()
            #expect(loaded.snapshot == expected)
            // The finish recorded one running exec run (TimerEngine+Actions: marked before it starts).
            #expect(loaded.snapshot.timers.first?.action?.runs.map(\.outcome) == [.running])
            #expect(loaded.snapshot.timers.first?.action?.command == "touch done")
        }
    }
}

/// Tag 3, the heartbeat mark: its 18 bytes, round trips and damage.
@Suite("The extension trailer's heartbeat mark (tag 3)")
struct HeartbeatExtensionCodingTests {
    /// A running heartbeat timer beaten 5 times, last at 2026-11-29T15:21:40Z.
    private static let beaten: TimerRecord = {
        var record = finishedWithAction
        record.extensions = [
            .heartbeat(TimerHeartbeat(beatCount: 5, lastBeatAt: Date(timeIntervalSince1970: 1_795_965_700)))
        ]
        return record
    }()

    @Test("Its bytes are the version, the count and the optional last beat, little-endian")
    func bytes() throws {
        let bytes = Self.beaten.binaryEncoded
        // Count 1, tag 3, length 18, version 1, beatCount 5, presence 1, then the Double.
        let lastBeat = Date(timeIntervalSince1970: 1_795_965_700).timeIntervalSinceReferenceDate.bitPattern
        let expected: [UInt8] =
            [1, 0, 0, 0, 3, 0, 18, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 1]
            + (0..<8).map { UInt8(truncatingIfNeeded: lastBeat >> (8 * $0)) }
        #expect(Array(bytes.suffix(expected.count)) == expected)
    }

    @Test(
        "A heartbeat with and without a beat round-trips, alone and next to an action",
        arguments: [
            TimerHeartbeat(), TimerHeartbeat(beatCount: 5, lastBeatAt: Date(timeIntervalSince1970: 1_795_965_700)),
        ])
    func roundTrip(heartbeat: TimerHeartbeat) throws {
        var record = finishedWithAction
        record.heartbeat = heartbeat
        #expect(try decode(record.binaryEncoded) == record)
        #expect(try decode(record.binaryEncoded).heartbeat == heartbeat)
        #expect(try decode(record.binaryEncoded).action == finishedWithAction.action)
    }

    @Test("An unknown version, a flag other than 0 or 1, and an overlong length are refused")
    func damage() throws {
        let bytes = Self.beaten.binaryEncoded
        let bodyStart = bytes.count - 18
        let prefix = Array(bytes.prefix(bodyStart - 10))
        let body = Array(bytes[bodyStart...])
        var badVersion = body
        badVersion[0] = 2
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "heartbeat version", offset: bodyStart, reason: "unknown version 2")
        ) { try decode(prefix + trailer(tag: 3, badVersion)) }
        var badFlag = body
        badFlag[9] = 7
        #expect(throws: BinaryReader.Problem.self) { try decode(prefix + trailer(tag: 3, badFlag)) }
        #expect(throws: BinaryReader.Problem.self) { try decode(prefix + trailer(tag: 3, body + [0])) }
        for length in bodyStart..<bytes.count {
            #expect(throws: BinaryReader.Problem.self, "cut at \(length)") { try decode(Array(bytes.prefix(length))) }
        }
    }
}

/// Tag 4, the wake mark: its one byte, round trips and damage.
@Suite("The extension trailer's wake mark (tag 4)")
struct WakeExtensionCodingTests {
    /// The finished timer with its action, marked to wake the machine.
    private static let marked: TimerRecord = {
        var record = finishedWithAction
        record.isWake = true
        return record
    }()

    @Test("Its bytes follow the action's: tag 4, length 1, version 1")
    func bytes() throws {
        let bytes = Self.marked.binaryEncoded
        // The trailer count is 2 now (the action, then the mark); the mark ends the record:
        // tag 4 (UInt16), length 1 (UInt32), version 1 (durability.md's tag 4 table).
        #expect(Array(bytes.suffix(7)) == [4, 0, 1, 0, 0, 0, 1])
        #expect(Self.marked.extensions.map(\.tag) == [1, 4])
    }

    @Test("The mark round-trips next to an action, and alone; removing it leaves the action")
    func roundTrip() throws {
        let decoded = try decode(Self.marked.binaryEncoded)
        #expect(decoded == Self.marked)
        #expect(decoded.isWake && decoded.action == finishedWithAction.action)
        var alone = finishedWithAction
        alone.extensions = [.wake]
        #expect(try decode(alone.binaryEncoded).isWake)
        var unmarked = decoded
        unmarked.isWake = false
        #expect(!unmarked.isWake && unmarked.extensions.map(\.tag) == [1])
        #expect(try decode(finishedWithAction.binaryEncoded).isWake == false)
    }

    @Test("An unknown version and a body longer than its one byte are refused")
    func damage() throws {
        var alone = finishedWithAction
        alone.extensions = [.wake]
        // Count 1, tag 4, length 1, then the body's one byte: the record before them is the prefix.
        let bytes = alone.binaryEncoded
        let bodyStart = bytes.count - 1
        let prefix = Array(bytes.prefix(bodyStart - 10))
        #expect(
            throws: BinaryReader.Problem.invalid(field: "wake version", offset: bodyStart, reason: "unknown version 2")
        ) { try decode(prefix + trailer(tag: 4, [2])) }
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "wake extension", offset: bodyStart + 1, reason: "1 bytes of its announced length unread")
        ) { try decode(prefix + trailer(tag: 4, [1, 0])) }
        #expect(throws: BinaryReader.Problem.self) { try decode(Array(bytes.prefix(bytes.count - 1))) }
    }
}

/// Tag 5, a series' group and a run's series: bytes, round trips and damage.
@Suite("The extension trailer's series group and run mark (tag 5)")
struct SeriesExtensionCodingTests {
    @Test("A run's mark is tag 5, length 10: version 1, role 1, the series id")
    func runBytes() throws {
        var run = finishedWithAction
        run.extensions = [.seriesRun(series: 3)]
        let bytes = run.binaryEncoded
        // Tag 5 (UInt16), length 10 (UInt32), version 1, role 1, id 3 (UInt64), per durability.md's tag 5 table.
        #expect(Array(bytes.suffix(16)) == [5, 0, 10, 0, 0, 0, 1, 1, 3, 0, 0, 0, 0, 0, 0, 0])
        let decoded = try decode(bytes)
        #expect(decoded.seriesOfRun == 3)
        #expect(decoded == run)
    }

    @Test(
        "A series' group round-trips with every field set, for each overlap rule",
        arguments: SeriesGroup.Overlap.allCases)
    func groupRoundTrip(overlap: SeriesGroup.Overlap) throws {
        var group = SeriesGroup(durations: [1_500, 300, 1_500, 300.25], overlap: overlap)
        group.run = 42
        group.queued = true
        group.runCount = 7
        group.skippedCount = 2
        var series = finishedWithAction
        series.seriesGroup = group
        let decoded = try decode(series.binaryEncoded)
        #expect(decoded.seriesGroup == group)
        #expect(decoded.action == finishedWithAction.action)
        #expect(decoded.seriesOfRun == nil)
        var idle = group
        idle.run = nil
        idle.queued = false
        series.seriesGroup = idle
        #expect(try decode(series.binaryEncoded).seriesGroup == idle)
    }

    @Test("Damage is refused: unknown version, role, overlap; no steps; a step of 0 s; trailing bytes")
    func damage() throws {
        var run = finishedWithAction
        run.extensions = [.seriesRun(series: 3)]
        let bytes = run.binaryEncoded
        let bodyStart = bytes.count - 10
        let prefix = Array(bytes.prefix(bodyStart - 10))
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "series version", offset: bodyStart, reason: "unknown version 2")
        ) { try decode(prefix + trailer(tag: 5, [2, 1] + Array(repeating: 0, count: 8))) }
        #expect(
            throws: BinaryReader.Problem.invalid(field: "series role", offset: bodyStart + 1, reason: "unknown role 2")
        ) { try decode(prefix + trailer(tag: 5, [1, 2] + Array(repeating: 0, count: 8))) }
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "series extension", offset: bodyStart + 10, reason: "1 bytes of its announced length unread")
        ) { try decode(prefix + trailer(tag: 5, [1, 1] + Array(repeating: 0, count: 9))) }
        // Role 0 with a count of 0 steps.
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "series durations", offset: bodyStart + 2, reason: "0 steps, not 1 to 100")
        ) { try decode(prefix + trailer(tag: 5, [1, 0, 0, 0, 0, 0])) }
        var writer = BinaryWriter()
        writer.write(UInt8(1))
        writer.write(UInt8(0))
        writer.write(UInt32(1))
        writer.write(0.0)
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "series duration", offset: bodyStart + 6, reason: "0.0, not > 0")
        ) { try decode(prefix + trailer(tag: 5, writer.bytes)) }
        writer = BinaryWriter()
        writer.write(UInt8(1))
        writer.write(UInt8(0))
        writer.write(UInt32(1))
        writer.write(60.0)
        writer.write(UInt8(3))
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "series overlap", offset: bodyStart + 14, reason: "unknown overlap 3")
        ) { try decode(prefix + trailer(tag: 5, writer.bytes + Array(repeating: 0, count: 26))) }
    }
}

/// Tag 6, the alarm, and state code 5 (ringing): exact bytes, round trips and damage.
@Suite("The extension trailer's alarm (tag 6) and the ringing state (code 5)")
struct AlarmExtensionCodingTests {
    /// A ringing timer (state 5) on its third ring, snoozed once for 9 min, warned.
    private static let ringing: TimerRecord = {
        var record = finishedWithAction
        record.state = .ringing
        record.endedAt = nil
        record.runStart = BootInstant(nanoseconds: 5_000_000_000)
        record.runStartWall = Date(timeIntervalSince1970: 1_795_965_700)  // 2026-11-29T15:21:40Z
        record.extensions = [
            .alarm(
                TimerAlarm(
                    ring: TimerAlarm.Ring(interval: 30, limit: 600), warning: 60, isWarned: true, ringCount: 3,
                    snoozeCount: 1, snoozedNanoseconds: 540_000_000_000, outcome: nil))
        ]
        return record
    }()

    /// The body of tag 6 as durability.md's table lays it out, field by field.
    private static func body(
        flags: UInt8, interval: Double, limit: Double, warning: Double, rings: UInt32, snoozes: UInt32,
        snoozed: Int64, outcome: UInt8
    ) -> [UInt8] {
        var writer = BinaryWriter()
        writer.write(UInt8(1))
        writer.write(flags)
        writer.write(interval)
        writer.write(limit)
        writer.write(warning)
        writer.write(rings)
        writer.write(snoozes)
        writer.write(snoozed)
        writer.write(outcome)
        return writer.bytes
    }

    @Test("State byte 5, then tag 6 with 43 bytes: version 1, flags 7 (rings, warns, warned), the figures")
    func bytes() throws {
        let bytes = Self.ringing.binaryEncoded
        #expect(bytes[8] == 5)
        let expected = Self.body(
            flags: 7, interval: 30, limit: 600, warning: 60, rings: 3, snoozes: 1, snoozed: 540_000_000_000,
            outcome: 0)
        #expect(expected.count == 43)
        #expect(Array(bytes.suffix(6 + 43)) == [6, 0, 43, 0, 0, 0] + expected)
        #expect(try decode(bytes) == Self.ringing)
    }

    @Test("An ended alarm's outcome (flag 8) and one that only warns round-trip")
    func roundTrips() throws {
        for alarm in [
            TimerAlarm(ring: TimerAlarm.Ring(interval: 1, limit: 5), warning: nil, ringCount: 5, outcome: .unanswered),
            TimerAlarm(
                ring: TimerAlarm.Ring(interval: 30, limit: 600), warning: nil, ringCount: 2, outcome: .acknowledged),
            TimerAlarm(ring: nil, warning: 0.5),
        ] {
            var record = finishedWithAction
            record.alarm = alarm
            #expect(try decode(record.binaryEncoded).alarm == alarm)
        }
        var acknowledged = finishedWithAction
        acknowledged.extensions = [
            .alarm(TimerAlarm(ring: TimerAlarm.Ring(interval: 30, limit: 600), warning: nil, outcome: .acknowledged))
        ]
        // Flags 9: rings (1) and an outcome (8), acknowledged being code 0.
        #expect(Array(acknowledged.binaryEncoded.suffix(43).prefix(2)) == [1, 9])
    }

    @Test("Damage is refused with the field and the offset: version, flags, a ring interval out of range, length")
    func damage() throws {
        var alone = finishedWithAction
        alone.extensions = []
        let prefix = Array(alone.binaryEncoded.dropLast(4))  // the record without its empty trailer count
        let bodyStart = prefix.count + 4 + 2 + 4
        let good = Self.body(
            flags: 1, interval: 30, limit: 600, warning: 0, rings: 0, snoozes: 0, snoozed: 0, outcome: 0)
        #expect(try decode(prefix + trailer(tag: 6, good)).alarm?.ring == TimerAlarm.Ring(interval: 30, limit: 600))
        var version = good
        version[0] = 3
        #expect(
            throws: BinaryReader.Problem.invalid(field: "alarm version", offset: bodyStart, reason: "unknown version 3")
        ) { try decode(prefix + trailer(tag: 6, version)) }
        // Version 2 (--warn-each) has 4 bytes more: a version 1 body labelled 2 is cut short.
        version[0] = 2
        #expect(throws: BinaryReader.Problem.self) { try decode(prefix + trailer(tag: 6, version)) }
        var flags = good
        flags[1] = 16
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "alarm flags", offset: bodyStart + 1, reason: "unknown flag bits 16")
        ) { try decode(prefix + trailer(tag: 6, flags)) }
        let slow = Self.body(
            flags: 1, interval: 86_401, limit: 600, warning: 0, rings: 0, snoozes: 0, snoozed: 0, outcome: 0)
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "alarm ring interval", offset: bodyStart + 2, reason: "86401.0, not > 0 and ≤ 86400")
        ) { try decode(prefix + trailer(tag: 6, slow)) }
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "alarm extension", offset: bodyStart + 43, reason: "1 bytes of its announced length unread")
        ) { try decode(prefix + trailer(tag: 6, good + [0])) }
        #expect(throws: BinaryReader.Problem.self) { try decode(prefix + trailer(tag: 6, Array(good.dropLast()))) }
    }
}
