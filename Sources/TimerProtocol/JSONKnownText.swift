/// The strings every request repeats (the envelope's keys, `"2.0"`, the method names, the most
/// used parameter names), recognised by their bytes so that the reader hands out a literal instead
/// of making a new `String` from the bytes.
///
/// Making a `String` validates and copies the bytes, for each of the five
/// strings of a `daemon.ping` request. A literal is the same `String`
/// value (same characters, so `==`, hashing and the replies are unchanged); only its making is
/// cheaper. The length is compared first, so text of any other length costs one switch.
/// `JSONKnownTextTests` checks every entry and its near misses against `String(decoding:as:)`.
enum JSONKnownText {
    /// The literal whose UTF-8 bytes are exactly `bytes`, or `nil`.
    ///
    /// - Parameter bytes: a string's bytes between its quotes, without escapes.
    /// - Returns: the literal spelled by the bytes, or `nil` when they spell none of the known ones.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch bytes.count {
        case 2: return matches(bytes, "id") ? "id" : nil
        case 3: return matches(bytes, "2.0") ? "2.0" : nil
        case 4: return matches(bytes, "name") ? "name" : nil
        case 5: return matches(bytes, "timer") ? "timer" : nil
        case 6:
            if matches(bytes, "method") { return "method" }
            return matches(bytes, "params") ? "params" : nil
        case 7: return matches(bytes, "jsonrpc") ? "jsonrpc" : nil
        case 9:
            if matches(bytes, "durations") { return "durations" }
            return matches(bytes, "timer.ack") ? "timer.ack" : nil
        case 10...17: return methodName(bytes)
        default: return nil
        }
    }

    /// One of the protocol's method names (`RPCMethod`'s raw values), or `nil`.
    private static func methodName(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        switch bytes.count {
        case 10:
            if matches(bytes, "timer.stop") { return "timer.stop" }
            if matches(bytes, "timer.list") { return "timer.list" }
            if matches(bytes, "timer.wait") { return "timer.wait" }
            if matches(bytes, "timer.skip") { return "timer.skip" }
            if matches(bytes, "timer.runs") { return "timer.runs" }
            if matches(bytes, "timer.beat") { return "timer.beat" }
            return nil
        case 11:
            if matches(bytes, "timer.start") { return "timer.start" }
            if matches(bytes, "timer.pause") { return "timer.pause" }
            if matches(bytes, "daemon.ping") { return "daemon.ping" }
            return nil
        case 12:
            if matches(bytes, "timer.resume") { return "timer.resume" }
            if matches(bytes, "timer.status") { return "timer.status" }
            if matches(bytes, "daemon.stats") { return "daemon.stats" }
            if matches(bytes, "timer.extend") { return "timer.extend" }
            if matches(bytes, "timer.rename") { return "timer.rename" }
            if matches(bytes, "timer.remove") { return "timer.remove" }
            if matches(bytes, "timer.snooze") { return "timer.snooze" }
            return nil
        case 13:
            if matches(bytes, "daemon.reload") { return "daemon.reload" }
            if matches(bytes, "timer.restart") { return "timer.restart" }
            return nil
        case 14:
            if matches(bytes, "daemon.metrics") { return "daemon.metrics" }
            return nil
        case 15:
            if matches(bytes, "timer.subscribe") { return "timer.subscribe" }
            return nil
        case 17:
            if matches(bytes, "timer.unsubscribe") { return "timer.unsubscribe" }
            return nil
        default: return nil
        }
    }

    /// Whether `bytes` are exactly the UTF-8 bytes of `literal`.
    @inline(__always)
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard literal.utf8CodeUnitCount == bytes.count else { return false }
        let expected = literal.utf8Start
        for index in 0..<bytes.count where bytes[index] != expected[index] { return false }
        return true
    }
}
