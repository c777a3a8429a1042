import Testing

@testable import TimerControl

@Suite("timerctl reload")
struct ReloadVerbTests {
    @Test("reload parses, takes no arguments, and has help")
    func parsing() throws {
        #expect(try ControlOptions.parse(["reload"]).verb == .reload)
        #expect(throws: ControlError.usage("'reload' takes no arguments", verb: .reload)) {
            try ControlOptions.parse(["reload", "now"])
        }
        #expect(HelpText.usageLine(.reload) == "timerctl reload")
        #expect(HelpText.forVerb(.reload).hasPrefix("Usage: timerctl reload\n"))
        #expect(HelpText.main.contains("  reload  "))
    }
}
