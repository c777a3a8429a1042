import TimerModel

/// The members of one JSON object in the order they were sent, looked up by comparing names one by one.
///
/// A JSON-RPC request has four members and its `params` a handful (docs/protocol.md): for so few a
/// linear search by name is cheaper than hashing every name into a `Dictionary`, which cost
/// about a tenth of a pipelined `timer.start` (hashing, table allocation; callgrind).
/// Of duplicate names the first counts, as in ``JSONValue/object(_:)`` (and `JSONDecoder`): the
/// subscript returns the first member with the name; ``keys`` lists every name as sent.
package struct JSONMembers: Sendable, ExpressibleByDictionaryLiteral {
    /// The members, in the order sent (duplicates kept; the first of a name counts).
    package private(set) var members: [(key: String, value: JSONValue)]
    /// The source text of members whose value is an integer literal beyond ±2^53, where the
    /// `Double` of ``JSONValue/number(_:)`` rounds (filled by the request reader, in order).
    package var largeIntegerLiterals: [(key: String, text: String)] = []

    /// Creates the members from name–value pairs, in this order.
    ///
    /// - Parameter members: the pairs; of duplicate names the first counts.
    package init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// Creates the members of an object read into a dictionary (in the dictionary's order).
    ///
    /// - Parameter object: the object's members.
    package init(_ object: [String: JSONValue]) {
        members = object.map { (key: $0.key, value: $0.value) }
    }

    /// Creates the members from a literal, in its order.
    ///
    /// - Parameter elements: the pairs; of duplicate names the first counts.
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The value of the first member named `key`, or `nil`; setting replaces that member's value
    /// (or appends a member), and `nil` removes every member of the name.
    ///
    /// - Parameter key: the member's name, compared as `String`s are (canonical equivalence).
    /// - Complexity: O(n) in the number of members.
    package subscript(key: String) -> JSONValue? {
        get {
            // The byte count first (O(1) for native strings): names of other lengths are passed
            // without a full String comparison. Read in place through the buffer: iterating the
            // array copied (retained and released) every member's name and value.
            let count = key.utf8.count
            return members.withUnsafeBufferPointer { buffer -> JSONValue? in
                for index in buffer.indices where buffer[index].key.utf8.count == count && buffer[index].key == key {
                    return buffer[index].value
                }
                return nil
            }
        }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let index = members.firstIndex(where: { $0.key == key }) {
                members[index].value = newValue
            } else {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// The exact digits of the first member named `key` when it is an integer literal beyond
    /// ±2^53 (`"18446744073709551615"`, optionally with a leading `-`), or `nil`.
    ///
    /// - Parameter key: the member's name.
    package func largeIntegerLiteral(_ key: String) -> String? {
        guard let literal = largeIntegerLiterals.first(where: { $0.key == key }) else { return nil }
        let digits = literal.text.utf8.drop { $0 == UInt8(ascii: "-") }
        guard literal.text.utf8.count - digits.count <= 1, !digits.isEmpty,
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return literal.text
    }

    /// Every member's name, in the order sent (a duplicate name appears again).
    package var keys: [String] { members.map(\.key) }

    /// Whether there are no members.
    package var isEmpty: Bool { members.isEmpty }

    /// The members that `isIncluded` accepts, in the same order.
    ///
    /// - Parameter isIncluded: the test of one member.
    /// - Returns: those members.
    package func filter(_ isIncluded: ((key: String, value: JSONValue)) throws -> Bool) rethrows -> JSONMembers {
        var kept = JSONMembers(try members.filter(isIncluded))
        let keys = Set(kept.members.map(\.key))
        kept.largeIntegerLiterals = largeIntegerLiterals.filter { keys.contains($0.key) }
        return kept
    }

    /// The members as a dictionary, the first of duplicate names kept (as ``JSONValue/object(_:)`` holds them).
    package var dictionary: [String: JSONValue] {
        var object = [String: JSONValue](minimumCapacity: members.count)
        for member in members where object[member.key] == nil { object[member.key] = member.value }
        return object
    }
}
