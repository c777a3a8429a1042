/// The rows a statement returned, in PostgreSQL's text format (one `String?` per column, `nil`
/// for SQL NULL), and how many rows it changed.
public struct PostgresRows: Sendable, Equatable {
    /// The column names, in order.
    public var columns: [String]
    /// Each row's values, in column order; `nil` is SQL NULL.
    public var rows: [[String?]]
    /// The rows an `INSERT`, `UPDATE`, `DELETE` or `SELECT` touched (`PQcmdTuples`), 0 for others.
    public var affected: Int

    /// Rows as given.
    ///
    /// - Parameters:
    ///   - columns: the column names.
    ///   - rows: the values.
    ///   - affected: the rows the command touched.
    public init(columns: [String], rows: [[String?]], affected: Int) {
        self.columns = columns
        self.rows = rows
        self.affected = affected
    }

    /// The value in `row` of `column` read as an integer.
    ///
    /// - Parameters:
    ///   - row: the row index (0 ..< `rows.count`).
    ///   - column: the column index.
    /// - Returns: the integer, or `nil` for NULL, an index out of range or text that is no integer.
    public func int64(_ row: Int, _ column: Int) -> Int64? {
        guard let text = value(row, column) else { return nil }
        return Int64(text)
    }

    /// The text in `row` of `column`.
    ///
    /// - Parameters:
    ///   - row: the row index.
    ///   - column: the column index.
    /// - Returns: the text, or `nil` for NULL or an index out of range.
    public func value(_ row: Int, _ column: Int) -> String? {
        guard rows.indices.contains(row), rows[row].indices.contains(column) else { return nil }
        return rows[row][column]
    }

    /// The `bytea` in `row` of `column`, decoded from PostgreSQL's hex output format (`\x0a1b…`,
    /// the default since PostgreSQL 9.0; documentation section 8.4.1).
    ///
    /// - Parameters:
    ///   - row: the row index.
    ///   - column: the column index.
    /// - Returns: the bytes, or `nil` for NULL, an index out of range or text not in hex format.
    /// - Complexity: O(n) in the bytes.
    public func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        guard let text = value(row, column) else { return nil }
        return Self.decodeHex(text)
    }

    /// Bytes written in PostgreSQL's `bytea` hex format: `\x` then two lowercase hex digits each.
    ///
    /// - Parameter bytes: the bytes.
    /// - Returns: the text to pass as a `bytea` parameter.
    /// - Complexity: O(n).
    public static func encodeHex(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Bytes read back from `bytea` hex format.
    ///
    /// - Parameter text: `\x` and an even number of hex digits.
    /// - Returns: the bytes, or `nil` when the text is not in that form.
    /// - Complexity: O(n).
    public static func decodeHex(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
