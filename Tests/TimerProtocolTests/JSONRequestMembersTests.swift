import TestSupport
import Testing

@testable import TimerProtocol

/// `JSONValue.requestMembers(parsing:leniency:)` (the daemon's request reader) must
/// read every line exactly as `JSONValue(parsing:leniency:)` does: the expected values are that
/// parser's, which JSONValueParsingTests checks against JSONDecoder.
@Suite("Request lines read into member lists agree with JSONValue(parsing:)")
struct JSONRequestMembersTests {
    /// The members as the dictionary JSONValue holds, with the split `params` put back.
    private static func rebuilt(_ request: (members: JSONMembers, params: JSONMembers?, duplicateKey: String?))
        -> JSONValue
    {
        var object = request.members.dictionary
        if let params = request.params { object["params"] = .object(params.dictionary) }
        return .object(object)
    }

    @Test(
        "Objects read the same in both leniencies, params split out when it is an object",
        arguments: [
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[86400]}}"#,
            #"{"jsonrpc":"2.0","id":"a","method":"timer.start","params":{"durations":[1500,"5m"],"name":"tea","action":{"exec":"true"}}}"#,
            #" { "params" : { "timer" : 3 } , "method" : "timer.stop" } "#,
            #"{"params":null,"id":null}"#, #"{"params":[1,2]}"#, #"{"params":{}}"#, #"{}"#,
            #"{"params":{"a":{"b":{"c":[{"d":1}]}}}}"#,
            #"{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 é 😀","params":{"é":"😀"}}"#,
        ])
    func agrees(text: String) throws {
        for leniency in [JSONValue.Leniency.strict, .foundationCompatible] {
            let bytes = Array(text.utf8)
            let request = try #require(JSONValue.requestMembers(parsing: bytes, leniency: leniency))
            #expect(Self.rebuilt(request) == JSONValue(parsing: bytes, leniency: leniency))
        }
    }

    @Test("The first of duplicate names counts, for a member and for params (as in the dictionary)")
    func firstDuplicateWins() throws {
        // JSONValue keeps the first duplicate (JSONDecoder's rule, JSONValueParsingTests.firstDuplicateWins).
        let text = #"{"id":1,"id":2,"params":{"timer":5,"timer":6},"params":{"timer":7}}"#
        let request = try #require(JSONValue.requestMembers(parsing: Array(text.utf8), leniency: .strict))
        #expect(request.members["id"] == .number(1))
        #expect(request.params?["timer"] == .number(5))
        #expect(request.params?.keys == ["timer", "timer"])
        // The reader names the first duplicate name it met, which the daemon refuses.
        #expect(request.duplicateKey == "id")
        // A first params that is not an object counts too: no members are split out.
        let null = #"{"params":null,"params":{"timer":7}}"#
        let other = try #require(JSONValue.requestMembers(parsing: Array(null.utf8), leniency: .strict))
        #expect(other.params == nil)
        #expect(other.members["params"] == .null)
    }

    /// The first name found twice in one object, at any depth (docs/protocol.md: the daemon
    /// refuses such a request with -32600); names repeated in different objects are no duplicate.
    @Test(
        "The first duplicate name is reported, at any depth",
        arguments: [
            (#"{"method":"daemon.ping","method":"timer.list"}"#, "method"),
            (#"{"params":{"durations":[1],"durations":[2]}}"#, "durations"),
            (#"{"params":{"action":{"cwd":"/","cwd":"/tmp"}}}"#, "cwd"),
            (#"{"a":[{"x":1,"x":2}],"a":3}"#, "x"),
            (#"{"a":{"b":1},"c":{"b":2},"params":{"b":3}}"#, nil),
            ("{" + (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","k39":0}"#, "k39"),
        ] as [(String, String?)])
    func duplicateNames(text: String, duplicate: String?) throws {
        let request = try #require(JSONValue.requestMembers(parsing: Array(text.utf8), leniency: .strict))
        #expect(request.duplicateKey == duplicate)
    }

    /// An integer member past 2^53, where the Double rounds, keeps its digits for the reader of ids.
    @Test("large integer members keep their digits")
    func largeIntegerDigits() throws {
        let text = #"{"params":{"timer":18446744073709551615,"small":5,"neg":-9007199254740993}}"#
        let request = try #require(JSONValue.requestMembers(parsing: Array(text.utf8), leniency: .strict))
        #expect(request.params?.largeIntegerLiteral("timer") == "18446744073709551615")
        #expect(request.params?.largeIntegerLiteral("neg") == "-9007199254740993")
        #expect(request.params?.largeIntegerLiteral("small") == nil)
    }

    @Test(
        "What is not an object, or not JSON, gives nil (the caller then asks JSONValue which)",
        arguments: ["[1]", "42", #""text""#, "null", "", "{", #"{"a":1"#, #"{"a":1,}"#, #"{"a":1} x"#, #"{"a" 1}"#])
    func refuses(text: String) {
        #expect(JSONValue.requestMembers(parsing: Array(text.utf8), leniency: .strict) == nil)
    }

    @Test("The lenient form takes a trailing comma, a BOM and UTF-16, as JSONValue does")
    func leniencies() throws {
        let comma = Array(#"{"params":{"timer":1,},"id":2,}"#.utf8)
        #expect(JSONValue.requestMembers(parsing: comma, leniency: .strict) == nil)
        let lenient = try #require(JSONValue.requestMembers(parsing: comma, leniency: .foundationCompatible))
        #expect(Self.rebuilt(lenient) == JSONValue(parsing: comma, leniency: .foundationCompatible))
        #expect(lenient.params?["timer"] == .number(1))
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"id":3}"#.utf8)
        #expect(
            try #require(JSONValue.requestMembers(parsing: bom, leniency: .foundationCompatible)).members["id"]
                == .number(3))
        // UTF-16LE of {"id":4}: each ASCII byte followed by a zero byte.
        let utf16: [UInt8] = Array(#"{"id":4}"#.utf8).flatMap { byte -> [UInt8] in [byte, 0] }
        #expect(
            try #require(JSONValue.requestMembers(parsing: utf16, leniency: .foundationCompatible)).members["id"]
                == .number(4))
    }

    @Test("Invalid UTF-8 and nesting past maximumDepth are refused, in params too")
    func limits() {
        let badUTF8: [UInt8] = Array(#"{"params":{"name":""#.utf8) + [0xC3, 0x28] + Array(#""}}"#.utf8)
        #expect(JSONValue.requestMembers(parsing: badUTF8, leniency: .foundationCompatible) == nil)
        #expect(JSONValue(parsing: badUTF8, leniency: .foundationCompatible) == nil)
        // The top object is depth 1 and params depth 2, so maximumDepth - 2 more arrays reach the limit.
        let inner = JSONValue.maximumDepth - 2
        let atLimit =
            #"{"params":{"a":"# + String(repeating: "[", count: inner) + String(repeating: "]", count: inner) + "}}"
        let overLimit =
            #"{"params":{"a":"# + String(repeating: "[", count: inner + 1) + String(repeating: "]", count: inner + 1)
            + "}}"
        #expect(JSONValue(parsing: Array(atLimit.utf8)) != nil)
        #expect(JSONValue.requestMembers(parsing: Array(atLimit.utf8), leniency: .strict) != nil)
        #expect(JSONValue(parsing: Array(overLimit.utf8)) == nil)
        #expect(JSONValue.requestMembers(parsing: Array(overLimit.utf8), leniency: .strict) == nil)
    }

    @Test("Members: lookup, setting, removing and filtering keep the order sent")
    func membersEdit() {
        var members: JSONMembers = ["at": .string("09:00"), "name": .null]
        #expect(members["at"] == .string("09:00"))
        #expect(members["missing"] == nil)
        members["timeZone"] = .string("Europe/Paris")
        members["at"] = .string("10:00")
        #expect(members.keys == ["at", "name", "timeZone"])
        #expect(members["at"] == .string("10:00"))
        members["name"] = nil
        #expect(members.keys == ["at", "timeZone"])
        #expect(members.filter { $0.key == "timeZone" }.keys == ["timeZone"])
        #expect(!members.isEmpty && JSONMembers().isEmpty)
    }
}

@Suite("Decimals without exponent: the exact fast path gives what strtod gives")
struct JSONDecimalFastPathTests {
    @Test(
        "Boundary texts parse to Double(text), the value the parser took from strtod before",
        arguments: [
            "86400.0", "-86400.0", "0.0", "-0.0", "0.1", "0.25", "1500.5", "-2.5", "123456789012345.6",
            "99999999999999.9", "999999999999999.9", "12345678901234.5", "0.0000000000000000000001",
            "0.00000000000000000000001", "1.7976931348623157", "4503599627370497.5", "9007199254740993.0",
            "0.30000000000000004", "100000000000000.0",
        ])
    func boundaries(text: String) throws {
        // Double(String) is strtod: what parseNumber returned for every decimal before the fast path.
        let expected = try #require(Double(text))
        let parsed = try #require(JSONValue(parsing: Array(text.utf8)))
        #expect(parsed == .number(expected))
        if case .number(let value) = parsed { #expect(value.sign == expected.sign) }
    }

    @Test("Random decimals of 1 to 17 digits parse to Double(text) (seeded)")
    func randomDecimals() {
        var generator = SplitMix64(seed: 0xDEC1_4A15)
        for _ in 0..<5_000 {
            let digits = Int(generator.next() % 17) + 1
            let point = Int(generator.next() % UInt64(digits))
            var text = String(generator.next() % 1_000_000_000_000_000_000).suffix(digits)
            if text.isEmpty { text = "0" }
            let whole = String(text.prefix(point + 1))
            let integerPart = whole.count > 1 ? String(whole.drop(while: { $0 == "0" })) : whole
            let fractionPart = String(text.dropFirst(point + 1)) + "0"
            let number = (integerPart.isEmpty ? "0" : integerPart) + "." + fractionPart
            let signed = generator.next() % 2 == 0 ? number : "-" + number
            #expect(
                JSONValue(parsing: Array(signed.utf8)) == Double(signed).map(JSONValue.number),
                "seed 0xDEC1_4A15, \(signed)")
        }
    }
}
