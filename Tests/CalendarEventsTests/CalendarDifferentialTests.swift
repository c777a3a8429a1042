import Foundation
import TestSupport
import Testing

@testable import CalendarEvents

/// Acceptance 1 of issue 13: the library against `systemd-analyze calendar` on this machine.
///
/// Expected values come from systemd itself: for thousands of seeded random expressions and base times in
/// seven zones, the normalized form and the next 10 elapses must equal what `systemd-analyze calendar
/// --iterations=10 --base-time=@BASE` prints with `TZ=ZONE`, except elapses that timerd's gap policy adds (a
/// wall-clock time skipped by spring-forward, moved forward by the gap, which systemd drops); the test checks
/// each of those against the policy instead.
@Suite("Calendar expressions against systemd-analyze")
struct CalendarDifferentialTests {
    /// The seed of the expressions and base times; a failure message names it with the expression.
    static let seed: UInt64 = 0x13CA_1E4D_A2E5

    @Test("random expressions give systemd's normalized form and next 10 elapses (seed 0x13CA1E4DA2E5)")
    func randomExpressionsMatchSystemd() throws {
        guard let executable = SystemdAnalyzeOracle.path else {
            let message =
                "systemd-analyze is not installed: the differential test of issue 13 cannot run. Install it with"
                + " `apt-get install systemd` (.ci/run does this)."
            Issue.record(Comment(rawValue: message))
            return
        }
        var random = RandomCalendarExpression(generator: SplitMix64(seed: Self.seed))
        var counts = (expressions: 0, refused: 0, elapses: 0, policy: 0, never: 0, gaveUp: 0)
        let basesPerZone = 14
        let expressionsPerBase = 32
        for zoneName in RandomCalendarExpression.zones {
            let zone = try #require(TimeZone(identifier: zoneName))
            for _ in 0..<basesPerZone {
                let base = randomBase(&random, zone: zone)
                let expressions = (0..<expressionsPerBase).map { _ in random.next() }
                let run = try SystemdAnalyzeOracle.evaluate(
                    expressions, zone: zoneName, base: base, iterations: 10, executable: executable)
                let answers = run.answers
                for text in expressions {
                    counts.expressions += 1
                    let context = "seed 0x13CA1E4DA2E5, TZ=\(zoneName), base @\(base), expression '\(text)'"
                    let parsed = try? CalendarExpression.parse(text)
                    if run.gaveUp.contains(text) {
                        // systemd 252 stops with "Infinite loop in calendar calculation"; the library must answer.
                        #expect(parsed.map { !elapses(of: $0, after: base, zone: zone).isEmpty } == true, "\(context)")
                        counts.gaveUp += 1
                        continue
                    }
                    guard let answer = answers[text] else {
                        #expect(parsed == nil, "systemd refused it but the library accepted it: \(context)")
                        counts.refused += 1
                        continue
                    }
                    guard let expression = parsed else {
                        Issue.record("systemd accepted it but the library refused it: \(context)")
                        continue
                    }
                    #expect(expression.normalized == answer.normalized, "\(context)")
                    // The normalized form is what a store keeps: it must read back as the same expression.
                    #expect((try? CalendarExpression.parse(expression.normalized)) == expression, "\(context)")
                    let mine = elapses(of: expression, after: base, zone: zone)
                    if mine.isEmpty { counts.never += 1 }
                    let policyCases = mine.filter(\.isSkipped)
                    for moved in policyCases {
                        counts.policy += 1
                        checkGapPolicy(moved, zone: expression.timeZone ?? zone, systemd: answer.elapses, context)
                    }
                    let expected = mine.filter { !$0.isSkipped }.map {
                        CivilDateTime.floorDivide($0.instant, 1_000_000)
                    }
                    let compared = Array(answer.elapses.prefix(expected.count))
                    #expect(compared == expected, "\(context)")
                    if policyCases.isEmpty {
                        #expect(answer.elapses.count == expected.count, "\(context)")
                    }
                    counts.elapses += compared.count
                }
            }
        }
        print(
            "calendar differential (seed 0x13CA1E4DA2E5): \(counts.expressions) expressions, \(counts.refused) refused by"
                + " both, \(counts.never) never elapsing, \(counts.elapses) elapses equal to systemd's,"
                + " \(counts.policy) DST-gap policy elapses checked against the policy, \(counts.gaveUp) on which"
                + " systemd gave up (infinite-loop guard)")
        // Guards against a vacuous pass: the generator must reach each kind of case.
        #expect(counts.expressions >= 3000)
        #expect(counts.elapses >= 20_000)
        #expect(counts.refused >= 20)
        #expect(counts.policy >= 5)
    }

    /// A base time: half of them in the two days before one of the zone's transitions, the rest anywhere in
    /// 2024–2031.
    private func randomBase(_ random: inout RandomCalendarExpression, zone: TimeZone) -> Int {
        let start = 1_704_067_200  // 2024-01-01T00:00:00Z
        let anywhere = start + random.int(0...(8 * 365 * 86_400))
        guard random.chance(50),
            let transition = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: Double(anywhere)))
        else { return anywhere }
        return Int(transition.timeIntervalSince1970) - random.int(0...(2 * 86_400))
    }

    /// The library's next 10 elapses with how each wall-clock time resolved.
    private func elapses(of expression: CalendarExpression, after base: Int, zone: TimeZone) -> [LocalTimeResolution] {
        let offsets = ZoneOffsets(expression.timeZone ?? zone)
        var result: [LocalTimeResolution] = []
        var current = base * 1_000_000
        while result.count < 10, let next = expression.nextElapse(afterMicroseconds: current, zone: offsets) {
            result.append(next)
            current = next.instant
        }
        return result
    }

    /// A moved elapse: systemd has no elapse at that instant; the zone really jumps forward by `gap` within the
    /// gap before it (so the wall-clock time `instant - gap` read before the jump did not exist); the instant is
    /// the wall-clock time read with the offset before the jump, i.e. in the new offset it shows `gap` later.
    private func checkGapPolicy(
        _ moved: LocalTimeResolution, zone: TimeZone, systemd: [Int], _ context: String
    ) {
        guard case .skipped(let instant, let gap) = moved else { return }
        let seconds = CivilDateTime.floorDivide(instant, 1_000_000)
        #expect(!systemd.contains(seconds), "systemd elapses at a moved time: \(context)")
        let after = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds - gap / 1_000_000 - 1)))
        #expect(gap > 0 && after - before == gap / 1_000_000, "not a gap of \(gap / 1_000_000) s: \(context)")
    }
}
