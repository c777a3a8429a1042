import Foundation
import Testing
import TimerProtocol

/// The version is kept in one place, the VERSION file at the package root (which scripts/package-deb,
/// scripts/install and the man pages' headers use); `ServiceVersion.version` is the Swift copy that
/// `--version` and `daemon.ping` print, pinned to it here in the fast tests (and through the built
/// binaries in EndToEndTests/ManPageTests).
@Suite("One version")
struct VersionTests {
    @Test("ServiceVersion.version is the VERSION file's content")
    func pinnedToFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let file = try String(contentsOf: root.appendingPathComponent("VERSION"), encoding: .utf8)
        #expect(file == ServiceVersion.version + "\n", "VERSION says \(file.debugDescription)")
        // X.Y.Z, the form scripts/package-deb requires of VERSION.
        let parts = ServiceVersion.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) })
    }
}

extension Character {
    /// `0`…`9` only.
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
