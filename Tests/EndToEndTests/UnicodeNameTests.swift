import Foundation
import Testing
import TimerProtocol

/// Names in any script, through the real binaries and the real state files: timerctl sends what was
/// typed, timerd stores and shows the NFC form (UAX #15), so the two spellings of "é" reach one timer.
@Suite("Unicode names and step ids through the real binaries", .serialized, .tags(.endToEnd))
struct UnicodeNameTests {
    /// "café" with U+00E9, and with e + U+0301 (NFD): canonically equivalent, different bytes.
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    @Test(
        "start, status, --json, stop and a daemon restart keep a Unicode name, in NFC",
        arguments: TestBackend.available)
    func roundTrip(backend: TestBackend) throws {
        let harness = try Harness()
        let arguments = try backend.daemonArguments()  // one schema for the three starts
        try harness.startDaemon(extraArguments: arguments)
        // Typed decomposed; shown composed (the bytes of U+00E9: C3 A9).
        let started = harness.ctl(["start", "25m", "--name", Self.decomposed])
        #expect(started.status == 0 && started.stdout == "started 1 \"\(Self.composed)\": 25m\n", "\(started)")
        #expect(Array(started.stdout.utf8).contains(0xA9) && !started.stdout.unicodeScalars.contains("\u{301}"))
        let tea = harness.ctl(["start", "5m", "--name", "お茶 休憩"])
        #expect(tea.status == 0 && tea.stdout == "started 2 \"お茶 休憩\": 5m\n", "\(tea)")
        // The other spelling is the same name: in use while live.
        let again = harness.ctl(["start", "1m", "--name", Self.composed])
        #expect(again.status == 1, "\(again)")
        #expect(again.stderr.contains("a live timer is already named \"\(Self.composed)\" (id 1)"), "\(again)")

        let listed = try harness.ctlJSON(["status"], as: [TimerInfo].self)
        #expect(listed.map(\.name) == [Self.composed, "お茶 休憩"])
        #expect(listed.compactMap { $0.name.map { Array($0.utf8) } }.first == Array(Self.composed.utf8))
        // Status by either spelling finds timer 1.
        #expect(try harness.ctlJSON(["status", Self.composed], as: [TimerInfo].self).map(\.id) == ["1"])
        #expect(try harness.ctlJSON(["status", Self.decomposed], as: [TimerInfo].self).map(\.id) == ["1"])
        let table = harness.ctl(["status"])
        #expect(table.stdout.contains("1   \(Self.composed)"), "\(table)")

        // A restart reads the name back from the journal, still NFC.
        #expect(harness.stopDaemon() == 0)
        try harness.startDaemon(extraArguments: arguments)
        let restored = try harness.ctlJSON(["status"], as: [TimerInfo].self)
        #expect(restored.map(\.name) == [Self.composed, "お茶 休憩"])
        let stopped = harness.ctl(["stop", Self.decomposed])
        #expect(stopped.status == 0 && stopped.stdout.hasPrefix("stopped 1 \"\(Self.composed)\" with "), "\(stopped)")
        #expect(harness.ctl(["stop", "お茶 休憩"]).status == 0)
        #expect(harness.stopDaemon() == 0)
        try harness.startDaemon(extraArguments: arguments)
        let ended = try harness.ctlJSON(["status", "--all"], as: [TimerInfo].self)
        #expect(ended.map(\.name) == [Self.composed, "お茶 休憩"])
        #expect(ended.map(\.state) == [.stopped, .stopped])
    }

    @Test(
        "A name starting with '-' is refused with a hint; a step id from --json is accepted as an id",
        arguments: TestBackend.available)
    func dashAndStepIDs(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let dash = harness.ctl(["start", "5m", "--name", "-tea"])
        #expect(dash.status == 64, "\(dash)")
        #expect(dash.stderr.hasPrefix("Error: invalid timer name \"-tea\": names may not start with '-'"), "\(dash)")

        #expect(harness.ctl(["start", "25m", "5m", "--name", "pomodoro"]).status == 0)
        let group = try harness.ctlJSON(["status", "pomodoro"], as: [TimerInfo].self)[0]
        // The step ids status --json shows (TimerSnapshot+Presentation.swift: "ID.N", N from 1).
        #expect(group.children?.map(\.id) == ["1.1", "1.2"])
        #expect(try harness.ctlJSON(["status", "1.2"], as: [TimerInfo].self).map(\.id) == ["1"])
        let paused = harness.ctl(["pause", "1.1"])
        #expect(paused.status == 0 && paused.stdout.hasPrefix("paused 1 \"pomodoro\" with "), "\(paused)")
        let missing = harness.ctl(["status", "1.3"])
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.stderr == "Error: no step 1.3: no group 1 with a step 3\n", "\(missing)")
    }
}
