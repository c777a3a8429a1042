/// How many terminal columns a string takes: 2 for East Asian wide and full-width characters, 0 for combining
/// marks and format characters, 1 for everything else.
///
/// A simplified reading of Unicode Standard Annex #11 (East Asian Width, categories W and F) and of `wcwidth`,
/// enough for the titles ICU gives the picker (CJK months and eras, Hangul, Hebrew and Arabic letters and digits)
/// and for timer names in `timerctl watch`. Shared by timerpick and timerctl (standard library only, no ICU).
package enum DisplayWidth {
    /// The columns `text` occupies.
    ///
    /// - Complexity: O(n) in the number of Unicode scalars.
    package static func of(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + of($1) }
    }

    /// The columns one scalar occupies (0, 1 or 2).
    package static func of(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        let value = scalar.value
        let wide: [ClosedRange<UInt32>] = [
            0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
        ]
        return wide.contains { $0.contains(value) } ? 2 : 1
    }

    /// `text` cut to at most `columns` columns, never splitting a wide character.
    package static func truncated(_ text: String, to columns: Int) -> String {
        var used = 0
        var result = ""
        for character in text {
            let width = of(String(character))
            if used + width > columns { break }
            used += width
            result.append(character)
        }
        return result
    }

    /// `text` centred in `columns` columns with spaces (extra space on the right).
    package static func centred(_ text: String, in columns: Int) -> String {
        let free = max(columns - of(text), 0)
        return String(repeating: " ", count: free / 2) + text + String(repeating: " ", count: free - free / 2)
    }
}
