// Over 450 lines on purpose: the one JSON reader of the package (RFC 8259 and the leniencies JSONDecoder
// had) is kept in one file, so that its grammar reads top to bottom.
import TimerModel

extension JSONValue {
    /// Parses one JSON text (RFC 8259) from UTF-8 bytes without `JSONDecoder`, or returns `nil`.
    ///
    /// The daemon reads every request line with this: decoding a schema-less `JSONValue` tree with
    /// `JSONDecoder` cost about a third of a durable `timer.start` (docs/performance.md). The
    /// grammar is RFC 8259's, as strict as `JSONDecoder`: whitespace is space, tab, CR and LF only;
    /// numbers have no leading zeros, `+` or bare `.`, and must be finite doubles; strings reject
    /// control characters and invalid escapes, and join `\u` surrogate pairs (an unpaired surrogate
    /// is refused). Of duplicate keys the first wins, as with `JSONDecoder`. Nesting deeper than ``maximumDepth`` is
    /// refused, so a 64 KiB line of `[` cannot exhaust the stack.
    ///
    /// This strict form refuses a trailing comma (`[1,]`, `{"a":1,}`); ``init(parsing:leniency:)``
    /// with ``Leniency/foundationCompatible`` accepts what `JSONDecoder` accepted besides.
    ///
    /// - Parameter bytes: the text, UTF-8 (invalid UTF-8 is refused).
    /// - Returns: the value, or `nil` when the bytes are not one JSON value.
    /// - Complexity: O(n) in the number of bytes.
    public init?(parsing bytes: [UInt8]) {
        self.init(parsing: bytes, leniency: .strict)
    }

