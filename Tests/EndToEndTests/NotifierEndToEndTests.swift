import Foundation
import Glibc
import Testing
import TimerModel
import TimerProtocol

/// `timerctl notifier` with the real parts: timerd, timerctl, a private session bus, Xvfb and
/// dunst (DesktopSession). What dunst shows is read from the script its rule runs for each
/// notification and from `dunstctl history`; buttons are pressed through `dunstctl context`, which
/// hands dunst's action list to the `dmenu` of the test's dunstrc and invokes the line it prints,
/// so dunst itself sends `ActionInvoked`.
@Suite("timerctl notifier end to end", .serialized, .tags(.endToEnd))
struct NotifierEndToEndTests {
    /// `endsAt` and the other instants of the protocol (docs/protocol.md: ISO 8601 with milliseconds).
    static func instant(_ text: String?) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let text, let date = formatter.date(from: text) else {
            throw SystemFailure("not an instant: \(text ?? "nil")")
        }
        return date
    }

    /// Waits up to 10 s for `timerctl status NAME --json` to satisfy `condition`.
    static func waitForStatus(_ harness: Harness, _ name: String, _ condition: (TimerInfo) -> Bool) throws -> TimerInfo
    {
        let deadline = Date().addingTimeInterval(10)
        while true {
            if let timer = try harness.ctlJSON(["status", name], as: [TimerInfo].self).first,
                condition(timer)
            {
                return timer
            }
            guard Date() < deadline else { throw SystemFailure("\(name) did not reach the state in 10 s") }
            usleep(50_000)
        }
    }

    #if Notifications
        @Test("Notifications are shown, replaced in place, and their buttons pause, extend, resume and stop")
        func desktop() throws {
            let desktop = try DesktopSession()
            let harness = try Harness()
            try harness.startDaemon()
            let notifier = try DesktopSession.spawn(
                Harness.timerctl, ["--socket", harness.socketPath, "notifier"], environment: desktop.environment,
                output: desktop.directory + "/notifier.log", error: desktop.directory + "/notifier.log")
            defer {
                kill(notifier, SIGTERM)
                var status: Int32 = 0
                waitpid(notifier, &status, 0)
            }

            #expect(harness.ctl(["start", "10m", "--name", "tea"]).status == 0)
            // The first notification: the `started` event (or the listing) of a 600 s timer, 0% done:
            // DurationFormatter.countdown(600) = 0:10:00; urgency normal (1), progress 0.
            let first = try #require(
                desktop.waitForShown { $0.summary == "tea" }, "nothing shown; notifier: \(desktop.log("notifier.log"))")
            #expect(first.description == "\(first.id)|NORMAL|0|tea|0:10:00 left")
            // Replaced in place: every later notification of tea has the same id, and dunst shows one.
            #expect(desktop.waitForShown { $0.body == "0:09:59 left" }?.id == first.id)
            #expect(desktop.displayedCount() == 1)
            let screenshot = FileManager.default.temporaryDirectory.path + "/timerctl-notifier-\(getpid()).png"
            try desktop.screenshot(to: screenshot)
            print("timerctl notifier: screenshot of the notification under Xvfb: \(screenshot)")

            // +1 min: timer.extend by 60, so the deadline moves by exactly 60 s.
            let before = try #require(try harness.ctlJSON(["status", "tea"], as: [TimerInfo].self).first)
            let menu = try desktop.choose("+1 min")
            // dunst's menu lines are `#LABEL (SUMMARY) [ID,KEY]` (dunst 1.9, menu.c), in its own order.
            #expect(
                menu == [
                    "#Pause (tea) [\(first.id),pause]", "#+1 min (tea) [\(first.id),extend]",
                    "#Stop (tea) [\(first.id),stop]",
                ])
            let extended = try Self.waitForStatus(harness, "tea") { $0.endsAt != before.endsAt }
            #expect(try Self.instant(extended.endsAt).timeIntervalSince(try Self.instant(before.endsAt)) == 60)
            #expect(extended.duration == 660)

            // Pause: the notification says so, with the remaining time timerd reports.
            _ = try desktop.choose("Pause (tea)")
            let paused = try Self.waitForStatus(harness, "tea") { $0.state == .paused }
            let pausedText = "Paused, \(DurationFormatter.countdown(seconds: paused.remaining)) left"
            let pausedShown = try #require(desktop.waitForShown { $0.body.hasPrefix("Paused") }, "\(desktop.shown())")
            // value: fractionCompleted × 100 rounded down, as timerd reports it for the paused timer.
            let percent = Int((paused.progress.fractionCompleted * 100).rounded(.down))
            #expect(pausedShown.description == "\(first.id)|NORMAL|\(percent)|tea|\(pausedText)")

            // Resume, then Stop: the menu now offers Resume and Stop only.
            let pausedMenu = try desktop.choose("Resume (tea)")
            #expect(pausedMenu == ["#Resume (tea) [\(first.id),resume]", "#Stop (tea) [\(first.id),stop]"])
            _ = try Self.waitForStatus(harness, "tea") { $0.state == .running }
            _ = try desktop.choose("Stop (tea)")
            _ = try Self.waitForStatus(harness, "tea") { $0.state == .stopped }
            // A stopped timer's notification is closed (CloseNotification): none is displayed.
            let deadline = Date().addingTimeInterval(10)
            while desktop.displayedCount() != 0 && Date() < deadline { usleep(50_000) }
            #expect(desktop.displayedCount() == 0)

            // A finished timer: critical, 100%, Dismiss and Restart.
            #expect(harness.ctl(["start", "2s", "--name", "egg"]).status == 0)
            let finished = try #require(
                desktop.waitForShown { $0.summary == "egg" && $0.body == "Finished" }, "\(desktop.shown())")
            #expect(finished.description == "\(finished.id)|CRITICAL|100|egg|Finished")
            let finishedMenu = try desktop.choose("Dismiss (egg)")
            #expect(
                finishedMenu == [
                    "#Dismiss (egg) [\(finished.id),dismiss]", "#Restart (egg) [\(finished.id),restart]",
                ])
            while desktop.displayedCount() != 0 && Date() < deadline.addingTimeInterval(10) { usleep(50_000) }
            #expect(desktop.displayedCount() == 0)
            // Dismissed, it is in dunst's history with what it showed last.
            let newest = try #require(try desktop.history().first)
            #expect(newest["summary"] as? String == "egg")
            #expect(newest["body"] as? String == "Finished")
            #expect(newest["progress"] as? Int == 100)
            #expect(newest["id"] as? Int == finished.id)
            // The notifier is still running: nothing made it exit.
            var status: Int32 = 0
            #expect(waitpid(notifier, &status, WNOHANG) == 0, "\(desktop.log("notifier.log"))")
        }
    #else
        @Test("A build without the trait Notifications refuses notifier with exit 69 and says how to build it")
        func notBuilt() throws {
            let harness = try Harness()
            let run = harness.ctl(["notifier"])
            #expect(run.status == 69)
            #expect(
                run.stderr.hasPrefix(
                    "Error: this timerctl was built without D-Bus support, so it cannot show desktop notifications:"
                        + " build with the package trait Notifications"),
                "\(run)")
        }
    #endif
}
