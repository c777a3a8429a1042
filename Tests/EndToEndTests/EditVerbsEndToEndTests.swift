import Foundation
import Glibc
import Testing

/// The everyday verbs through the real binaries: timerctl → socket → timerd → engine → store, and
/// back after a SIGKILL (an acknowledged change is durable, docs/durability.md).
@Suite("extend, skip, rename, restart and rm end to end", .tags(.endToEnd))
struct EditVerbsEndToEndTests {
    private struct Timer: Decodable {
        var id: String
        var name: String?
        var state: String
        var duration: Double
        var currentChild: Int?
    }

    @Test("each verb changes the daemon's state, refusals exit 1, and everything survives SIGKILL")
    func verbsAreDurable() throws {
        let harness = try Harness()
        try harness.startDaemon()
        #expect(harness.ctl(["start", "25m", "--name", "tea"]).status == 0)
        #expect(harness.ctl(["start", "25m", "5m", "--name", "pomodoro"]).status == 0)
        // 25 min + 5 min = 1,800 s; the durations are exact whatever the time the calls take.
        #expect(try harness.ctlJSON(["extend", "tea", "5m"], as: Timer.self).duration == 1_800)
        let skipped = try harness.ctlJSON(["next", "pomodoro"], as: Timer.self)
        #expect(skipped.currentChild == 1 && skipped.state == "running")
        #expect(harness.ctl(["rename", "tea", "green tea"]).stdout == "renamed 1 to \"green tea\"\n")
        let refused = harness.ctl(["rm", "green tea"])
        #expect(refused.status == 1)
        #expect(
            refused.stderr
                == "Error: cannot remove timer 1 (\"green tea\"): it is running; only ended (finished or stopped) "
                + "timers can be removed; stop it first\n")
        let single = harness.ctl(["skip", "1"])
        #expect(
            single.status == 1 && single.stderr.hasPrefix("Error: cannot skip timer 1 (\"green tea\"): it is a single"))
        #expect(harness.ctl(["stop", "green tea"]).status == 0)
        #expect(harness.ctl(["start", "1h", "--name", "soup"]).status == 0)
        #expect(harness.ctl(["stop", "soup"]).status == 0)
        #expect(harness.ctl(["forget", "green tea"]).stdout == "removed 1 \"green tea\"\n")
        // soup (3) stopped, then restarted under the same id.
        #expect(harness.ctl(["restart", "soup"]).stdout.hasPrefix("restarted 3 \"soup\": "))
        #expect(harness.stopDaemon(signal: SIGKILL) == SIGKILL)

        try harness.startDaemon()
        let timers = try harness.ctlJSON(["status", "--all"], as: [Timer].self)
        #expect(timers.map(\.id) == ["2", "3"])
        #expect(timers.first?.currentChild == 1 && timers.first?.state == "running")
        #expect(timers.last?.name == "soup" && timers.last?.state == "running")
        #expect(harness.ctl(["stop", "soup"]).status == 0)
        #expect(harness.ctl(["rm", "--all-ended"]).stdout == "removed 3 \"soup\"\n")
        #expect(harness.ctl(["rm", "--all-ended"]).stdout == "no ended timers to remove\n")
    }
}
