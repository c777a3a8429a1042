/// The text of a `timerctl bar` line: literal text and fields in braces, `{name} {remaining}`,
/// read once from `--format` and filled in for each line.
///
/// `{{` and `}}` stand for literal braces; a brace that opens or closes no field, an unknown field
/// and a line break are usage errors, found before timerctl connects.
struct BarTemplate: Equatable, Sendable {
    /// A value a template can show.
    enum Field: String, CaseIterable, Sendable {
        /// The timer's name, or its id when it has none.
        case name
        /// The timer's id.
        case id
        /// The time left, counted down locally: `0:24:59`, `1d 02:00:00`.
        case remaining
        /// The fraction completed as a whole percentage, rounded down: `42%`.
        case progress
        /// The state: `running`, `paused`, `finished`, `stopped`.
        case state
        /// The local time at which it ends (`14:30:05`, or `2026-12-02 14:30` on another day);
        /// empty unless it runs.
        case next
        /// One character for the state: `▶` running, `⏸` paused, `■` stopped, `✓` finished.
        case icon
    }

    /// A piece of the template.
    enum Part: Equatable, Sendable {
        /// Text printed as it is.
        case text(String)
        /// A field's value.
        case field(Field)
    }

    /// The default: `▶ tea 0:24:59`.
    static let standard = "{icon} {name} {remaining}"

    /// The pieces, in order.
    let parts: [Part]

    /// Reads a template.
    ///
    /// - Parameter text: the `--format` value.
    /// - Throws: ``ControlError/usage(_:verb:)`` naming the unknown field, the lone brace (with its
    ///   1-based character position) or the line break.
    init(parsing text: String) throws(ControlError) {
        var parts: [Part] = []
        var literal = ""
        var characters = Array(text)[...]
        var position = 0
        func fail(_ message: String) -> ControlError { .usage("--format: " + message, verb: .bar) }
        while let character = characters.popFirst() {
            position += 1
            switch character {
            case "\n", "\r", "\r\n":
                throw fail("a status-bar line cannot contain a line break")
            case "}":
                guard characters.first == "}" else {
                    throw fail("a lone '}' at character \(position): write '}}' for a brace")
                }
                characters.removeFirst()
                position += 1
                literal.append("}")
            case "{" where characters.first == "{":
                characters.removeFirst()
                position += 1
                literal.append("{")
            case "{":
                guard let end = characters.firstIndex(of: "}") else {
                    throw fail("the '{' at character \(position) opens no field: close it with '}' or write '{{'")
                }
                let name = String(characters[..<end])
                guard let field = Field(rawValue: name) else {
                    throw fail("unknown field '{\(name)}' (fields: \(Self.fieldList); '{{' and '}}' are braces)")
                }
                position += name.count + 1
                characters = characters[(end + 1)...]
                if !literal.isEmpty { parts.append(.text(literal)) }
                literal = ""
                parts.append(.field(field))
            default:
                literal.append(character)
            }
        }
        if !literal.isEmpty { parts.append(.text(literal)) }
        self.parts = parts
    }

    /// `{name} {id} {remaining} {progress} {state} {next} {icon}`.
    static var fieldList: String { Field.allCases.map { "{\($0.rawValue)}" }.joined(separator: " ") }

    /// The template filled in.
    ///
    /// - Parameter value: each field's text.
    /// - Returns: the line, without a line end.
    func render(_ value: (Field) -> String) -> String {
        parts.map { part in
            switch part {
            case .text(let text): return text
            case .field(let field): return value(field)
            }
        }.joined()
    }
}
