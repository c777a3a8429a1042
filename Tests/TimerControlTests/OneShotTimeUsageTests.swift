import Testing
import TimerProtocol

@testable import TimerControl

/// Issue 13: `timerctl start --at` checks the richer one-shot forms locally, before connecting, and
/// refuses bad ones with exit 64 and a message that says what is wrong and what is allowed.
@Suite("timerctl start --at: one-shot forms checked before sending")
struct OneShotTimeUsageTests {
    struct Recorder: ControlOutput {
        var stdout = ""
        var stderr = ""
        mutating func out(_ text: String) { stdout += text }
        mutating func err(_ text: String) { stderr += text }
        var stdoutIsColorTerminal: Bool { false }
        var stderrIsTerminal: Bool { false }
    }

    @Test(
        "Accepted forms pass the local check",
        arguments: ["2:30pm", "14:30", "tomorrow 09:00", "fri 17:00", "now + 25 minutes", "+25m", "2026-12-01T09:00"])
    func accepted(text: String) throws {
        let time = try AbsoluteTime.parse(text, minuteInterval: nil)
        #expect(time.text == text && time.timeZone != nil)
    }

    @Test(
        "Bad forms: exit 64, the reason and the accepted forms",
        arguments: [
            ("fri", "a day needs a time (fri 17:00)"),
            ("13pm", "not a time"),
            ("now", "\"now\" has passed: add a span (now + 25 minutes)"),
        ])
    func refused(text: String, reason: String) {
        var output = Recorder()
        let status = ControlCommand.run(["--socket", "/nonexistent/s.sock", "start", "--at", text], output: &output)
        #expect(status == 64)
        #expect(
            output.stderr == """
                Error: invalid --at time "\(text)": \(reason); \(OneShotTimeText.accepted)
                Usage: timerctl start DURATION... [--name NAME] [--exec CMD] [--notify]
                       timerctl start --at TIME [--minute-interval N] [--name NAME] [--exec CMD] [--notify]
                       timerctl start --pick [--minute-interval N] [--name NAME]
                       timerctl start --on EXPR [--name NAME] [--persistent|--skip-missed] [--randomized-delay DURATION] [--exec CMD] [--notify]
                       timerctl start --every DURATION [--from TIME] [--name NAME] [--persistent|--skip-missed] [--randomized-delay DURATION] [--exec CMD] [--notify]
                See 'timerctl start --help'.

                """)
    }
}
