import Foundation
import Testing

@testable import TimerModel
@testable import TimerService

@Suite("ISO 8601 timestamps")
struct ISO8601Tests {
    /// Foundation's format style on the instant floored to the millisecond (from whole microseconds,
    /// in integers). The style truncates the fraction it is given (so 09:00:00.120, stored as
    /// 0.11999…, printed as .119: the 1 ms error the hand-written formatter fixes); half a millisecond
    /// more makes its truncation exact.
    static func reference(_ date: Date) -> String {
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let floored = microseconds >= 0 ? microseconds / 1_000 : -((-microseconds + 999) / 1_000)
        let milliseconds = Double(floored)
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

    @Test("displayDate (timerctl's parse) agrees with Date.ISO8601FormatStyle to the microsecond")
    func displayDateAgrees() {
        // The oracle is ISO8601.date(from:), which parses with Foundation's format style after the
        // same field checks. Seeded random fields, 1900 to 2199, 0 to 9 fraction digits, Z or an
        // offset of either sign.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // seed
        func next(_ bound: UInt64) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % bound)
        }
        func pad(_ value: Int, _ width: Int) -> String {
            String(repeating: "0", count: max(0, width - String(value).count)) + String(value)
        }
        var mismatches: [String] = []
        for _ in 0..<5_000 {
            let year = 1_900 + next(300)
            let month = 1 + next(12)
            let day = 1 + next(28)
            var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            text += "\(pad(next(24), 2)):\(pad(next(60), 2)):\(pad(next(60), 2))"
            let digits = next(10)
            if digits > 0 { text += "." + (0..<digits).map { _ in String(next(10)) }.joined() }
            switch next(3) {
            case 0: text += "Z"
            case 1: text += "+\(pad(next(15), 2)):\(pad(next(60), 2))"
            default: text += "-\(pad(next(13), 2)):\(pad(next(60), 2))"
            }
            guard let expected = ISO8601.date(from: text), let fast = ISO8601.displayDate(from: text),
                abs(expected.timeIntervalSince1970 - fast.timeIntervalSince1970) < 1e-6
            else {
                mismatches.append("\(text): \(String(describing: ISO8601.displayDate(from: text)))")
                continue
            }
        }
        #expect(mismatches.isEmpty, "seed 0x9E3779B97F4A7C15: \(mismatches.prefix(5))")
        // Exact values (by hand: 2026-12-01 is day 20,788 since 1970-01-01, `date -u -d 2026-12-01 +%s` 1796083200).
        #expect(ISO8601.displayDate(from: "2026-12-01T00:00:00Z") == Date(timeIntervalSince1970: 1_796_083_200))
        #expect(
            ISO8601.displayDate(from: "2026-12-01T01:30:00.5+01:30") == Date(timeIntervalSince1970: 1_796_083_200.5))
        #expect(ISO8601.displayDate(from: "1969-12-31T23:59:59Z") == Date(timeIntervalSince1970: -1))
        // Rejected exactly as date(from:) rejects them (the same field checks).
        for bad in ["2026-02-30T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T00:00:00", "2026-12-01 00:00:00Z", ""] {
            #expect(ISO8601.displayDate(from: bad) == nil && ISO8601.date(from: bad) == nil, "\(bad)")
        }
    }

    @Test("09:00:00.120 is printed as .120 (the format style alone printed .119)")
    func roundsToTheMillisecond() {
        let date = Date(timeIntervalSince1970: 1_795_942_800.12)  // 2026-11-29T09:00:00.120Z
        #expect(ISO8601.string(from: date) == "2026-11-29T09:00:00.120Z")
    }

    /// 1,798,761,600 is 2027-01-01T00:00:00Z (Python: `datetime(2027, 1, 1, tzinfo=timezone.utc).timestamp()`);
    /// a microsecond before it is still 2026, as is its millisecond.
    @Test("the last microsecond of a year is written in that year (floored, not rounded)")
    func floorsToTheMillisecond() {
        let date = Date(timeIntervalSince1970: 1_798_761_599.999_999)
        #expect(ISO8601.string(from: date) == "2026-12-31T23:59:59.999Z")
        var cache = TimestampCache()
        #expect(cache.string(from: date) == "2026-12-31T23:59:59.999Z")
        #expect(
            String(decoding: cache.quoted(from: date), as: UTF8.self) == "\"2026-12-31T23:59:59.999Z\"")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -0.000_1)) == "1969-12-31T23:59:59.999Z")
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
