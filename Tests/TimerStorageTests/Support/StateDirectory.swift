import Foundation
import Glibc

/// A private temporary state directory (`/tmp/timerd-journal-XXXXXX`, mkdtemp(3)), removed with
/// everything in it when released.
final class StateDirectory {
    /// Its path.
    let path: String

    init() throws {
        var template = Array("/tmp/timerd-journal-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// `path/journal`.
    var journal: String { path + "/journal" }

    /// The whole content of `file`.
    func bytes(_ file: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: file))) }

    /// Replaces the content of `file` with `bytes`.
    func write(_ bytes: [UInt8], to file: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: file)) }
}
