/// Reads what ``BinaryWriter`` wrote, checking every length against the bytes that are there:
/// a truncated or garbled payload is a thrown ``Problem``, never a trap.
///
/// The reader borrows the bytes; use it only inside the closure that lends them
/// (``withReader(_:_:)``).
package struct BinaryReader {
    /// Why a payload could not be read.
    package enum Problem: Error, Equatable, CustomStringConvertible {
        /// The payload ends `needed` bytes short at byte `offset`, inside the named field.
        case truncated(field: String, offset: Int, needed: Int)
        /// The field at byte `offset` holds a value no writer produces.
        case invalid(field: String, offset: Int, reason: String)
        /// Bytes are left over after the last field.
        case trailingBytes(offset: Int, count: Int)

        package var description: String {
            switch self {
            case .truncated(let field, let offset, let needed):
                return "truncated payload: \(field) at byte \(offset) needs \(needed) more bytes"
            case .invalid(let field, let offset, let reason):
                return "invalid \(field) at byte \(offset): \(reason)"
            case .trailingBytes(let offset, let count):
                return "\(count) unexpected bytes after the last field at byte \(offset)"
            }
        }
    }

    private let base: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    package private(set) var offset = 0

    private init(_ base: UnsafeRawBufferPointer) { self.base = base }

    /// Runs `body` with a reader over `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the payload.
    ///   - body: reads the payload.
    /// - Returns: what `body` returns.
    /// - Throws: ``Problem`` from `body`.
    package static func withReader<Result>(
        _ bytes: ArraySlice<UInt8>, _ body: (inout BinaryReader) throws(Problem) -> Result
    ) throws(Problem) -> Result {
        let outcome: Swift.Result<Result, Problem> = bytes.withUnsafeBytes { raw in
            var reader = BinaryReader(raw)
            do throws(Problem) {
                return .success(try body(&reader))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Bytes not read yet.
    package var remaining: Int { base.count - offset }

    /// Throws unless every byte has been read.
    ///
    /// - Throws: ``Problem/trailingBytes(offset:count:)``.
    package func expectEnd() throws(Problem) {
        guard remaining == 0 else { throw .trailingBytes(offset: offset, count: remaining) }
    }

    private mutating func take<Value: FixedWidthInteger>(_: Value.Type, _ field: String) throws(Problem) -> Value {
        let size = MemoryLayout<Value>.size
        guard remaining >= size else { throw .truncated(field: field, offset: offset, needed: size - remaining) }
        let value = base.loadUnaligned(fromByteOffset: offset, as: Value.self)
        offset += size
        return Value(littleEndian: value)
    }

    /// One byte.
    ///
    /// - Parameter field: the field's name, for the error.
    /// - Throws: ``Problem/truncated(field:offset:needed:)``.
    package mutating func readUInt8(_ field: String) throws(Problem) -> UInt8 { try take(UInt8.self, field) }

    /// 2 bytes, little-endian.
    ///
    /// - Parameter field: the field's name, for the error.
    /// - Throws: ``Problem/truncated(field:offset:needed:)``.
    package mutating func readUInt16(_ field: String) throws(Problem) -> UInt16 { try take(UInt16.self, field) }

    /// `count` raw bytes, as stored.
    ///
    /// - Parameters:
    ///   - count: how many (≤ ``remaining``, which ``readCount(_:elementSize:)`` checks).
    ///   - field: the field's name, for the error.
    /// - Throws: ``Problem/truncated(field:offset:needed:)``.
    /// - Complexity: O(count).
    package mutating func readBytes(_ count: Int, _ field: String) throws(Problem) -> [UInt8] {
        guard count >= 0, remaining >= count else {
            throw .truncated(field: field, offset: offset, needed: count - remaining)
        }
        let bytes = [UInt8](UnsafeRawBufferPointer(rebasing: base[offset..<offset + count]))
        offset += count
        return bytes
    }

    /// 4 bytes, little-endian.
    ///
    /// - Parameter field: the field's name, for the error.
    /// - Throws: ``Problem/truncated(field:offset:needed:)``.
    package mutating func readUInt32(_ field: String) throws(Problem) -> UInt32 { try take(UInt32.self, field) }

    /// 8 bytes, little-endian.
    ///
    /// - Parameter field: the field's name, for the error.
    /// - Throws: ``Problem/truncated(field:offset:needed:)``.
    package mutating func readUInt64(_ field: String) throws(Problem) -> UInt64 { try take(UInt64.self, field) }

    /// 8 bytes, little-endian two's complement.
    ///
    /// - Parameter field: the field's name, for the error.
    /// - Throws: ``Problem/truncated(field:offset:needed:)``.
    package mutating func readInt64(_ field: String) throws(Problem) -> Int64 { try take(Int64.self, field) }

    /// An 8-byte IEEE 754 value that must be finite (no writer stores NaN or an infinity).
    ///
    /// - Parameter field: the field's name, for the error.
    /// - Throws: ``Problem/truncated(field:offset:needed:)``; ``Problem/invalid(field:offset:reason:)``
    ///   for NaN or an infinity.
    package mutating func readFiniteDouble(_ field: String) throws(Problem) -> Double {
        let start = offset
        let value = Double(bitPattern: try take(UInt64.self, field))
        guard value.isFinite else { throw .invalid(field: field, offset: start, reason: "\(value) is not finite") }
        return value
    }

    /// A count for `elementSize`-byte elements that must fit in what is left of the payload, so
    /// that garbage cannot make a reader reserve gigabytes.
    ///
    /// - Parameters:
    ///   - field: the field's name, for the error.
    ///   - elementSize: the fewest bytes one element takes (≥ 1).
    /// - Throws: ``Problem``.
    package mutating func readCount(_ field: String, elementSize: Int) throws(Problem) -> Int {
        let start = offset
        let count = Int(try take(UInt32.self, field))
        guard count <= remaining / max(1, elementSize) else {
            throw .truncated(field: field, offset: start, needed: count * max(1, elementSize) - remaining)
        }
        return count
    }

    /// A `UInt32` byte count and that much UTF-8, which must be valid.
    ///
    /// - Parameter field: the field's name, for the error.
    /// - Throws: ``Problem``.
    package mutating func readString(_ field: String) throws(Problem) -> String {
        let count = try readCount(field, elementSize: 1)
        let start = offset
        let utf8 = UnsafeRawBufferPointer(rebasing: base[start..<start + count])
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw .invalid(field: field, offset: start, reason: "not valid UTF-8")
        }
        offset += count
        return string
    }
}
