import Foundation
import TestSupport
import Testing
import TimerModel

@testable import TimerProtocol

// The product reads and writes JSON with its own reader and writer; Foundation's coders remain the
// reference these tests compare against.
@Suite("The one JSON reader and writer agree with Foundation")
struct JSONRoundTripTests {
    private static let sample = TimerInfo(
        id: "4", name: "tea/\"x\"", state: .running, duration: 90.5, remaining: 0.25, elapsed: 90.25,
        progress: ProgressSnapshot(
            totalUnitCount: 90_500, completedUnitCount: 90_250, fractionCompleted: 0.997_237_569_060_773_5,
            isIndeterminate: false, isFinished: false, isCancelled: false, isPaused: false),
        createdAt: "2026-11-29T15:17:33.000Z", startedAt: "2026-11-29T15:17:33.000Z",
        endsAt: "2026-11-29T15:19:03.500Z", currentChild: 1,
        children: [
            TimerInfo(
                id: "4.1", name: nil, state: .finished, duration: 60, remaining: 0, elapsed: 60,
                progress: ProgressSnapshot(
                    totalUnitCount: 60_000, completedUnitCount: 60_000, fractionCompleted: 1,
                    isIndeterminate: false, isFinished: true, isCancelled: false, isPaused: false))
        ])

    private static func pretty(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func ours(_ value: some JSONWritable) throws -> String {
        var writer = JSONBytesWriter()
        try value.write(to: &writer)
        return String(decoding: JSONBytesWriter.prettyPrinted(writer.bytes), as: UTF8.self)
    }

    @Test("Pretty printing matches JSONEncoder's .prettyPrinted byte for byte (timerctl --json)")
    func prettyPrinting() throws {
        var resolved = Self.sample
        resolved.resolvedAt = LocalTimeResolution(
            date: Date(timeIntervalSince1970: 1_796_112_300), localTime: "2026-12-01T09:05:00+01:00",
            timeZone: "Europe/Berlin", adjustment: "exact")
        #expect(try Self.ours(Self.sample) == Self.pretty(Self.sample))
        #expect(try Self.ours(resolved) == Self.pretty(resolved))
        // A heartbeat timer's member, before and after its first beat.
        for heartbeat in [
            HeartbeatInfo(beatCount: 0, lastBeatAt: nil),
            HeartbeatInfo(beatCount: 12, lastBeatAt: "2026-11-29T15:18:03.250Z"),
        ] {
            var beaten = Self.sample
            beaten.heartbeat = heartbeat
            #expect(try Self.ours(beaten) == Self.pretty(beaten))
        }
        #expect(try Self.ours([Self.sample, resolved]) == Self.pretty([Self.sample, resolved]))
        #expect(try Self.ours([TimerInfo]()) == Self.pretty([TimerInfo]()))
        let ping = PingResult(version: "0.1.0", protocolVersion: 1, pid: 4_242)
        #expect(try Self.ours(ping) == Self.pretty(ping))
        // A daemon on PostgreSQL names its store and host id.
        let shared = PingResult(
            version: "0.1.0", protocolVersion: 1, pid: 4_242, store: "postgresql host=/run/pg dbname=timers",
            hostID: "web1-3f2a9c1d")
        #expect(try Self.ours(shared) == Self.pretty(shared))
        for reload in [ReloadResult(config: "/etc/timerd.conf", found: true), ReloadResult(config: nil, found: false)] {
            #expect(try Self.ours(reload) == Self.pretty(reload))
        }
        let stats = StatsResult(
            liveTimers: 3, runningTimers: 2, firedTimers: 7,
            latenessMicroseconds: LatenessSummary(count: 7, p50: 120.5, p99: 900, max: 1_000.25), catchUpTimers: 2)
        #expect(try Self.ours(stats) == Self.pretty(stats))
        // Shared mode adds the store figures, written as JSONEncoder (sorted keys) would.
        var sharedStats = stats
        sharedStats.store = StoreStats(
            claims: 41, claimsPerSecond: 2.5, leaseRescues: 1, fencesLost: 0, roundTripMicrosecondsP50: 817.99,
            roundTripMicrosecondsP99: 30_085.292)
        #expect(try Self.ours(sharedStats) == Self.pretty(sharedStats))
    }

    @Test("A reply read with the one reader equals what JSONDecoder read")
    func reading() throws {
        var resolved = Self.sample
        resolved.resolvedAt = LocalTimeResolution(
            date: Date(timeIntervalSince1970: 1_796_112_300), localTime: "2026-12-01T09:05:00+01:00",
            timeZone: "Europe/Berlin", adjustment: "exact")
        var beaten = Self.sample
        beaten.heartbeat = HeartbeatInfo(beatCount: 3, lastBeatAt: "2026-11-29T15:18:03.250Z")
        for info in [Self.sample, resolved, beaten] {
            var writer = JSONBytesWriter()
            try info.write(to: &writer)
            let line = Array(#"{"id":3,"jsonrpc":"2.0","result":"#.utf8) + writer.bytes + [UInt8(ascii: "}")]
            let reply = try RPCReply(line: line)
            let read = try TimerInfo(json: try #require(reply.result))
            let decoded = try JSONDecoder().decode(RPCResponse<TimerInfo>.self, from: Data(line))
            #expect(reply.id == .number(3) && reply.error == nil)
            #expect(read == decoded.result)
        }
        let error = try RPCReply(
            line: Array(#"{"error":{"code":-32001,"message":"no timer with id 9"},"id":null}"#.utf8))
        #expect(
            error.id == .null && error.error == RPCError(.timerNotFound, "no timer with id 9") && error.result == nil)
        #expect(throws: JSONShapeError.self) { try RPCReply(line: Array(#"{"result":1}"#.utf8)) }
        #expect(throws: JSONShapeError.self) { try TimerInfo(json: .object(["id": .number(1)])) }
    }

    @Test("The lenient reader accepts exactly what JSONDecoder accepts besides RFC 8259 (seeded mix)")
    func leniencyMatchesJSONDecoder() {
        var generator = SplitMix64(seed: 0x1E41_E17)
        let pieces = ["[", "]", "{", "}", ",", ":", "1", "\"a\"", " ", "null", "true"]
        var disagreements: [String] = []
        for _ in 0..<3_000 {
            let text = (0..<Int(generator.next() % 7 + 1)).map { _ in pieces[Int(generator.next() % 11)] }.joined()
            for bytes in [
                Array(text.utf8), [0xEF, 0xBB, 0xBF] + Array(text.utf8),
                Array(text.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
                Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },
            ] {
                let ours = JSONValue(parsing: bytes, leniency: .foundationCompatible)
                let foundation = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
                if ours != foundation { disagreements.append("\(bytes)") }
            }
        }
        #expect(disagreements.isEmpty, "seed 0x1E41E17: \(disagreements.prefix(3))")
    }
}
