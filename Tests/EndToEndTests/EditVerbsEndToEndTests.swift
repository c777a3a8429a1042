import Foundation
import Glibc
import Testing
import TimerModel

/// The everyday verbs through the real binaries: timerctl → socket → timerd → engine → store, and
/// back after a SIGKILL (an acknowledged change is durable, docs/durability.md). Each test runs on
/// every backend (``TestBackend``: the file store, and `--shared` on PostgreSQL) with the same
/// expected replies.
@Suite("extend, skip, rename, restart and rm end to end", .serialized, .tags(.endToEnd))
struct EditVerbsEndToEndTests {
    private struct Timer: Decodable {
        var id: String
        var name: String?
        var state: String
        var duration: Double
        var currentChild: Int?
    }

    @Test(
        "each verb changes the daemon's state, refusals exit 1, and everything survives SIGKILL",
        arguments: TestBackend.available)
    func verbsAreDurable(backend: TestBackend) throws {
        let harness = try Harness()
        let arguments = try backend.daemonArguments()
        try harness.startDaemon(extraArguments: arguments)
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

        try harness.startDaemon(extraArguments: arguments)
        let timers = try harness.ctlJSON(["status", "--all"], as: [Timer].self)
        #expect(timers.map(\.id) == ["2", "3"])
        #expect(timers.first?.currentChild == 1 && timers.first?.state == "running")
        #expect(timers.last?.name == "soup" && timers.last?.state == "running")
        #expect(harness.ctl(["stop", "soup"]).status == 0)
        #expect(harness.ctl(["rm", "--all-ended"]).stdout == "removed 3 \"soup\"\n")
        #expect(harness.ctl(["rm", "--all-ended"]).stdout == "no ended timers to remove\n")
    }

    /// The reply's `result` object, or `error` as `code message`.
    private static func outcome(_ reply: [String: Any]) -> (result: [String: Any]?, error: String?) {
        if let error = reply["error"] as? [String: Any] {
            return (nil, "\(error["code"] as? Int ?? 0) \(error["message"] as? String ?? "")")
        }
        return (reply["result"] as? [String: Any], nil)
    }

