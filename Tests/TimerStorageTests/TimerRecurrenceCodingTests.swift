import Countdown
import Foundation
import Testing
import TimerModel

@testable import TimerStorage

// The recurrence of a recurring timer is extension tag 2 of the record's trailer
// (TimerRecord+ExtensionCoding.swift has the layout). Instants are fixed in UTC.

/// A running calendar timer with every field of tag 2 set (and an action beside it).
private let calendarRecord = TimerRecord(
    id: 11, name: "standup", durations: [900], segmentNanoseconds: [900_000_000_000], state: .running,
    accumulatedNanoseconds: 0, runStart: BootInstant(nanoseconds: 7_000_000_000),
    runStartWall: Date(timeIntervalSince1970: 1_795_942_800),  // 2026-11-29T09:00:00Z
    createdAt: Date(timeIntervalSince1970: 1_795_942_800), startedAt: Date(timeIntervalSince1970: 1_795_942_800),
    endedAt: nil, missed: false, owner: 1_000,
    wallDeadline: Date(timeIntervalSince1970: 1_795_943_712.25),  // 09:15:00Z + 12.25 s randomized
    extensions: [
        .action(TimerAction(command: "say hi", notify: true, workingDirectory: "/home/ann", environment: [])),
        .recurrence(
            {
                var recurrence = TimerRecurrence(
                    rule: .calendar(
                        expression: "Mon..Fri *:0/15 Europe/Paris", zone: "Europe/Paris", followsSystemZone: false),
                    skipMissed: true, randomizedDelay: 30)
                recurrence.nextElapse = Date(timeIntervalSince1970: 1_795_943_700)  // 09:15:00Z
                recurrence.lastElapse = Date(timeIntervalSince1970: 1_795_942_800)
                recurrence.elapseCount = 4_000_000_000_123
                recurrence.lastMissed = 3
                recurrence.pendingMissed = 2
                return recurrence
            }()),
    ])

private func decode(_ bytes: [UInt8]) throws(BinaryReader.Problem) -> TimerRecord {
    try BinaryReader.withReader(bytes[...]) { reader throws(BinaryReader.Problem) in
        let record = try TimerRecord(from: &reader, version: 4)
        try reader.expectEnd()
        return record
    }
}

@Suite("Extension tag 2: the recurrence round-trips through the codec and every store")
struct TimerRecurrenceCodingTests {
    @Test("A calendar recurrence with every field set round-trips, byte for byte")
    func calendarRoundTrip() throws {
        let bytes = calendarRecord.binaryEncoded
        let decoded = try decode(Array(bytes))
        #expect(decoded == calendarRecord)
        #expect(decoded.recurrence?.elapseCount == 4_000_000_000_123)
        #expect(decoded.binaryEncoded == bytes)
    }

    @Test("An every recurrence following the system zone flag, and absent instants, round-trip")
    func everyRoundTrip() throws {
        var record = calendarRecord
        record.recurrence = TimerRecurrence(rule: .every(seconds: 5_400))
        #expect(try decode(Array(record.binaryEncoded)) == record)
        record.recurrence = TimerRecurrence(
            rule: .calendar(expression: "daily", zone: "America/New_York", followsSystemZone: true))
        #expect(try decode(Array(record.binaryEncoded)) == record)
    }

    @Test("Damaged recurrence bytes are refused with the field; every truncation throws, none traps")
    func damage() throws {
        var plain = calendarRecord
        plain.extensions = [.recurrence(TimerRecurrence(rule: .every(seconds: 60)))]
        let bytes = Array(plain.binaryEncoded)
        // The record's own part: fixed fields, the name "standup" (4 + 7 bytes), one segment (4 + 16);
        // then the trailer: count (4), tag (2), length (4), and the body: version, kind, seconds …
        let bodyStart = TimerRecord.binaryFixedSize + 4 + 7 + 4 + 16 + 10
        var badVersion = bytes
        badVersion[bodyStart] = 9
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "recurrence version", offset: bodyStart, reason: "unknown version 9")
        ) { try decode(badVersion) }
        var badKind = bytes
        badKind[bodyStart + 1] = 7
        #expect(
            throws: BinaryReader.Problem.invalid(
                field: "recurrence kind", offset: bodyStart + 1, reason: "unknown kind 7")
        ) { try decode(badKind) }
        for length in (bodyStart - 10)..<bytes.count {
            #expect(throws: BinaryReader.Problem.self, "cut at \(length)") { try decode(Array(bytes.prefix(length))) }
        }
    }

    @Test(
        "A recurring timer survives each store across a restart: no elapse repeated, none lost",
        arguments: StoreKind.allCases)
    func stores(kind: StoreKind) throws {
        let fixture = try kind.makeFixture()
        let clock = ManualClock(wall: storeTestTime)
        var expected = EngineSnapshot(nextID: 0, timers: [])
        try fixture.session { store in
            var engine = try boot(store, clock: clock).0
            _ = try engine.start(
                recurring: .init(kind: .calendar(expression: "*:*:0/10", zone: TimeZone(identifier: "UTC"))),
                name: "tick")
            try engine.commit(to: store)
            // storeTestTime is 15:17:33Z; in 35 s (to 15:18:08) the elapses 15:17:40, 15:17:50 and 15:18:00 ring.
            for _ in 0..<35 {
                clock.advance(bySeconds: 1)
                _ = engine.fireDueTimers()
                try engine.commit(to: store)
            }
            expected = engine.snapshot
            #expect(try engine.status(.name("tick")).recurrence?.recurrence.elapseCount == 3)
        }
        try fixture.session { store in
            #expect(try store.load().snapshot == expected)
            // A restart 1 s later (15:18:09, same boot, no elapse in between): nothing rings at start-up.
            clock.advance(bySeconds: 1)
            var engine = try boot(store, clock: clock).0
            engine.eventRecording = .buffered
            let status = try engine.status(.name("tick"))
            #expect(status.recurrence?.recurrence.elapseCount == 3)
            #expect(engine.takeEvents().isEmpty)
            #expect(status.endsAt == storeTestTime.addingTimeInterval(37))  // 15:18:10
            clock.advance(bySeconds: 1)
            _ = engine.fireDueTimers()
            #expect(engine.takeEvents().map(\.kind) == [.elapsed(missed: 0)])
            #expect(try engine.status(.name("tick")).recurrence?.recurrence.elapseCount == 4)
        }
    }
}
