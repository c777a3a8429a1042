extension ISO8601 {
    /// An ISO 8601 date-time with `Z` or an offset but without seconds (`2026-12-24T18:00+01:00`,
    /// which ISO 8601 allows) with `:00` seconds added (`2026-12-24T18:00:00+01:00`), the form
    /// ``date(from:)`` and the wire read; any other text is returned unchanged.
    ///
    /// - Parameter text: the text as typed.
    /// - Returns: the text with seconds, or `text` itself.
    public static func completingSeconds(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let isZulu = bytes.count == 17 && (bytes.last == UInt8(ascii: "Z") || bytes.last == UInt8(ascii: "z"))
        let isOffset =
            bytes.count == 22 && (bytes[16] == UInt8(ascii: "+") || bytes[16] == UInt8(ascii: "-"))
            && bytes[19] == UInt8(ascii: ":")
        guard isZulu || isOffset, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"), bytes[13] == UInt8(ascii: ":")
        else { return text }
        return String(decoding: bytes[..<16] + Array(":00".utf8) + bytes[16...], as: UTF8.self)
    }
}
