import Testing

@testable import TimerProtocol

/// `JSONKnownText` hands out literals for the strings every request repeats; a literal must be
/// exactly the string the bytes spell (`String(decoding:as:)`, the reader's previous result), and
/// any other bytes must find none.
@Suite("Known request strings read as literals")
struct JSONKnownTextTests {
    private static func known(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBufferPointer { JSONKnownText.text($0) }
    }

    @Test("Every envelope key, \"2.0\", parameter name and method name is known, spelled the same")
    func entries() {
        // The envelope (JSON-RPC 2.0: jsonrpc, id, method, params), docs/protocol.md's most used
        // parameter names, and every RPCMethod raw value.
        let texts =
            ["id", "2.0", "name", "timer", "method", "params", "jsonrpc", "durations"]
            + RPCMethod.allCases.map(\.rawValue)
        #expect(texts.count == 30)
        for text in texts {
            let literal = Self.known(text)
            #expect(literal == text, "\(text)")
            #expect(literal.map { Array($0.utf8) } == Array(text.utf8), "\(text)")
        }
    }

    @Test("Every one-byte change, deletion and insertion of an entry finds nothing unless it is an entry")
    func nearMisses() {
        let entries =
            ["id", "2.0", "name", "timer", "method", "params", "jsonrpc", "durations"]
            + RPCMethod.allCases.map(\.rawValue)
        let set = Set(entries)
        var checked = 0
        for entry in entries {
            let bytes = Array(entry.utf8)
            var texts: [[UInt8]] = []
            for index in bytes.indices {
                for byte in UInt8(0x20)...UInt8(0x7E) {
                    var changed = bytes
                    changed[index] = byte
                    texts.append(changed)
                }
                var deleted = bytes
                deleted.remove(at: index)
                texts.append(deleted)
            }
            for index in 0...bytes.count {
                for byte in UInt8(0x20)...UInt8(0x7E) {
                    var inserted = bytes
                    inserted.insert(byte, at: index)
                    texts.append(inserted)
                }
            }
            for text in texts {
                let string = String(decoding: text, as: UTF8.self)
                // The definition: known exactly when the text is an entry, and then that very text.
                #expect(Self.known(string) == (set.contains(string) ? string : nil), "\(string.debugDescription)")
                checked += 1
            }
        }
        // (2+3+4+5+6+6+7+9 + 258) bytes x 96 + (that + 30 places) x 95 insertions.
        #expect(checked == 300 * 96 + 330 * 95)
    }

    @Test("A request read with literals is the one read before, member for member")
    func requestsAgree() throws {
        // Known words as keys and as values (in the wrong places too): the expected members are
        // the line's, written out by hand.
        let line =
            #"{"jsonrpc":"2.0","id":"id","method":"timer.start","params":{"durations":["timer"],"name":"daemon.ping"}}"#
        let members = try #require(JSONValue.requestMembers(parsing: Array(line.utf8), leniency: .strict))
        #expect(members.members["jsonrpc"] == .string("2.0"))
        #expect(members.members["id"] == .string("id"))
        #expect(members.members["method"] == .string("timer.start"))
        #expect(members.params?["durations"] == .array([.string("timer")]))
        #expect(members.params?["name"] == .string("daemon.ping"))
    }
}
