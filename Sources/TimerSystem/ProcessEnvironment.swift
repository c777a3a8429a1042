import Glibc

/// The process environment as a dictionary, so that functions which read it can take it as a
/// parameter (and tests can pass their own).
public enum ProcessEnvironment {
    /// Every `NAME=VALUE` of `environ` (man environ(7)); the first wins when a name repeats.
    ///
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
}
