import Testing
import TimerProtocol

/// `RPCMethod(rawValue:)` is written out (length first, then the few names of that length); these
/// tests hold it to the definition: the method whose `rawValue` is the text, as the synthesized
/// look-up found it (`allCases.first { $0.rawValue == text }`).
@Suite("RPCMethod look-up by name")
struct RPCMethodLookupTests {
    /// The reference: the case whose declared name equals `text`, by `String` equality.
    private static func reference(_ text: String) -> RPCMethod? {
        RPCMethod.allCases.first { $0.rawValue == text }
    }

    @Test("Every name of docs/protocol.md finds its method, and the names are all the cases")
    func everyName() {
        // The 22 names in the order of the -32601 example in docs/protocol.md ("methods: …").
        let names = [
            "timer.start", "timer.stop", "timer.pause", "timer.resume", "timer.status", "timer.list", "timer.wait",
            "daemon.ping", "daemon.reload", "daemon.stats", "timer.subscribe", "timer.unsubscribe", "timer.extend",
            "timer.restart", "timer.beat", "timer.rename", "timer.skip", "timer.remove", "timer.runs", "daemon.metrics",
            "timer.ack", "timer.snooze",
        ]
        #expect(RPCMethod.allCases.map(\.rawValue) == names)
        for method in RPCMethod.allCases {
            #expect(RPCMethod(rawValue: method.rawValue) == method, "\(method.rawValue)")
        }
    }

    @Test("Near misses find nothing: case, spaces, prefixes, suffixes, look-alikes")
    func nearMisses() {
        let misses = [
            "", ".", "timer", "timer.", "daemon.", "Timer.start", "timer.Start", "TIMER.START", " timer.start",
            "timer.start ", "timer.start\n", "timer.star", "timer.startt", "timer.stat", "daemon.pin", "daemon.pings",
            "timer_start", "timer:start", "timer.subscrib", "timer.unsubscrib", "timer.unsubscribee", "daemon.reloaD",
            "timer.st\u{0}rt", "timer.ſtart", "timer.start\u{301}", "ｔimer.start", "timer.ѕtart",
        ]
        for text in misses {
            #expect(RPCMethod(rawValue: text) == nil, "\(text.debugDescription)")
            #expect(Self.reference(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test("Every one-byte change, deletion and insertion of every name agrees with the reference")
    func mutations() {
        // Each name with each byte replaced by each printable ASCII byte, each byte deleted, and each
        // printable byte inserted at each place.
        var checked = 0
        var found = 0
        for method in RPCMethod.allCases {
            let bytes = Array(method.rawValue.utf8)
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
                let lookedUp = RPCMethod(rawValue: string)
                #expect(lookedUp == Self.reference(string), "\(string.debugDescription)")
                if lookedUp != nil { found += 1 }
                checked += 1
            }
        }
        // Texts that are a name: only each byte replaced by itself (no name is one change away from
        // another), so one per byte of every name: 258, the sum of the 22 names' lengths (10 for
        // timer.beat, 14 for daemon.metrics, 9 for timer.ack, 12 for timer.snooze, 213 for the other
        // 18). Both figures were counted independently with a Python script doing the same three edits.
        let nameBytes = RPCMethod.allCases.reduce(0) { $0 + $1.rawValue.utf8.count }
        #expect(nameBytes == 258)
        #expect(found == 258)
        // 258 bytes x 96 (95 replacements + 1 deletion) + (258 + 22 places) x 95 insertions.
        #expect(checked == 258 * 96 + 280 * 95)
    }
}
