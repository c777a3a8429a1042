extension JSONValue: JSONWritable {
    /// Writes the value as compact JSON, an object's keys in sorted order (as `JSONEncoder` with
    /// `.sortedKeys` does).
    ///
    /// - Parameter writer: the writer to append to.
    /// - Throws: ``JSONBytesWriter/NonFiniteNumber`` for a NaN or infinite number (a parsed value
    ///   never holds one).
    /// - Complexity: O(n log n) in the members of each object (their keys are sorted).
    package func write(to writer: inout JSONBytesWriter) throws(JSONBytesWriter.NonFiniteNumber) {
        switch self {
        case .null: writer.null()
        case .bool(let flag): writer.bool(flag)
        case .number(let number): try writer.number(number)
        case .string(let text): writer.string(text)
        case .array(let items):
            writer.raw("[")
            for (index, item) in items.enumerated() {
                if index > 0 { writer.raw(",") }
                try item.write(to: &writer)
            }
            writer.raw("]")
        case .object(let members):
            writer.raw("{")
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { writer.raw(",") }
                writer.string(key)
                writer.raw(":")
                try (members[key] ?? .null).write(to: &writer)
            }
            writer.raw("}")
        }
    }
}
