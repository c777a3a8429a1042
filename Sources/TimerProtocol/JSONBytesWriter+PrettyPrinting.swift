extension JSONBytesWriter {
    /// Re-indents compact JSON (as this writer writes it) the way `JSONEncoder` with `.prettyPrinted`
    /// does: two spaces per level, `"key" : value`, one member or element per line, and an empty
    /// array or object as its brackets around an empty line. `timerctl --json` prints this.
    ///
    /// Only layout changes: strings and numbers are copied byte for byte, so the figures stay
    /// exactly as written.
    ///
    /// - Parameter compact: JSON without insignificant whitespace.
    /// - Returns: the pretty-printed bytes, without a trailing newline.
    /// - Complexity: O(n) in the number of bytes.
    package static func prettyPrinted(_ compact: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(compact.count * 2)
        var depth = 0
        var index = 0
        func newline(_ output: inout [UInt8], _ depth: Int) {
            output.append(UInt8(ascii: "\n"))
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
        }
        while index < compact.count {
            let byte = compact[index]
            switch byte {
            case UInt8(ascii: "\""):
                // Copy the whole string, escapes included.
                output.append(byte)
                index += 1
                while index < compact.count {
                    let inner = compact[index]
                    output.append(inner)
                    index += 1
                    if inner == UInt8(ascii: "\\"), index < compact.count {
                        output.append(compact[index])
                        index += 1
                    } else if inner == UInt8(ascii: "\"") {
                        break
                    }
                }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                output.append(byte)
                depth += 1
                let next = index + 1 < compact.count ? compact[index + 1] : 0
                if next == UInt8(ascii: "}") || next == UInt8(ascii: "]") {
                    output.append(UInt8(ascii: "\n"))  // `JSONEncoder` leaves an empty line inside
                } else {
                    newline(&output, depth)
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline(&output, depth)
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                newline(&output, depth)
            case UInt8(ascii: ":"):
                output.append(contentsOf: [UInt8(ascii: " "), byte, UInt8(ascii: " ")])
            default:
                output.append(byte)
            }
            index += 1
        }
        return output
    }
}
