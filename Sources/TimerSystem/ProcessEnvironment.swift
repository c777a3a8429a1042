import Glibc

/// The process environment: the one place the service reads it.
///
/// Functions that depend on the environment take it as a `[String: String]` parameter
/// (``current()``), so tests can pass their own; ``value(_:)`` reads one variable.
public enum ProcessEnvironment {
    /// Every `NAME=VALUE` of `environ` (man environ(7)); the first wins when a name repeats.
    ///
    /// - Returns: the variables by name.
    /// - Complexity: O(n) in the size of the environment.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }

    /// The variable `name`, or `nil` when it is unset or empty (an empty `HOME=` means "not set" for
    /// the service; `TZ` is read with ``valueIfSet(_:)``, as an empty `TZ` means UTC).
    ///
    /// - Parameter name: the variable's name.
    /// - Returns: its value, or `nil`.
    public static func value(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// The variable `name` as it is set, `""` when set but empty, `nil` when unset (for `TZ`, whose
    /// empty value means UTC in tzset(3)).
    ///
    /// - Parameter name: the variable's name.
    /// - Returns: its value, or `nil`.
    public static func valueIfSet(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
