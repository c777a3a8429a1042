import Testing
import TimerControl

/// The code sample of Sources/TimerControl/TimerControl.docc/TimerControl.md, run with the values its
/// comments claim, so that a sample that stops compiling or stops telling the truth fails here.
@Suite("TimerControl DocC sample")
struct TimerControlDocumentationSampleTests {
    /// Collects what the command writes instead of printing it.
    struct Recorder: ControlOutput {
        var stdout = ""
        var stderr = ""
        mutating func out(_ text: String) { stdout += text }
        mutating func err(_ text: String) { stderr += text }
        var stdoutIsColorTerminal: Bool { false }
        var stderrIsTerminal: Bool { false }
    }

    @Test("TimerControl.md")
    func sample() throws {
        let options = try ControlOptions.parse(["start", "25m", "--name", "tea", "--json"])
        #expect(options.verb == .start)
        #expect(options.arguments == ["25m"])
        #expect(options.name == "tea")
        #expect(options.json)
        var output = Recorder()
        let status = ControlCommand.run(["--version"], output: &output)
        // The sample's comment: prints "timerctl 0.1.0 (protocol 1)" (the VERSION file's version), returns 0.
        #expect(status == 0)
        #expect(output.stdout == "timerctl 0.1.0 (protocol 1)\n")
    }
}
