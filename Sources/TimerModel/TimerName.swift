/// The rule for timer names, and the reference a person types to pick a timer (an id or a name).
///
/// A name is 1–64 characters of `A-Z a-z 0-9 . _ -` and must not be all digits: all-digit text
/// is how ids are written (`timerctl stop 3`), so such a name could never be reached.
public enum TimerName {
    /// The longest allowed name, in characters.
    public static let maximumLength = 64

    /// The rule in words, for error messages.
    public static let rule =
        "use 1 to 64 characters of A-Z a-z 0-9 . _ - with at least one that is not a digit (all digits is an id)"

    /// Whether `name` follows the rule.
    ///
    /// - Parameter name: the candidate name.
    /// - Returns: `true` when it is 1–64 characters of `A-Z a-z 0-9 . _ -` and not all digits.
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...maximumLength).contains(bytes.count) else { return false }
        var hasNonDigit = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                hasNonDigit = true
            default: return false
            }
        }
        return hasNonDigit
    }
}

/// How a person or a client names a timer: by id (all digits) or by name.
public enum TimerReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The timer's id, unique for the life of the daemon's state.
    case id(UInt64)
    /// The timer's name: the live timer of that name, else the most recently ended one.
    case name(String)

    /// Reads what a person typed: all digits is an id, anything else a name.
    ///
    /// - Parameter text: the id or name.
    /// - Throws: ``CountdownError/timerNotFound(_:)`` for an id too large to exist, and
    ///   ``CountdownError/invalidName(_:)`` for text that is neither an id nor a valid name.
    public init(parsing text: String) throws(CountdownError) {
        if !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            guard let id = UInt64(text) else { throw .timerNotFound(.name(text)) }
            self = .id(id)
        } else if TimerName.isValid(text) {
            self = .name(text)
        } else {
            throw .invalidName(text)
        }
    }

    /// The reference as a person types it: the id's digits or the name.
    public var description: String {
        switch self {
        case .id(let id): return String(id)
        case .name(let name): return name
        }
    }
}
