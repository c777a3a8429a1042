/// The rule for timer names, and the reference a person types to pick a timer (an id or a name).
///
/// A name is what a person calls a timer in their own language: 1–64 characters (extended
/// grapheme clusters, as `String.count` counts them) of printable Unicode text, compared and stored
/// in Normalization Form C (Unicode Standard Annex #15), so that `é` typed as U+00E9 and as `e` +
/// U+0301 are one name. It must not
/// - start with `-` (it would read as an option on a command line: `timerctl stop -x`);
/// - be all ASCII digits (that is how ids are written: `timerctl stop 3`), nor digits, a dot and
///   digits (how a group's steps are written: `5.1`);
/// - hold a control character (general category Cc), a line or paragraph separator (Zl, Zp),
///   a format character (Cf) other than U+200D ZERO WIDTH JOINER (which emoji sequences need), an
///   unassigned, private-use or surrogate code point (Cn, Co, Cs), or a space other than U+0020;
/// - start or end with a space.
///
/// The categories are the Unicode Character Database's, as `Unicode.Scalar.Properties` reports
/// them from the standard library's own tables (no ICU).
public enum TimerName {
    /// The longest allowed name, in characters (extended grapheme clusters).
    public static let maximumLength = 64

    /// The rule in words, for error messages.
    public static let rule =
        "a name is 1 to 64 printable characters in any script (spaces only inside), not starting with '-', "
        + "and not all digits (an id) or digits.digits (a group step)"

    /// `name` in Normalization Form C (canonical composition, UAX #15): the form in which names are
    /// stored, compared and shown, whatever a client sent.
    ///
    /// The composition is the standard library's own (the one `String`'s canonical-equivalence
    /// comparison uses), so it needs neither Foundation nor ICU and gives timerctl and timerd the
    /// same answer; a test checks it against Foundation's `precomposedStringWithCanonicalMapping`.
    ///
    /// - Parameter name: any text.
    /// - Returns: its NFC form (`"e\u{301}"` becomes `"\u{E9}"`).
    /// - Complexity: O(*n*) in the length of `name`.
    public static func normalized(_ name: String) -> String {
        // ASCII is its own NFC form: the common case needs no copy.
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name }
        return String(decoding: name._nfcCodeUnits, as: UTF8.self)
    }

    /// What is wrong with `name`, or `nil` when it follows the rule (checked on its NFC form).
    ///
    /// - Parameter name: the candidate name, as typed.
    /// - Returns: a short reason (`names may not start with '-' …`), or `nil`.
    public static func problem(with name: String) -> String? {
        let name = normalized(name)
        guard (1...maximumLength).contains(name.count) else {
            return name.isEmpty ? "a name cannot be empty" : "at most \(maximumLength) characters"
        }
        if name.hasPrefix("-") {
            return "names may not start with '-' (a command line would read it as an option)"
        }
        if name.hasPrefix(" ") || name.hasSuffix(" ") { return "no space at the start or the end" }
        if isID(name) { return "all digits is an id, not a name" }
        if isStepID(name) { return "digits.digits is a group step's id, not a name" }
        if let bad = name.unicodeScalars.first(where: { !isAllowed($0) }) {
            let hex = String(bad.value, radix: 16, uppercase: true)
            return "U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex) is not a printable character"
        }
        return nil
    }

    /// Whether `name` follows the rule (see ``problem(with:)``).
    ///
    /// - Parameter name: the candidate name, as typed.
    /// - Returns: `true` when its NFC form is 1–64 printable characters, not starting with `-` and
    ///   not an id or a step id.
    public static func isValid(_ name: String) -> Bool { problem(with: name) == nil }

    /// Whether a scalar may appear in a name: printable (see the type's rule).
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == " " || scalar == "\u{200D}" { return true }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return false
        default:
            return true
        }
    }

    /// Whether `text` is all ASCII digits (and not empty): an id.
    static func isID(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether `text` is an id, a dot and an id: a group step's id as `status --json` shows it (`5.1`).
    static func isStepID(_ text: some StringProtocol) -> Bool {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count == 2 && isID(parts[0]) && isID(parts[1])
    }
}

/// How a person or a client names a timer: by id (all digits), by a group step's id, or by name.
public enum TimerReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The timer's id, unique for the life of the daemon's state.
    case id(UInt64)
    /// The timer's name (NFC): the live timer of that name, else the most recently ended one.
    case name(String)
    /// Step `step` (from 1) of the group `group`, written `group.step`: it refers to the group.
    case step(group: UInt64, step: Int)

    /// Reads what a person typed: all digits is an id, a step id (`5.1`) refers to its group
    /// (`5`), and anything else is a name, normalized to NFC.
    ///
    /// A step id is accepted wherever an id is, since `status --json` shows the steps of a group
    /// with ids `ID.N` (N from 1): it refers to the group that holds the step, the unit that
    /// `stop`, `pause`, `resume` and `wait` act on and `status` shows. The step number must exist
    /// in that group (checked where the group is known: ``CountdownError/timerNotFound(_:)``).
    ///
    /// - Parameter text: the id, step id or name.
    /// - Throws: ``CountdownError/timerNotFound(_:)`` for an id too large to exist, and
    ///   ``CountdownError/invalidName(_:)`` for text that is neither an id nor a valid name.
    public init(parsing text: String) throws(CountdownError) {
        if TimerName.isID(text) {
            guard let id = UInt64(text) else { throw .timerNotFound(.name(text)) }
            self = .id(id)
        } else if TimerName.isStepID(text) {
            let parts = text.split(separator: ".")
            guard let group = UInt64(parts[0]), let step = Int(parts[1]), step >= 1 else {
                throw .timerNotFound(.name(text))
            }
            self = .step(group: group, step: step)
        } else if TimerName.isValid(text) {
            self = .name(TimerName.normalized(text))
        } else {
            throw .invalidName(text)
        }
    }

    /// The reference as a person types it: the id's digits or the name.
    public var description: String {
        switch self {
        case .id(let id): return String(id)
        case .name(let name): return name
        case .step(let group, let step): return "\(group).\(step)"
        }
    }
}
