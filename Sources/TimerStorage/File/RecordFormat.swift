/// The framing shared by the journal and the snapshot: a file header, then checksummed records.
///
/// All integers are little-endian.
///
/// File header, 16 bytes:
///
/// | bytes | content |
/// |---|---|
/// | 0–7 | magic: `TMRDJRNL` (journal) or `TMRDSNAP` (snapshot) |
/// | 8–11 | format version, `UInt32`: 5 (a journal's begin record is followed by its two commit witness slots), 4 (timers with the extension trailer), 3 (binary payloads with the id high-water mark), or 2 |
/// | 12–15 | CRC-32C of bytes 0–11 |
///
/// Record, 9 bytes of header and the payload:
///
/// | bytes | content |
/// |---|---|
/// | 0–3 | payload length in bytes, `UInt32` (≤ ``maximumPayload``) |
/// | 4–7 | CRC-32C (``CRC32C``) of bytes 0–3, the kind byte and the payload |
/// | 8 | kind (``RecordKind``) |
/// | 9… | payload, as the kind and the file's format version say (``RecordPayload``) |
///
/// The length is inside the checksum, so a damaged length is caught like damaged data.
enum RecordFormat {
    /// The format version this code writes: binary payloads whose begin and snapshot records carry
    /// the id high-water mark, whose timers end with the extension trailer (``RecordPayload``), and
    /// whose journals hold two commit witness slots right after the begin record (``CommitWitness``,
    /// docs/durability.md). A version 5 snapshot is laid out as a version 4 one.
    static let version: UInt32 = 5
    /// The format versions this code reads: 5, 4 (no commit witness), 3 (no extension trailer either)
    /// and 2 (no high-water mark either); an older file is upgraded by the first compaction. Version 1
    /// (JSON payloads) was written only by development builds before the first release and is not
    /// read (CHANGELOG.md).
    static let readableVersions: ClosedRange<UInt32> = 2...5
    /// Bytes in the file header.
    static let headerSize = 16
    /// Bytes before a record's payload.
    static let recordHeaderSize = 9
    /// The largest payload accepted: 256 MiB (a snapshot holds every timer; journal records are small).
    static let maximumPayload = 256 << 20

    /// The journal's magic bytes, `TMRDJRNL`.
    static let journalMagic = Array("TMRDJRNL".utf8)
    /// The snapshot's magic bytes, `TMRDSNAP`.
    static let snapshotMagic = Array("TMRDSNAP".utf8)

    /// The 16-byte header for a file with `magic` in format `version` (tests write others).
    static func header(magic: [UInt8], version: UInt32 = version) -> [UInt8] {
        var bytes = magic
        append(version, to: &bytes)
        append(CRC32C.checksum(bytes), to: &bytes)
        return bytes
    }

    /// Why a file header was refused.
    enum HeaderProblem: Error, Equatable, CustomStringConvertible {
        /// Fewer than 16 bytes.
        case short(Int)
        /// Other magic bytes: not this kind of file.
        case wrongMagic
        /// The header's own checksum does not match.
        case badChecksum
        /// A version this code does not read.
        case unsupportedVersion(UInt32)

        var description: String {
            switch self {
            case .short(let count): return "file is \(count) bytes, shorter than its 16-byte header"
            case .wrongMagic: return "wrong magic bytes"
            case .badChecksum: return "header checksum mismatch"
            case .unsupportedVersion(let version):
                return "format version \(version); this timerd reads versions 2 to 5"
            }
        }
    }

    /// Checks the header at the start of `bytes`.
    ///
    /// - Returns: the file's format version (one of ``readableVersions``).
    /// - Throws: ``HeaderProblem``.
    @discardableResult
    static func checkHeader(_ bytes: [UInt8], magic: [UInt8]) throws(HeaderProblem) -> UInt32 {
        guard bytes.count >= headerSize else { throw .short(bytes.count) }
        guard Array(bytes[0..<8]) == magic else { throw .wrongMagic }
        guard CRC32C.checksum(bytes[0..<12]) == readUInt32(bytes, at: 12) else { throw .badChecksum }
        let version = readUInt32(bytes, at: 8)
        guard readableVersions.contains(version) else { throw .unsupportedVersion(version) }
        return version
    }

