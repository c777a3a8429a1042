import Foundation
import Testing

@testable import TimerModel
@testable import TimerService

@Suite("ISO 8601 timestamps")
struct ISO8601Tests {
    /// Foundation's format style on the instant rounded to the millisecond. The style truncates the
    /// fraction it is given (so 09:00:00.120, stored as 0.11999…, printed as .119: the 1 ms error the
    /// hand-written formatter fixes); half a millisecond more makes its truncation exact.
    static func reference(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1_000).rounded()
        let nudged = Date(timeIntervalSince1970: (milliseconds + 0.5) / 1_000)
        return nudged.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    @Test("the hand-written formatter agrees with Date.ISO8601FormatStyle (seeded random instants)")
    func agrees() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D  // seed
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            // Anywhere from 1970 to 2200, with sub-millisecond fractions.
            let seconds = Double(state % 7_258_118_400_000_000) / 1_000_000
            let date = Date(timeIntervalSince1970: seconds)
            if ISO8601.string(from: date) != Self.reference(date) {
                mismatches.append("\(seconds): \(ISO8601.string(from: date)) vs \(Self.reference(date))")
            }
        }
        let sample = mismatches.prefix(5).joined(separator: "; ")
        #expect(mismatches.count == 0, "seed 0x2545F4914F6CDD1D: \(sample)")
    }

    @Test("09:00:00.120 is printed as .120 (the format style alone printed .119)")
    func roundsToTheMillisecond() {
        let date = Date(timeIntervalSince1970: 1_795_942_800.12)  // 2026-11-29T09:00:00.120Z
        #expect(ISO8601.string(from: date) == "2026-11-29T09:00:00.120Z")
    }

    @Test(
        "edges: the epoch, leap days, century years, the last millisecond of 9999, before 1970",
        arguments: [
            0, 0.0004, 0.0005, 951_782_400, 951_868_799.9996, 4_107_542_400, 1_795_942_800.12,
            253_402_300_799.999, -1.5,
        ])
    func edges(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(ISO8601.string(from: date) == Self.reference(date))
    }

    @Test("the two-entry timestamp cache hands out exactly ISO8601.string's text (seeded mix of repeats)")
    func cacheAgrees() {
        var cache = TimestampCache()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // seed
        var recent: [Double] = [1_795_942_800.12]
        var mismatches: [String] = []
        for _ in 0..<20_000 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            // Half the instants repeat one of the last three (or the same millisecond), half are new.
            let seconds: Double
            if state % 2 == 0 {
                seconds = recent[Int(state / 2 % UInt64(recent.count))] + Double(state % 3) * 0.000_1
            } else {
                seconds = Double(state % 7_258_118_400_000_000) / 1_000_000
            }
            recent = Array((recent + [seconds]).suffix(3))
            let date = Date(timeIntervalSince1970: seconds)
            if cache.string(from: date) != ISO8601.string(from: date) {
                mismatches.append("\(seconds): \(cache.string(from: date)) vs \(ISO8601.string(from: date))")
            }
        }
        let sample = mismatches.prefix(5).joined(separator: "; ")
        #expect(mismatches.count == 0, "seed 0x9E3779B97F4A7C15: \(sample)")
    }
}