    /// Parses one JSON text, strictly (RFC 8259, UTF-8) or with what `JSONDecoder` accepts besides.
    ///
    /// ``Leniency/foundationCompatible`` is how the daemon reads requests: it accepted them with
    /// `JSONDecoder` once, so a request that worked then works now. It adds a trailing comma before
    /// `]` or `}`, a UTF-8 byte order mark, and UTF-16 or UTF-32 text (found by its byte order mark or
    /// its zero bytes).
    ///
    /// - Parameters:
    ///   - bytes: the text.
    ///   - leniency: which inputs beyond RFC 8259 in UTF-8 to accept.
    /// - Returns: the value, or `nil` when the bytes are not one JSON value.
    /// - Complexity: O(n) in the number of bytes.
    public init?(parsing bytes: [UInt8], leniency: Leniency) {
        var bytes = bytes
        if leniency == .foundationCompatible {
            guard let text = Self.utf8Text(bytes) else { return nil }
            bytes = text
        }
        let parsed: JSONValue?? = bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONByteParser(bytes: buffer, allowsTrailingComma: leniency == .foundationCompatible)
            guard let value = parser.parseValue(depth: 0) else { return .none }
            parser.skipWhitespace()
            return parser.index == buffer.count ? .some(value) : .none
        }
        guard case .some(.some(let value)) = parsed else { return nil }
        self = value
    }

    /// Reads a request line: the members of its top-level object, and those of its `params`
    /// member when that is an object, without building dictionaries (``JSONMembers``).
    ///
    /// The grammar, leniency, depth limit and first-wins rule are ``init(parsing:leniency:)``'s; it
    /// accepts exactly the texts that parse there as an object. Only the first `params` member is
    /// split out (it is the one that counts); the top-level ``JSONMembers`` then holds an empty
    /// object in its place, so read `params`, not the member. Every other value, nested objects
    /// included, is a ``JSONValue`` as ``init(parsing:leniency:)`` makes it.
    ///
    /// - Parameters:
    ///   - bytes: the line, without its newline.
    ///   - leniency: which inputs beyond RFC 8259 in UTF-8 to accept.
    /// - Returns: the members and the `params` members (`nil` when `params` is absent or not an
    ///   object), and the first name that an object of the text (at any depth) has twice, which
    ///   the daemon refuses (a proxy that reads the last of duplicates would see another
    ///   request); or `nil` when the text is not JSON or not an object (parse it with
    ///   ``init(parsing:leniency:)`` to tell which).
    /// - Complexity: O(n) in the number of bytes; a member is found in O(members).
    package static func requestMembers(parsing bytes: [UInt8], leniency: Leniency) -> (
        members: JSONMembers, params: JSONMembers?, duplicateKey: String?
    )? {
        var bytes = bytes
        if leniency == .foundationCompatible {
            guard let text = Self.utf8Text(bytes) else { return nil }
            bytes = text
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONByteParser(bytes: buffer, allowsTrailingComma: leniency == .foundationCompatible)
            parser.skipWhitespace()
            guard parser.index < buffer.count, buffer[parser.index] == UInt8(ascii: "{"),
                let members = parser.parseMembers(depth: 1, splittingParams: true)
            else { return nil }
            parser.skipWhitespace()
            guard parser.index == buffer.count else { return nil }
            return (members, parser.params, parser.duplicateKey)
        }
    }

    /// The exact text of an integer number that is a member of the top-level object, or `nil`.
    ///
    /// A ``JSONValue/number(_:)`` is a `Double`, which rounds integers beyond ±2^53
    /// (`9007199254740993` reads as `9007199254740992`). JSON-RPC 2.0 §4 asks a server to answer with
    /// the request's `id` unchanged, so the daemon asks for the id's digits with this when the number
    /// read is that large.
    ///
    /// - Parameters:
    ///   - key: the member's name, e.g. `"id"`; of duplicate keys the first counts, as in
    ///     ``init(parsing:leniency:)``.
    ///   - bytes: the whole JSON text, as given to ``init(parsing:leniency:)``.
    ///   - leniency: the leniency the text was parsed with.
    /// - Returns: the member's text (`-?[0-9]+`, no fraction or exponent) when the text is a valid
    ///   object whose member `key` is an integer literal; otherwise `nil`.
    /// - Complexity: O(n) in the number of bytes (the text is read again).
    package static func integerLiteral(ofMember key: String, in bytes: [UInt8], leniency: Leniency) -> String? {
        guard let text = leniency == .foundationCompatible ? utf8Text(bytes) : bytes else { return nil }
        return text.withUnsafeBufferPointer { buffer -> String? in
            var parser = JSONByteParser(bytes: buffer, allowsTrailingComma: leniency == .foundationCompatible)
            parser.capturedKey = key
            guard case .some(.object) = parser.parseValue(depth: 0) else { return nil }
            parser.skipWhitespace()
            guard parser.index == buffer.count, let literal = parser.capturedLiteral else { return nil }
            let digits = literal.utf8.drop(while: { $0 == UInt8(ascii: "-") })
            guard literal.utf8.count - digits.count <= 1, !digits.isEmpty,
                digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            return literal
        }
    }

    /// The deepest nesting of arrays and objects ``init(parsing:)`` accepts.
    public static let maximumDepth = 512

    /// Which inputs beyond RFC 8259 in UTF-8 the parser accepts.
    public enum Leniency: Sendable, Hashable {
        /// RFC 8259 in UTF-8, nothing else.
        case strict
        /// Also what `JSONDecoder` accepted: trailing commas, a UTF-8 byte order mark, UTF-16 and UTF-32.
        case foundationCompatible
    }

    /// `bytes` as UTF-8 without a byte order mark, decoding UTF-16 or UTF-32 first.
    ///
    /// The encoding is read as `JSONDecoder` reads it: a byte order mark (`EF BB BF` UTF-8,
    /// `FE FF` UTF-16BE, `FF FE 00 00` UTF-32LE, `FF FE` UTF-16LE, `00 00 FE FF` UTF-32BE), else the
    /// zero bytes that JSON's ASCII first character leaves (RFC 4627 §3): `00 00 00 xx` UTF-32BE,
    /// `xx 00 00 00` UTF-32LE, `00 xx` UTF-16BE, `xx 00` UTF-16LE; else UTF-8.
    ///
    /// - Parameter bytes: the text as received.
    /// - Returns: its UTF-8 bytes, or `nil` when it is not valid in the encoding found.
    /// - Complexity: O(n); UTF-8 input without a byte order mark is returned as is.
    static func utf8Text(_ bytes: [UInt8]) -> [UInt8]? {
        func starts(_ prefix: [UInt8]) -> Bool { bytes.count >= prefix.count && bytes.starts(with: prefix) }
        if starts([0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
        if starts([0x00, 0x00, 0xFE, 0xFF]) { return transcode(bytes.dropFirst(4), width: 4, bigEndian: true) }
        if starts([0xFF, 0xFE, 0x00, 0x00]) { return transcode(bytes.dropFirst(4), width: 4, bigEndian: false) }
        if starts([0xFE, 0xFF]) { return transcode(bytes.dropFirst(2), width: 2, bigEndian: true) }
        if starts([0xFF, 0xFE]) { return transcode(bytes.dropFirst(2), width: 2, bigEndian: false) }
        if bytes.count >= 4 {
            if bytes[0] == 0, bytes[1] == 0, bytes[2] == 0 { return transcode(bytes[...], width: 4, bigEndian: true) }
            if bytes[1] == 0, bytes[2] == 0, bytes[3] == 0 { return transcode(bytes[...], width: 4, bigEndian: false) }
        }
        if bytes.count >= 2 {
            if bytes[0] == 0 { return transcode(bytes[...], width: 2, bigEndian: true) }
            if bytes[1] == 0 { return transcode(bytes[...], width: 2, bigEndian: false) }
        }
        return bytes
    }

    /// UTF-16 (`width` 2) or UTF-32 (`width` 4) code units to UTF-8; `nil` when invalid.
    private static func transcode(_ bytes: ArraySlice<UInt8>, width: Int, bigEndian: Bool) -> [UInt8]? {
        guard bytes.count % width == 0 else { return nil }
        var units: [UInt32] = []
        units.reserveCapacity(bytes.count / width)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            var unit: UInt32 = 0
            for offset in 0..<width {
                let byte = UInt32(bytes[index + (bigEndian ? offset : width - 1 - offset)])
                unit = unit << 8 | byte
            }
            units.append(unit)
            index += width
        }
        var output: [UInt8] = []
        output.reserveCapacity(units.count)
        if width == 4 {
            for unit in units {
                guard let scalar = Unicode.Scalar(unit) else { return nil }
                output.append(contentsOf: scalar.utf8)
            }
            return output
        }
        var decoder = UTF16()
        var iterator = units.lazy.map { UInt16(truncatingIfNeeded: $0) }.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): output.append(contentsOf: scalar.utf8)
            case .emptyInput: return output
            case .error: return nil
            }
        }
    }
}

