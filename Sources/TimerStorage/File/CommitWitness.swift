/// What a journal's last commit made durable (format version 5): how many bytes of whole records
/// the file held and the engine's next id after it. docs/durability.md, "The commit witness".
///
/// A journal cut exactly at a record boundary is a whole, shorter journal; only a witness of the
/// committed length tells it from an intact one. The witness lives inside the journal, in two
/// fixed-size slots right after the begin record, and each commit rewrites the older slot in
/// place (`pwrite`) after writing its records and before its one `fsync`, which makes both durable
/// together: no extra `fsync` per commit. Two slots, so that a write torn inside a slot (power lost
/// during the `fsync`) still leaves the previous commit's witness whole; the slot with the higher
/// ``sequence`` and a matching checksum is the latest.
///
/// Each slot is an ordinary record (``RecordKind/witness``, 9 bytes of header and a 24-byte
/// payload: three little-endian `UInt64`s, ``sequence``, ``committedLength``, ``nextID``), so it
/// has a CRC-32C like every other record.
struct CommitWitness: Equatable, Sendable {
    /// Counts the commits of this journal: 1 and 0 when it is created (both slots are written
    /// then), one more at each append. The slot it is written to is `sequence % 2`.
    var sequence: UInt64
    /// The file's size in bytes after this commit's records: every byte below it is a whole record
    /// that was made durable (or was being made durable) by this commit or an earlier one.
    var committedLength: UInt64
    /// The engine's next id after this commit: no id at or above it was handed out. 0 when not known.
    var nextID: UInt64

    /// Bytes of the payload: three `UInt64`s.
    static let payloadSize = 24
    /// Bytes of one slot: a record header and the payload.
    static let slotSize = RecordFormat.recordHeaderSize + payloadSize
    /// Bytes of both slots.
    static let areaSize = 2 * slotSize

    /// The slot as a framed record (``RecordFormat/record(_:payload:)``), ``slotSize`` bytes.
    var record: [UInt8] {
        var writer = BinaryWriter(capacity: Self.payloadSize)
        writer.write(sequence)
        writer.write(committedLength)
        writer.write(nextID)
        return RecordFormat.record(.witness, payload: writer.bytes)
    }

    /// Reads the slot at `offset` of `bytes`: `nil` when it is missing (the file ends before the
    /// slot does), fails its checksum, or is no witness of the right size.
    ///
    /// - Complexity: O(1).
    static func read(_ bytes: [UInt8], at offset: Int) -> CommitWitness? {
        guard case .record(.witness, let payload, let next) = RecordFormat.parse(bytes, at: offset),
            next == offset + slotSize
        else { return nil }
        return try? BinaryReader.withReader(payload) { reader throws(BinaryReader.Problem) in
            let witness = CommitWitness(
                sequence: try reader.readUInt64("witness sequence"),
                committedLength: try reader.readUInt64("committed length"),
                nextID: try reader.readUInt64("witness next id"))
            try reader.expectEnd()
            return witness
        }
    }
}
