import Foundation
import TestSupport
import Testing
import TimerModel

/// Unicode names: NFC normalization (UAX #15) and what a reference parses to.
@Suite("Timer names in any script, in NFC")
struct TimerNameTests {
    @Test("Two spellings of é (U+00E9, and e + U+0301) are one name, stored as U+00E9")
    func twoSpellings() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(Array(composed.unicodeScalars) != Array(decomposed.unicodeScalars))
        #expect(Array(TimerName.normalized(decomposed).unicodeScalars) == Array(composed.unicodeScalars))
        #expect(Array(TimerName.normalized(decomposed).utf8) == [0x63, 0x61, 0x66, 0xC3, 0xA9])
        #expect(try TimerReference(parsing: decomposed) == .name(composed))
        if case .name(let name) = try TimerReference(parsing: decomposed) {
            #expect(Array(name.utf8) == Array(composed.utf8))
        }
    }

    /// Strings whose NFC differs from their input in the ways UAX #15 describes: composition,
    /// reordering of combining marks by canonical combining class, Hangul syllables, singletons.
    static let samples = [
        "e\u{301}", "A\u{30A}ngstr\u{F6}m", "\u{1E0B}\u{323}", "d\u{307}\u{323}", "\u{1100}\u{1161}\u{11A8}",
        "\u{212B}", "\u{2126}", "o\u{308}\u{304}", "\u{3B1}\u{313}\u{301}", "plain", "お茶", "\u{304B}\u{3099}",
    ]

    @Test("normalized(_:) gives Foundation's precomposedStringWithCanonicalMapping", arguments: samples)
    func agreesWithFoundation(_ text: String) {
        // Foundation's NFC (ICU on Linux) is the reference the standard library's must match.
        #expect(
            Array(TimerName.normalized(text).unicodeScalars)
                == Array(text.precomposedStringWithCanonicalMapping.unicodeScalars))
    }

    @Test("Random strings of letters and combining marks: NFC as Foundation's (seed 0x16_2026_12_01)")
    func randomAgreement() {
        var random = SplitMix64(seed: 0x16_2026_12_01)
        // Base letters and combining marks (U+0300…U+036F, and U+0323 dot below) that compose in many ways.
        let bases: [Unicode.Scalar] = ["a", "e", "o", "u", "A", "O", "n", "c", "s", "\u{3B1}", "\u{1100}", "\u{1161}"]
        let marks: [Unicode.Scalar] = [
            "\u{300}", "\u{301}", "\u{302}", "\u{303}", "\u{308}", "\u{323}", "\u{327}", "\u{30A}",
        ]
        for round in 0..<500 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<(1 + Int(random.next() % 6)) {
                scalars.append(bases[Int(random.next() % UInt64(bases.count))])
                for _ in 0..<Int(random.next() % 3) { scalars.append(marks[Int(random.next() % UInt64(marks.count))]) }
            }
            let text = String(scalars)
            #expect(
                Array(TimerName.normalized(text).unicodeScalars)
                    == Array(text.precomposedStringWithCanonicalMapping.unicodeScalars),
                "round \(round) of seed 0x16_2026_12_01: \(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("A step id such as 5.1 is a reference to step 1 of group 5")
    func stepReference() throws {
        #expect(try TimerReference(parsing: "5.1") == .step(group: 5, step: 1))
        #expect(try TimerReference(parsing: "5.12").description == "5.12")
        #expect(try TimerReference(parsing: "5") == .id(5))
        // Three parts is not a step id but a valid name.
        #expect(try TimerReference(parsing: "5.1.2") == .name("5.1.2"))
    }

    @Test("64 characters are counted as characters, not bytes or scalars")
    func lengthInCharacters() {
        // "e" + U+0301 is one character; 64 of them, NFC-composed, are 64 characters (128 bytes).
        #expect(TimerName.isValid(String(repeating: "e\u{301}", count: 64)))
        #expect(!TimerName.isValid(String(repeating: "e\u{301}", count: 65)))
        // A family emoji (four people joined by U+200D) is one character.
        #expect(TimerName.isValid(String(repeating: "👨\u{200D}👩\u{200D}👧\u{200D}👦", count: 64)))
    }
}
