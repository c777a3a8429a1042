extension String {
    /// The string with leading zeros added up to `width` characters.
    ///
    /// - Parameters:
    ///   - width: the least number of characters of the result.
    ///   - pad: the character added in front (default `0`).
    /// - Returns: the padded string, or the string itself when it is already `width` long.
    package func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
