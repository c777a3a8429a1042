import Testing
import TimerDaemon

/// The code sample of Sources/TimerDaemon/TimerDaemon.docc/TimerDaemon.md, run with the values its
/// comment claims, so that a sample that stops compiling or stops telling the truth fails here.
@Suite("TimerDaemon DocC sample")
struct TimerDaemonDocumentationSampleTests {
    @Test("TimerDaemon.md")
    func sample() throws {
        let options = try DaemonOptions.parse([
            "--socket", "/tmp/demo/timerd.sock", "--state-dir", "/tmp/demo/state",
        ])
        let config = try DaemonConfig.parse("history_limit = 50\n", path: "timerd.conf").overridden(by: options)
        #expect(options.socketPath == "/tmp/demo/timerd.sock")
        #expect(options.stateDirectory == "/tmp/demo/state")
        #expect(config.historyLimit == 50)
    }
}