    /// One framed record.
    static func record(_ kind: RecordKind, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(recordHeaderSize + payload.count)
        append(UInt32(payload.count), to: &bytes)
        var crc = CRC32C.checksum(bytes[0..<4])
        crc = CRC32C.checksum(CollectionOfOne(kind.rawValue), continuing: crc)
        crc = CRC32C.checksum(payload, continuing: crc)
        append(crc, to: &bytes)
        bytes.append(kind.rawValue)
        bytes += payload
        return bytes
    }

    /// What is at one offset of a file.
    enum Parsed {
        /// A whole record whose checksum matches; the next record starts at `next`.
        case record(RecordKind, payload: ArraySlice<UInt8>, next: Int)
        /// The file ends inside the record (its header, or the payload its length announces).
        case incomplete
        /// The bytes are there but are no valid record (checksum, kind or length wrong).
        case corrupt
    }

    /// Parses the record at `offset`.
    static func parse(_ bytes: [UInt8], at offset: Int) -> Parsed {
        guard bytes.count - offset >= recordHeaderSize else { return .incomplete }
        let length = Int(readUInt32(bytes, at: offset))
        guard length <= maximumPayload else { return .corrupt }
        guard bytes.count - offset - recordHeaderSize >= length else { return .incomplete }
        let payloadStart = offset + recordHeaderSize
        var crc = CRC32C.checksum(bytes[offset..<offset + 4])
        crc = CRC32C.checksum(bytes[offset + 8..<payloadStart + length], continuing: crc)
        guard crc == readUInt32(bytes, at: offset + 4), let kind = RecordKind(rawValue: bytes[offset + 8]) else {
            return .corrupt
        }
        return .record(kind, payload: bytes[payloadStart..<payloadStart + length], next: payloadStart + length)
    }

    /// Whether every byte of the record at `offset` is present, as its length field says (which
    /// may itself be damaged): tells a corrupt complete record from a torn one.
    static func isComplete(_ bytes: [UInt8], at offset: Int) -> Bool {
        guard bytes.count - offset >= recordHeaderSize else { return false }
        let length = Int(readUInt32(bytes, at: offset))
        return length <= maximumPayload && bytes.count - offset - recordHeaderSize >= length
    }

    /// The first offset after `offset` where a whole record with a matching checksum starts and
    /// `isUsable` accepts it: where reading resumes after damage in the middle of a file; `nil`
    /// when nothing valid follows (the damage is a tail).
    ///
    /// - Complexity: O(n) offsets; a checksum is computed only where the kind byte is known and
    ///   the length fits, so in practice O(n).
    static func nextRecord(in bytes: [UInt8], after offset: Int, where isUsable: (Parsed) -> Bool) -> Int? {
        var candidate = offset + 1
        while candidate + recordHeaderSize <= bytes.count {
            if RecordKind(rawValue: bytes[candidate + 8]) != nil {
                let parsed = parse(bytes, at: candidate)
                if case .record = parsed, isUsable(parsed) { return candidate }
            }
            candidate += 1
        }
        return nil
    }

    /// Reads a little-endian `UInt32` at `offset` (the caller checked the bounds).
    static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}

/// What a record holds; the payload's encoding is in ``RecordPayload``.
enum RecordKind: UInt8, Sendable {
    /// First record of a journal: ``JournalBegin``.
    case begin = 1
    /// A timer as it is after a change, whole: a `TimerRecord`.
    case timer = 2
    /// Ids dropped from the history: `[UInt64]`.
    case removed = 3
    /// The engine's next id, when it moved: `UInt64`.
    case nextID = 4
    /// A journal's commit witness (format 5; ``CommitWitness``): in two fixed slots right after
    /// the begin record, rewritten in place at every commit.
    case witness = 5
    /// The snapshot's single record: ``SnapshotPayload``.
    case snapshot = 16
}