    @Test(
        "the edit methods' rules, errors and events over the socket: the same replies on every backend",
        arguments: TestBackend.available)
    func editRules(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let subscriber = try RawClient(path: harness.socketPath)
        _ = try subscriber.subscribe(#""events":["extended","renamed","restarted","step","finished"]"#)
        let client = try RawClient(path: harness.socketPath)
        var next = 0
        /// Sends `method` with `params` (JSON members) and returns the outcome.
        func call(_ method: String, _ params: String) throws -> (result: [String: Any]?, error: String?) {
            next += 1
            return Self.outcome(
                try client.request(
                    #"{"jsonrpc":"2.0","id":\#(next),"method":"\#(method)","params":{\#(params)}}"#))
        }
        // 1 "tea" (25 min), 2 "focus" (group of 25 min, 5 min, 10 min), 3 "eggs" (3 min, paused).
        #expect(try call("timer.start", #""durations":["25m"],"name":"tea""#).result?["id"] as? String == "1")
        #expect(try call("timer.start", #""durations":["25m","5m","10m"],"name":"focus""#).result != nil)
        #expect(try call("timer.start", #""durations":["3m"],"name":"eggs""#).result != nil)
        #expect(try call("timer.pause", #""timer":"eggs""#).result?["state"] as? String == "paused")

        // Parameters (TimerService+Edits): the one-host daemon's texts on every backend.
        #expect(
            try call("timer.extend", #""timer":"tea""#).error
                == "-32602 timer.extend needs \"by\": seconds (a number, negative to subtract) or a duration such as "
                + "\"5m\" or \"-5m\"")
        #expect(
            try call("timer.rename", #""timer":"tea","name":"bad\u0007name""#).error
                == "-32602 " + CountdownError.invalidName("bad\u{07}name").description)
        #expect(
            try call("timer.skip", #""timer":"tea","by":1"#).error
                == "-32602 unknown parameter \"by\" for timer.skip; allowed: timer")
        #expect(try call("timer.extend", #""timer":"nope","by":5"#).error == "-32001 no timer named \"nope\"")
        // 366 days in all at most (DurationParser.maximumSeconds): a plain timer names the length it
        // would have, a group (25 + 5 + 10 min) its total.
        #expect(
            try call("timer.extend", #""timer":"tea","by":"366d""#).error
                == "-32602 "
                + CountdownError.durationOutOfRange(DurationFormatter.compact(seconds: 31_623_900)).description)
        #expect(
            try call("timer.extend", #""timer":"focus","by":"366d""#).error
                == "-32602 " + CountdownError.groupTooLong(31_624_800).description)

        // Skip: a plain timer has no next step; a paused group goes on paused.
        #expect(
            try call("timer.skip", #""timer":"tea""#).error
                == "-32002 cannot skip timer 1 (\"tea\"): it is a single timer, not a group; skip ends the current "
                + "step of a group (stop ends a single timer)")
        #expect(try call("timer.pause", #""timer":"focus""#).result != nil)
        let skipped = try #require(try call("timer.skip", #""timer":"focus""#).result)
        #expect(skipped["state"] as? String == "paused" && skipped["currentChild"] as? Int == 1)
        #expect(skipped["remaining"] as? Double == 900 && skipped["elapsed"] as? Double == 1_500)

        // Extend a paused group's step by 2 min: its remaining is exact (nothing runs while paused).
        let extended = try #require(try call("timer.extend", #""timer":"focus","by":120"#).result)
        #expect(extended["duration"] as? Double == 2_520 && extended["remaining"] as? Double == 1_020)
        // Taking away more than the paused step has left ends it: the group goes on, still paused.
        let clamped = try #require(try call("timer.extend", #""timer":"focus","by":"-1h""#).result)
        #expect(clamped["state"] as? String == "paused" && clamped["currentChild"] as? Int == 2)
        #expect(clamped["remaining"] as? Double == 600 && clamped["duration"] as? Double == 2_520)
        // The last step skipped: the group finishes, even paused.
        #expect(try call("timer.skip", #""timer":"focus""#).result?["state"] as? String == "finished")
        #expect(
            try call("timer.skip", #""timer":"focus""#).error
                == "-32002 cannot skip timer 2 (\"focus\"): it has finished; only a running or paused group can "
                + "skip to its next step")
        #expect(
            try call("timer.extend", #""timer":"focus","by":5"#).error
                == "-32002 cannot extend timer 2 (\"focus\"): it has finished; only running or paused timers can be "
                + "extended (restart an ended one)")
        // A paused plain timer shortened past zero finishes at once.
        let eggs = try #require(try call("timer.extend", #""timer":"eggs","by":-200"#).result)
        #expect(eggs["state"] as? String == "finished" && eggs["remaining"] as? Double == 0)

        // Rename: unique among live timers (the holder's id), ended ones may be renamed.
        #expect(
            try call("timer.rename", #""timer":"focus","name":"tea""#).result?["name"] as? String == "tea")
        #expect(try call("timer.start", #""durations":[60],"name":"soup""#).result?["id"] as? String == "4")
        #expect(
            try call("timer.rename", #""timer":"soup","name":"tea""#).error
                == "-32003 " + CountdownError.nameInUse("tea", id: "1").description)
        // Restart of an ended timer whose name a live timer holds: refused the same way.
        #expect(
            try call("timer.restart", #""timer":2"#).error
                == "-32003 " + CountdownError.nameInUse("tea", id: "1").description)
        #expect(try call("timer.rename", #""timer":2,"name":"deep work""#).result?["name"] as? String == "deep work")
        let restarted = try #require(try call("timer.restart", #""timer":"deep work""#).result)
        #expect(restarted["state"] as? String == "running" && restarted["currentChild"] as? Int == 0)
        #expect(restarted["duration"] as? Double == 2_520 && restarted["elapsed"] as? Double ?? 1 < 1)
        #expect(restarted["createdAt"] as? String != restarted["startedAt"] as? String)

        // The events of the edits, in order, with their own members as one host writes them.
        var seen: [String] = []
        while seen.count < 10, let notification = subscriber.nextNotification(timeout: 5) {
            let members = ["by", "from", "child"].compactMap { key -> String? in
                guard let value = notification.params[key] else { return nil }
                // eggs had 180 s less the moments before its pause: whole seconds are exact enough.
                if key == "by", let seconds = value as? Double { return "by=\(Int(seconds.rounded()))" }
                return "\(key)=\(value)"
            }
            seen.append(([notification.event ?? "?"] + members).joined(separator: " "))
        }
        // focus: its second step of 5 min + 2 min taken away whole (-420 s), then its last skipped.
        #expect(
            seen == [
                "step child=1", "extended by=120", "extended by=-420", "step child=2", "finished", "extended by=-180",
                "finished", "renamed from=focus", "renamed from=tea", "restarted",
            ])
        #expect(subscriber.nextNotification(timeout: 0.5) == nil)
        #expect(harness.stopDaemon() == 0)
    }
}
