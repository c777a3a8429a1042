import Testing

@testable import TimerStorage

@Suite("CRC-32C slicing-by-8")
struct CRC32CTests {
    /// The definition, one bit at a time (RFC 3720 §B.4's polynomial, reflected).
    static func bitwise(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        }
        return ~crc
    }

    @Test("agrees with the bitwise definition for every length 0…64 and any offset, in pieces too")
    func agreesWithDefinition() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let data = (0..<200).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
        for start in 0..<9 {
            for length in 0...64 {
                let slice = data[start..<start + length]
                let expected = Self.bitwise(Array(slice))
                #expect(CRC32C.checksum(slice) == expected)
                #expect(CRC32C.checksum(slice.lazy.map { $0 }) == expected)  // not contiguous
                let middle = start + length / 3
                let head = CRC32C.checksum(data[start..<middle])
                let continued = CRC32C.checksum(data[middle..<start + length], continuing: head)
                #expect(continued == expected)
            }
        }
    }
}
