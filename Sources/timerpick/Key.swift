/// A key the picker understands, decoded from the bytes a terminal sends in raw mode.
enum Key: Equatable {
    case up, down, left, right, pageUp, pageDown, enter, escape
    /// A decimal digit, 0–9.
    case digit(Int)
    /// Any other byte or sequence: ignored.
    case other

    /// Decodes every key in one read of the terminal.
    ///
    /// Arrows are `ESC [ A`…`ESC [ D` (or `ESC O A`… in application mode), page keys `ESC [ 5 ~` and `ESC [ 6 ~`
    /// (ECMA-48 and xterm's control sequences); Enter is CR or LF. A lone ESC, alone in its read, is the Escape
    /// key: a terminal sends a whole sequence in one write, so an ESC with nothing after it was typed by itself.
    ///
    /// - Parameter bytes: The bytes of one `read(2)`.
    /// - Returns: The keys in order.
    static func decode(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x0D, 0x0A:
                keys.append(.enter)
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                keys.append(.digit(Int(byte - UInt8(ascii: "0"))))
            case 0x1B:
                guard index < bytes.count else {
                    keys.append(.escape)
                    continue
                }
                let introducer = bytes[index]
                guard introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    continue
                }
                index += 1
                // Parameters (digits and ';') up to the final byte, 0x40–0x7E.
                var parameters: [UInt8] = []
                while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) {
                    parameters.append(bytes[index])
                    index += 1
                }
                guard index < bytes.count else {
                    keys.append(.other)
                    continue
                }
                let final = bytes[index]
                index += 1
                keys.append(sequence(final: final, parameters: parameters))
            default:
                keys.append(.other)
            }
        }
        return keys
    }

    private static func sequence(final: UInt8, parameters: [UInt8]) -> Key {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "~"):
            switch parameters {
            case [UInt8(ascii: "5")]: return .pageUp
            case [UInt8(ascii: "6")]: return .pageDown
            default: return .other
            }
        default: return .other
        }
    }
}
