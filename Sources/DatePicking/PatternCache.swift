import Foundation

/// A process-wide cache of localized date patterns, shared by every picker.
///
/// Foundation and Dispatch only (no `Synchronization`), so an `NSLock` guards the dictionary.
final class PatternCache: @unchecked Sendable {
    static let shared = PatternCache()
    private let lock = NSLock()
    private var patterns: [String: String] = [:]

    func value(for key: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return patterns[key]
    }

    func store(_ pattern: String, for key: String) {
        lock.lock()
        defer { lock.unlock() }
        patterns[key] = pattern
    }
}
