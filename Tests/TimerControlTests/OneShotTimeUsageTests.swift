import Testing
import TimerModel
import TimerProtocol

@testable import TimerControl

/// `timerctl start --at` checks the richer one-shot forms locally, before connecting, and
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
        "at(1)'s forms pass the local check too",
        arguments: ["noon", "midnight", "09:00 tomorrow", "2026-12-31", "next monday 9:00", "noon fri"])
    func atForms(text: String) throws {
        let time = try AbsoluteTime.parse(text, minuteInterval: nil)
        #expect(time.text == text && time.timeZone != nil)
    }

    @Test("An instant without seconds (ISO 8601 allows it) is sent with :00 seconds")
    func instantWithoutSeconds() throws {
        let time = try AbsoluteTime.parse("2026-12-24T18:00+01:00", minuteInterval: nil)
        #expect(time.text == "2026-12-24T18:00:00+01:00" && time.timeZone == nil)
        #expect(try AbsoluteTime.parse("2026-12-24T17:00Z", minuteInterval: nil).text == "2026-12-24T17:00:00Z")
    }

    @Test("An instant's confirmation shows the local time, offset and zone, as a local --at does (not UTC Z)")
    func instantConfirmation() throws {
        var time = try AbsoluteTime.parse("2026-12-24T18:00+01:00", minuteInterval: nil)
        time.shownZone = "Europe/Paris"
        // timerd's reply: endsAt in UTC with milliseconds (docs/protocol.md); 18:00+01:00 is 17:00Z.
        let timer = TimerInfo(
            id: "4", name: "dinner", state: .running, duration: 5_400, remaining: 5_400, elapsed: 0,
            progress: ProgressSnapshot(
                totalUnitCount: 5_400_000, completedUnitCount: 0, fractionCompleted: 0, isIndeterminate: false,
                isFinished: false, isCancelled: false, isPaused: false),
            endsAt: "2026-12-24T17:00:00.000Z")
        #expect(
            time.confirmation(for: timer, clock: .fixed(offsetSeconds: 3_600))
                == "started 4 \"dinner\": ends at 2026-12-24T18:00:00+01:00 (Europe/Paris), in 1h30m\n")
        // In a zone at UTC, `Z`, as timerd's resolved local times are written.
        #expect(
            time.confirmation(for: timer, clock: .fixed(offsetSeconds: 0)).hasPrefix(
                "started 4 \"dinner\": ends at 2026-12-24T17:00:00Z (Europe/Paris)"))
    }

    @Test("The accepted forms, as every --at, --from, pick --min/--max error lists them")
    func acceptedText() {
        #expect(
            OneShotTimeText.accepted
                == "use HH:MM[:SS], 2:30pm, noon or midnight, with a day before or after it if you like "
                + "(tomorrow 09:00, 09:00 tomorrow, fri 17:00, next monday 9:00); YYYY-MM-DD[THH:MM[:SS]]; "
                + "+25m or now + 25 minutes; or an ISO 8601 date-time with Z or an offset (2026-12-24T18:00+01:00)")
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
                See 'timerctl start --help'.

                """)
    }
}
