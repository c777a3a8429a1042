/// Appends fixed-width little-endian values and length-prefixed strings and arrays to a byte buffer:
/// the writing half of timerd's binary record payloads (``BinaryReader`` reads them back).
///
/// Integers are written in their two's-complement little-endian form; a `Double` as the
/// little-endian form of its IEEE 754 bit pattern; a string as a `UInt32` byte count and its UTF-8.
package struct BinaryWriter: Sendable {
    /// What has been written so far.
    package private(set) var bytes: [UInt8]

    /// Creates an empty writer.
    ///
    /// - Parameter capacity: bytes to reserve up front.
    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Appends one byte.
    package mutating func write(_ value: UInt8) { bytes.append(value) }

    /// Appends 2 bytes, little-endian.
    package mutating func write(_ value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends raw bytes as they are (no length prefix).
    ///
    /// - Complexity: O(n) in the bytes.
    package mutating func write(raw: some Collection<UInt8>) { bytes.append(contentsOf: raw) }

    /// Appends 4 bytes, little-endian.
    package mutating func write(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends 8 bytes, little-endian.
    package mutating func write(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends 8 bytes, little-endian two's complement.
    package mutating func write(_ value: Int64) { write(UInt64(bitPattern: value)) }

    /// Appends the 8-byte IEEE 754 bit pattern, little-endian.
    package mutating func write(_ value: Double) { write(value.bitPattern) }

    /// Appends a `UInt32` byte count, then the string's UTF-8.
    ///
    /// - Precondition: the UTF-8 is shorter than 4 GiB.
    package mutating func write(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            write(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}
