import TimerModel

/// Appends JSON to a byte array by hand, byte for byte as `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` writes it (the protocol's encoder), for the replies sent on every request.
///
/// `JSONEncoder` cost about a fifth of a durable `timer.start` (docs/performance.md). The rules
/// kept here: a Double is its `description` without a trailing `.0` (`1500`, `0.5`, `1e-05`); a
/// string escapes `"`, `\`, `\b`, `\t`, `\n`, `\f`, `\r` and other control characters as `\u00xx`
/// (lowercase hex), nothing else. Tests compare the two on many values.
package struct JSONBytesWriter {
    /// A Double that is NaN or infinite, which JSON cannot hold (`JSONEncoder` throws too).
    package struct NonFiniteNumber: Error {}

    /// The JSON written so far.
    package var bytes: [UInt8] = []

    /// Creates an empty writer.
    ///
    /// - Parameter capacity: bytes to reserve (512 by default).
    package init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text` as is (JSON the caller wrote, such as `{"id":`).
    ///
    /// - Parameter text: ASCII JSON.
    package mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `"key":`, the key written as is (keys are the protocol's own ASCII names).
    package mutating func key(_ name: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends a number as `JSONEncoder` writes a Double.
    ///
    /// - Parameter value: the number.
    /// - Throws: ``NonFiniteNumber`` for NaN or an infinity.
    package mutating func number(_ value: Double) throws(NonFiniteNumber) {
        guard value.isFinite else { throw NonFiniteNumber() }
        if value == value.rounded(.towardZero), abs(value) < 1e9, value != 0 || value.sign == .plus {
            integer(Int64(value))  // what `description` minus ".0" gives for these
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends an integer in decimal.
    ///
    /// - Parameter value: the integer.
    package mutating func integer(_ value: Int64) {
        // Written backwards into 20 bytes on the stack (a sign and 19 digits hold any Int64), then
        // appended at once: one append per digit would cost a call and a capacity check per digit.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var magnitude = value.magnitude
            var start = 20
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            // As typed bytes: appending an UnsafeRawBufferPointer went byte by byte.
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            bytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: 20 - start))
        }
    }

    /// Appends `true` or `false`.
    ///
    /// - Parameter value: the Boolean.
    package mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }

    /// Appends `null`.
    package mutating func null() { raw("null") }

    /// Appends a string literal, escaped as `JSONEncoder` escapes it (see the type's discussion).
    ///
    /// - Parameter value: the string.
    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape: then one bulk append instead of one per byte.
        let isPlain =
            value.utf8.withContiguousStorageIfAvailable { buffer -> Bool in
                guard !buffer.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
                else { return false }
                bytes.append(contentsOf: buffer)
                return true
            } ?? false
        if isPlain {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw(#"\""#)
            case UInt8(ascii: "\\"): raw(#"\\"#)
            case 0x08: raw(#"\b"#)
            case 0x09: raw(#"\t"#)
            case 0x0A: raw(#"\n"#)
            case 0x0C: raw(#"\f"#)
            case 0x0D: raw(#"\r"#)
            case 0..<0x20:
                raw(#"\u00"#)
                let hex: StaticString = "0123456789abcdef"
                bytes.append(hex.utf8Start[Int(byte >> 4)])
                bytes.append(hex.utf8Start[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
