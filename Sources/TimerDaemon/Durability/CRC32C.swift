/// CRC-32C (Castagnoli), the checksum of every journal and snapshot record.
///
/// The reflected polynomial 0x82F63B78, initial value and final XOR 0xFFFFFFFF, as in RFC 3720
/// §B.4 (iSCSI), ext4 metadata and Btrfs. Check value: `"123456789"` gives 0xE3069283.
/// Table-driven, one byte per step; our records are small, so no hardware instruction is needed.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    /// The checksum of `bytes`, continuing from `previous` (the result of an earlier call over the
    /// bytes before them, or 0 to start).
    ///
    /// - Parameters:
    ///   - bytes: the data.
    ///   - previous: the checksum of the preceding data, or 0.
    /// - Returns: the CRC-32C of all the data so far.
    /// - Complexity: O(n).
    static func checksum<Bytes: Sequence>(_ bytes: Bytes, continuing previous: UInt32 = 0) -> UInt32
    where Bytes.Element == UInt8 {
        var crc = ~previous
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        }
        return ~crc
    }
}
