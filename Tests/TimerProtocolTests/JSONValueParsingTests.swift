import Foundation
import TestSupport
import Testing

@testable import TimerModel
@testable import TimerProtocol

@Suite("JSONValue parsing without JSONDecoder")
struct JSONValueParsingTests {
    /// What JSONDecoder makes of `text`, or nil when it refuses it.
    private static func decoded(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    @Test(
        "Well-formed JSON parses as JSONDecoder decodes it",
        arguments: [
            #"{"jsonrpc":"2.0","id":7,"method":"timer.start","params":{"durations":[1500,"5m"],"name":"tea"}}"#,
            #" { "a" : [ true , false , null , -0 , 0.5 , 1e3 , -2.5E-3 , 12345678901234567890 ] } "#,
            #"{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \u0000 é 😀"}"#,
            #"{"dup":1,"dup":2}"#, #"[]"#, #"{}"#, #""text""#, "42", "-7", "true", "null",
            #"{"big":9007199254740993,"small":4503599627370497,"frac":0.1,"neg":-9007199254740992}"#,
            #"[[[[["deep"]]]]]"#, "\t\r\n[1]\n",
        ])
    func matchesJSONDecoder(text: String) throws {
        let parsed = try #require(JSONValue(parsing: Array(text.utf8)))
        #expect(parsed == Self.decoded(text))
    }

    @Test(
        "Malformed JSON is refused, as JSONDecoder refuses it",
        arguments: [
            "", " ", "{", "}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "+1", "-", "1e", "1e+",
            "tru", "nul", "True", "\"open", "\"bad \\x escape\"", "\"tab\there\"", "\"\\ud800\"", "\"\\udc00 x\"",
            "\"\\u12g4\"", "1 2", "{\"a\":1} x", "[1]]", "1e400", "-1e400", "NaN", "Infinity", "\u{0B}1",
        ])
    func refusesMalformed(text: String) {
        #expect(JSONValue(parsing: Array(text.utf8)) == nil)
        #expect(Self.decoded(text) == nil)
    }

    @Test("A trailing comma is left to JSONDecoder, which accepts it", arguments: ["[1,]", #"{"a":1,}"#])
    func trailingCommaFallsBack(text: String) {
        #expect(JSONValue(parsing: Array(text.utf8)) == nil)
        #expect(Self.decoded(text) != nil)
    }

    @Test("Invalid UTF-8 in a string is refused")
    func refusesInvalidUTF8() {
        #expect(JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22]) == nil)
        #expect(JSONValue(parsing: [0x22, 0xFF, 0x22]) == nil)
    }

    @Test("Nesting is limited to maximumDepth")
    func limitsDepth() {
        let depth = JSONValue.maximumDepth
        let atLimit = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        #expect(JSONValue(parsing: Array(atLimit.utf8)) != nil)
        let beyond = String(repeating: "[", count: 40_000) + String(repeating: "]", count: 40_000)
        #expect(JSONValue(parsing: Array(beyond.utf8)) == nil)
    }

    @Test("Numbers round as JSONDecoder rounds them (seeded)")
    func numbersRoundTheSame() {
        var generator = SplitMix64(seed: 0x5EED_1234)
        for _ in 0..<2_000 {
            let value = Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            for text in [
                "\(value)", "\(Int64(bitPattern: generator.next()) >> 3)",
                "\(Double(generator.next() % 1_000_000) / 1_000)",
            ] {
                #expect(JSONValue(parsing: Array(text.utf8)) == Self.decoded(text), "seed 0x5EED_1234, \(text)")
            }
        }
    }
}

@Suite("Duplicate members keep the first value (one hash probe per member)")
struct JSONDuplicateMemberTests {
    /// The first of two `"id"` members wins for the value and for its kept source text, as
    /// JSONDecoder keeps the first (the `{"dup":1,"dup":2}` case of `matchesJSONDecoder`); the
    /// value is the nearest Double, 2^53, and the literal keeps every digit.
    @Test("The first duplicate wins, in the value and in the kept integer literal")
    func firstDuplicateWins() throws {
        let line = Array(#"{"id":9007199254740993,"id":2,"x":{"k":"a","k":"b"}}"#.utf8)
        let parsed = try #require(JSONValue(parsing: line))
        #expect(
            parsed
                == .object([
                    "id": .number(9_007_199_254_740_992), "x": .object(["k": .string("a")]),
                ]))
        #expect(JSONValue.integerLiteral(ofMember: "id", in: line, leniency: .strict) == "9007199254740993")
    }
}