/// A recursive-descent reader over one buffer; every method returns `nil` on invalid input.
private struct JSONByteParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var allowsTrailingComma = false
    var index = 0
    /// A top-level member whose value's source text to keep (``JSONValue/integerLiteral(ofMember:in:leniency:)``).
    var capturedKey: String?
    /// The source text of `capturedKey`'s value, when it was a number.
    var capturedLiteral: String?
    /// The members of the request's `params` object, split out by ``parseMembers(depth:splittingParams:)``.
    var params: JSONMembers?
    /// The first member name found twice in one object, at any depth.
    var duplicateKey: String?

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return parseString().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return parseNumber().map(JSONValue.number)
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    private mutating func parseObject(depth: Int) -> JSONValue? {
        guard depth <= JSONValue.maximumDepth else { return nil }
        index += 1  // {
        // Room for a request's members without regrowing (jsonrpc, id, method, params): growing
        // from empty would rehash the table twice per request.
        var object = [String: JSONValue](minimumCapacity: 4)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            guard let key = parseMemberName() else { return nil }
            let valueStart = index
            guard let value = parseValue(depth: depth) else { return nil }
            // The first wins, as in JSONDecoder: one hash probe inserts `value` only when absent.
            var isNew = false
            Self.touch(&object[key, default: Self.marking(value, &isNew)])
            if !isNew, duplicateKey == nil { duplicateKey = key }
            if isNew {
                if depth == 1, key == capturedKey, case .number = value {
                    capturedLiteral = String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<index]), as: UTF8.self)
                }
            }
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                if skipsTrailingComma(before: UInt8(ascii: "}")) { return .object(object) }
            case UInt8(ascii: "}"):
                index += 1
                return .object(object)
            default: return nil
            }
        }
    }

    /// A member's name and its `:` (whitespace around both skipped): the index is then at the value.
    /// `nil` when no string and colon are there.
    private mutating func parseMemberName() -> String? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = parseString() else { return nil }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        skipWhitespace()
        return key
    }

    /// The members of an object (the index at its `{`), in order: ``parseObject(depth:)``'s grammar
    /// without the dictionary. With `splittingParams`, the value of the first member named
    /// `params`, when it is an object, is read the same way into ``params`` (an empty object
    /// stands in its place among the members).
    mutating func parseMembers(depth: Int, splittingParams: Bool) -> JSONMembers? {
        guard depth <= JSONValue.maximumDepth else { return nil }
        index += 1  // {
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(4)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return JSONMembers(members)
        }
        var sawParams = false
        var largeIntegers: [(key: String, text: String)] = []
        // Names seen, for the duplicate check once there are many (a scan of a few is cheaper).
        var names: Set<String> = []
        while true {
            guard let key = parseMemberName() else { return nil }
            if duplicateKey == nil {
                if members.count < 16 {
                    if members.contains(where: { $0.key == key }) { duplicateKey = key }
                } else {
                    if names.isEmpty { names = Set(members.map(\.key)) }
                    if !names.insert(key).inserted { duplicateKey = key }
                }
            }
            let isParams = splittingParams && !sawParams && key == "params"
            if isParams { sawParams = true }
            if isParams, index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                guard let inner = parseMembers(depth: depth + 1, splittingParams: false) else { return nil }
                params = inner
                members.append((key: key, value: .object([:])))
            } else {
                let valueStart = index
                guard let value = parseValue(depth: depth) else { return nil }
                if case .number(let number) = value, abs(number) >= 9_007_199_254_740_992 {  // 2^53
                    largeIntegers.append(
                        (key, String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<index]), as: UTF8.self))
                    )
                }
                members.append((key: key, value: value))
            }
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                if skipsTrailingComma(before: UInt8(ascii: "}")) { return Self.members(members, largeIntegers) }
            case UInt8(ascii: "}"):
                index += 1
                return Self.members(members, largeIntegers)
            default: return nil
            }
        }
    }

    /// `value`, recording that it was used (the default of a dictionary subscript is evaluated
    /// only when the key is absent).
    /// `members` with the source text of their large integers (``JSONMembers/largeIntegerLiterals``).
    private static func members(
        _ members: [(key: String, value: JSONValue)], _ largeIntegers: [(key: String, text: String)]
    ) -> JSONMembers {
        var result = JSONMembers(members)
        result.largeIntegerLiterals = largeIntegers
        return result
    }

    private static func marking(_ value: JSONValue, _ isNew: inout Bool) -> JSONValue {
        isNew = true
        return value
    }

    /// Accesses a dictionary slot for writing, which inserts a subscript's default when absent.
    private static func touch(_ slot: inout JSONValue) {}

    private mutating func parseArray(depth: Int) -> JSONValue? {
        guard depth <= JSONValue.maximumDepth else { return nil }
        index += 1  // [
        var array: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(array)
        }
        while true {
            guard let value = parseValue(depth: depth) else { return nil }
            array.append(value)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                if skipsTrailingComma(before: UInt8(ascii: "]")) { return .array(array) }
            case UInt8(ascii: "]"):
                index += 1
                return .array(array)
            default: return nil
            }
        }
    }

    /// After a comma: whether a trailing comma is allowed and `close` follows (then consumed).
    private mutating func skipsTrailingComma(before close: UInt8) -> Bool {
        guard allowsTrailingComma else { return false }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == close else { return false }
        index += 1
        return true
    }

    /// A string starting at the opening quote.
    private mutating func parseString() -> String? {
        index += 1  // "
        let start = index
        var isASCII = true
        // Fast path: no escapes, ASCII or valid UTF-8 up to the closing quote.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                // ASCII is valid UTF-8: `decoding` then replaces nothing, and skips the generic
                // validation (a tenth of a pipelined start in callgrind).
                // The request's recurring strings are handed out as literals (JSONKnownText).
                guard isASCII else { return String(validating: text, as: UTF8.self) }
                return JSONKnownText.text(text) ?? String(decoding: text, as: UTF8.self)
            }
            if byte >= 0x80 { isASCII = false }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(validating: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = parseUnicodeEscape() else { return nil }
                    scalars.append(contentsOf: String(Character(scalar)).utf8)
                default: return nil
                }
            default:
                if byte < 0x20 { return nil }
                scalars.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape with its four hex digits (the `\u` already read), joining a surrogate pair.
    private mutating func parseUnicodeEscape() -> Unicode.Scalar? {
        guard let high = parseHex4() else { return nil }
        if high < 0xD800 || high > 0xDFFF { return Unicode.Scalar(high) }
        guard high < 0xDC00, bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
            bytes[index + 1] == UInt8(ascii: "u")
        else { return nil }
        index += 2
        guard let low = parseHex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private mutating func parseHex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// 10^0 … 10^22, every one an exact Double.
    private static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { power, _ in power * 10 }
    }

    /// A number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a finite Double.
    private mutating func parseNumber() -> Double? {
        let start = index
        func isDigit(_ at: Int) -> Bool {
            at < bytes.count && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { return nil }
        var integer: Int64 = 0
        var isSmallInteger = true
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while isDigit(index) {
                if integer < 1 << 52 {
                    integer = integer * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                } else {
                    isSmallInteger = false
                }
                index += 1
            }
        }
        var fraction: (mantissa: Int64, digits: Int)?
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { return nil }
            // The digits after the point join the integer's into one mantissa while it stays exact.
            var mantissa = isSmallInteger ? integer : -1
            var digits = 0
            while isDigit(index) {
                if mantissa >= 0, mantissa < 100_000_000_000_000 {  // 10^14: one more digit stays < 10^15
                    mantissa = mantissa * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                    digits += 1
                } else {
                    mantissa = -1
                }
                index += 1
            }
            if mantissa >= 0 { fraction = (mantissa, digits) }
            isSmallInteger = false
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isSmallInteger = false
            fraction = nil
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard isDigit(index) else { return nil }
            while isDigit(index) { index += 1 }
        }
        if isSmallInteger, integer < 1 << 53 {
            let magnitude = Double(integer)
            return bytes[start] == UInt8(ascii: "-") ? -magnitude : magnitude
        }
        if let fraction, fraction.digits <= 22 {
            // Clinger's fast path: a mantissa below 10^15 (< 2^53) and 10^digits (≤ 10^22) are both
            // exact Doubles, so one IEEE division rounds correctly, to what strtod returns for
            // the text (`86400.0`, `0.25`); a String and strtod would cost an allocation and a copy per number.
            let magnitude = Double(fraction.mantissa) / Self.powersOfTen[fraction.digits]
            return bytes[start] == UInt8(ascii: "-") ? -magnitude : magnitude
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
