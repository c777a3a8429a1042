import Foundation
import TestSupport
import Testing

@testable import TimerModel
@testable import TimerProtocol

@Suite("Replies written by hand match JSONEncoder byte for byte")
struct JSONBytesWriterTests {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    private static func handWritten(_ info: TimerInfo) throws -> String? {
        var writer = JSONBytesWriter()
        try info.write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func encoded(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func randomNumber(_ generator: inout SplitMix64) -> Double {
        switch generator.next() % 6 {
        case 0: return Double(generator.next() % 1_000_000)
        case 1: return Double(generator.next() % 1_000_000_000) / 1e9
        case 2: return Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
        case 3: return -Double(generator.next() % 100_000) / 7
        case 4: return [0, -0.0, 1e-5, 1e15, 1e16, 9.5e8, 1e9, 123_456_789_012_345][Int(generator.next() % 8)]
        default: return Double(generator.next() % 31_622_400) + 0.5
        }
    }

    private static func randomText(_ generator: inout SplitMix64) -> String {
        let pieces = [
            "tea", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "\u{7F}", "é", "😀", "\u{2028}", " ", "\r",
        ]
        return (0..<(generator.next() % 6)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
    }

    private static func randomInfo(_ generator: inout SplitMix64, depth: Int = 0) -> TimerInfo {
        func maybe<T>(_ value: T) -> T? { generator.next() % 2 == 0 ? value : nil }
        let progress = ProgressSnapshot(
            totalUnitCount: Int64(bitPattern: generator.next()) >> 20,
            completedUnitCount: Int64(generator.next() % 1_000_000), fractionCompleted: randomNumber(&generator),
            isIndeterminate: generator.next() % 2 == 0, isFinished: generator.next() % 2 == 0,
            isCancelled: generator.next() % 2 == 0, isPaused: generator.next() % 2 == 0)
        let children =
            depth == 0 && generator.next() % 3 == 0
            ? (0..<(1 + generator.next() % 3)).map { _ in randomInfo(&generator, depth: 1) } : nil
        return TimerInfo(
            id: "\(generator.next() % 10_000)", name: maybe(randomText(&generator)),
            state: TimerState.allCases[Int(generator.next() % 5)], duration: randomNumber(&generator),
            remaining: randomNumber(&generator), elapsed: randomNumber(&generator), progress: progress,
            createdAt: maybe("2026-11-29T15:52:28.756Z"), startedAt: maybe(randomText(&generator)),
            endedAt: maybe("2026-11-29T15:52:30.000Z"), endsAt: maybe("x/y"), missed: maybe(generator.next() % 2 == 0),
            currentChild: maybe(Int(generator.next() % 4)), children: children)
    }

    @Test("Random timers (seeded) are written as JSONEncoder encodes them")
    func randomTimers() throws {
        var generator = SplitMix64(seed: 0x7117_E125)
        for round in 0..<3_000 {
            let info = Self.randomInfo(&generator)
            #expect(try Self.handWritten(info) == Self.encoded(info), "seed 0x7117_E125, round \(round)")
        }
    }

    @Test("Numbers and strings on their own match JSONEncoder (seeded)")
    func scalars() throws {
        var generator = SplitMix64(seed: 0x5CA1_A125)
        for _ in 0..<5_000 {
            var writer = JSONBytesWriter()
            let number = Self.randomNumber(&generator)
            try writer.number(number)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Self.encoded(number)), "\(number)")
            writer = JSONBytesWriter()
            let text = Self.randomText(&generator)
            writer.string(text)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Self.encoded(text)))
        }
        for value in [Int64.min, -1, 0, 9, 10, Int64.max] {
            var writer = JSONBytesWriter()
            writer.integer(value)
            #expect(String(decoding: writer.bytes, as: UTF8.self) == (try Self.encoded(value)))
        }
    }

    @Test("A non-finite figure throws, as JSONEncoder does")
    func nonFinite() {
        var writer = JSONBytesWriter()
        #expect(throws: JSONBytesWriter.NonFiniteNumber.self) { try writer.number(.nan) }
        #expect(throws: JSONBytesWriter.NonFiniteNumber.self) { try writer.number(-.infinity) }
    }
}
