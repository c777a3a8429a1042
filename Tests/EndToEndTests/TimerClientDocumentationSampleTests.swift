import Foundation
import Testing
import TimerClient
import TimerProtocol

// sample-begin
/// Starts a 1-second timer named "tea" and returns it once it has ended.
func brewTea(socketPath: String? = nil) async throws -> TimerInfo {
    let client = try await TimerClient.connect(path: socketPath, autostart: .whenNotRunning)
    let tea = try await client.start(durations: [1], name: "tea")
    print("started timer \(tea.id) (\(tea.name ?? "-")), ends at \(tea.endsAt ?? "-")")
    let ended = try await client.wait(for: tea.id)
    print("timer \(ended.id) \(ended.state.rawValue)")  // timer 1 finished
    return ended
}
// sample-end

/// The sample of Sources/TimerClient/TimerClient.docc/TimerClient.md and of README.md's "Swift
/// client": the function above is that text (checked line for line), run against the real timerd.
@Suite("TimerClient DocC and README sample")
struct TimerClientDocumentationSampleTests {
    /// The repository's root, from this file's path (Tests/EndToEndTests/…).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The lines of the first ```swift block of `text` that holds `func brewTea`, without its imports
    /// and the blank line after them.
    static func sample(in text: String) -> [Substring] {
        let blocks = text.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        guard let block = blocks.first(where: { $0.contains("func brewTea") }) else { return [] }
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false).drop {
            $0.hasPrefix("import ") || $0.isEmpty
        }
        return withoutTrailingBlanks(Array(lines))
    }

    /// `lines` without the empty lines at their end.
    static func withoutTrailingBlanks(_ lines: [Substring]) -> [Substring] {
        var lines = lines
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    @Test("The DocC catalog and the README show exactly the function this file runs")
    func textMatches() throws {
        let own = try String(contentsOfFile: #filePath, encoding: .utf8)
        let begin = try #require(own.range(of: "// sample-begin\n"))
        let end = try #require(own.range(of: "// sample-end\n"))
        let code = Self.withoutTrailingBlanks(
            own[begin.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false))
        #expect(code.count == 9)
        for file in ["Sources/TimerClient/TimerClient.docc/TimerClient.md", "README.md"] {
            let text = try String(contentsOfFile: Self.root + "/" + file, encoding: .utf8)
            #expect(Self.sample(in: text) == code, "\(file)")
        }
    }

    @Test("The sample starts timer 1 and returns it finished")
    func runs() async throws {
        let harness = try Harness()
        try harness.startDaemon()
        let ended = try await brewTea(socketPath: harness.socketPath)
        // The first timer of a new state directory is 1; it ran its whole second.
        #expect(ended.id == "1" && ended.name == "tea" && ended.state == .finished && ended.remaining == 0)
    }
}
