import Foundation
import Testing
import TimerProtocol

@testable import TimerControl

/// `timerctl logs`' text (RunsText), against Golden/timerctl-logs-output.txt, written by hand from
/// the format that `timerctl logs --help` and docs/actions.md describe.
@Suite("timerctl logs text")
struct RunsTextTests {
    private static func golden(_ name: String) throws -> String {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
        return try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("one block per run: local start, trigger, kind, exit status, then the output indented")
    func blocks() throws {
        // One run of each outcome, in UTC; the clock is fixed at UTC+1, so 09:30Z reads 10:30+01:00.
        let runs = [
            ActionRunInfo(
                kind: "exec", trigger: "finished", startedAt: "2026-11-29T09:30:00.000Z",
                endedAt: "2026-11-29T09:30:00.250Z", outcome: "exited", exitStatus: 3, output: "hello\nworld\n"),
            ActionRunInfo(
                kind: "exec", trigger: "missed", startedAt: "2026-11-29T10:00:00.000Z",
                endedAt: "2026-11-29T10:00:01.000Z", outcome: "signalled", exitStatus: 137, output: ""),
            ActionRunInfo(
                kind: "exec", trigger: "elapsed", startedAt: "2026-11-29T10:30:00.000Z",
                endedAt: "2026-11-29T10:31:00.000Z", outcome: "timed-out", exitStatus: 124, output: "tick",
                outputTruncated: true),
            ActionRunInfo(
                kind: "notify", trigger: "finished", startedAt: "2026-11-29T11:00:00.000Z",
                endedAt: "2026-11-29T11:00:00.000Z", outcome: "failed-to-start", exitStatus: 127),
            ActionRunInfo(
                kind: "exec", trigger: "finished", startedAt: "2026-11-29T11:30:00.000Z", endedAt: nil,
                outcome: "interrupted", exitStatus: nil),
            ActionRunInfo(
                kind: "exec", trigger: "finished", startedAt: "2026-11-29T12:00:00.000Z", endedAt: nil,
                outcome: "running", exitStatus: nil),
        ]
        let text = RunsText.render(
            ActionRunsResult(id: "1", name: "tea", runs: runs), clock: .fixed(offsetSeconds: 3_600))
        #expect(text == (try Self.golden("timerctl-logs-output.txt")), "\(text)")
    }

    @Test("a timer without runs says so")
    func empty() {
        #expect(
            RunsText.render(ActionRunsResult(id: "2", name: "plain", runs: []))
                == "timer 2 \"plain\" has no action runs\n")
        #expect(RunsText.render(ActionRunsResult(id: "3", name: nil, runs: [])) == "timer 3 has no action runs\n")
    }
}
