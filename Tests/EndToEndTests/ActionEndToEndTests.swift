import Foundation
import Glibc
import Testing
import TimerModel
import TimerProtocol

/// On-finish actions against the real timerd (docs/actions.md): `--exec`
/// runs once on finish, never on stop, once for a timer missed while timerd was down, at most once
/// across a SIGKILL during the action, is stopped by the time-out with its process group, and is
/// refused from another uid by a system-wide-style daemon.
@Suite("On-finish actions through the real timerd", .serialized, .tags(.endToEnd))
struct ActionEndToEndTests {
    /// Runs timerctl in `directory` (the action's working directory is the caller's).
    private func ctl(_ harness: Harness, in directory: String, _ arguments: [String]) -> Harness.Run {
        let quoted = ([Harness.timerctl, "--socket", harness.socketPath] + arguments).map { "'" + $0 + "'" }
        return Harness.run("/bin/sh", ["-c", "cd '\(directory)' && exec " + quoted.joined(separator: " ")])
    }

    /// The file's text once `isDone` accepts it, or what it holds after `timeout` seconds.
    private func contents(
        of path: String, timeout: Double = 10, until isDone: (String) -> Bool = { !$0.isEmpty }
    ) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        while Date() < deadline {
            text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if isDone(text) { return text }
            usleep(20_000)
        }
        return text
    }

    /// A command line that appends the action's variables and directory to `ran.txt`.
    private let recorder = #"echo "$TIMER_ID $TIMER_EVENT $TIMER_NAME $TIMER_DURATION $PWD" >> ran.txt"#

    @Test(
        "--exec runs once when the timer finishes, with its variables and directory; never when stopped",
        arguments: TestBackend.available)
    func onceOnFinishNotOnStop(backend: TestBackend) throws {
        let harness = try Harness()
        let arguments = try backend.daemonArguments()  // one schema for both starts
        try harness.startDaemon(extraArguments: arguments)
        let started = ctl(harness, in: harness.directory, ["start", "1s", "--name", "tea", "--exec", recorder])
        #expect(started.status == 0, "\(started)")
        let stopped = ctl(harness, in: harness.directory, ["start", "1s", "--exec", "echo stopped >> ran.txt"])
        #expect(stopped.status == 0)
        #expect(harness.ctl(["stop", "2"]).status == 0)
        #expect(harness.ctl(["wait", "tea"]).status == 0)
        let path = harness.directory + "/ran.txt"
        // Expected: timer 1's id, the event, its name, 1 s, and the directory timerctl ran in.
        let expected = "1 finished tea 1 \(harness.directory)\n"
        #expect(contents(of: path) == expected)
        #expect(
            contents(of: harness.directory + "/timerd.log", until: { $0.contains("exec exited") })
                .contains("timer 1 (\"tea\") exec exited with status 0"))
        // Timer 2's deadline (1 s) has passed too: a stopped timer ran nothing, and nothing ran twice.
        usleep(1_200_000)
        #expect(contents(of: path) == expected)
        // A restart does not run it again: the run is recorded in the store.
        #expect(harness.stopDaemon() == 0)
        try harness.startDaemon(extraArguments: arguments)
        usleep(500_000)
        #expect(contents(of: path) == expected)
        #expect(harness.ctl(["ping"]).status == 0)
    }

    @Test(
        "An edit that ends the last step runs the action once: a paused group skipped twice, a timer shortened past zero",
        arguments: TestBackend.available)
    func editsThatFinishRunTheAction(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let group = ctl(harness, in: harness.directory, ["start", "1h", "1h", "--name", "g", "--exec", recorder])
        #expect(group.status == 0, "\(group)")
        #expect(ctl(harness, in: harness.directory, ["start", "1h", "--name", "t", "--exec", recorder]).status == 0)
        #expect(harness.ctl(["pause", "g"]).status == 0)
        #expect(harness.ctl(["skip", "g"]).status == 0)
        // Still paused on its last step: nothing has run.
        usleep(300_000)
        let path = harness.directory + "/ran.txt"
        #expect(contents(of: path, timeout: 0.1) == "")
        // The last step skipped while paused finishes the group, even paused (docs/protocol.md).
        #expect(harness.ctl(["skip", "g"]).status == 0)
        // The whole duration is the group's, 2 h; the directory is where timerctl ran.
        let first = "1 finished g 7200 \(harness.directory)\n"
        #expect(contents(of: path) == first)
        // An hour taken away from a running hour: it finishes at once, its action with it.
        #expect(harness.ctl(["extend", "t", "-2h"]).status == 0)
        let both = first + "2 finished t 3600 \(harness.directory)\n"
        #expect(contents(of: path, until: { $0.count >= both.count }) == both)
        // Each ran once. In shared mode, past the 5 s action lease and the 1 s poll bound
        // (SharedHost.leaseSeconds, pollCapSeconds): an action whose start was not recorded under
        // the edit's fence would be taken over and run again by then.
        usleep(backend == .shared ? 6_500_000 : 1_500_000)
        #expect(contents(of: path) == both)
        #expect(harness.stopDaemon() == 0)
    }

    @Test("A timer that ended while timerd was killed runs its action once at the next start, as missed")
    func missedOnce() throws {
        let harness = try Harness()
        try harness.startDaemon()
        #expect(ctl(harness, in: harness.directory, ["start", "1s", "--name", "egg", "--exec", recorder]).status == 0)
        // Killed before the end: the timer ends while nothing runs.
        harness.stopDaemon(signal: SIGKILL)
        usleep(1_500_000)
        try harness.startDaemon()
        let path = harness.directory + "/ran.txt"
        let expected = "1 missed egg 1 \(harness.directory)\n"
        #expect(contents(of: path) == expected)
        #expect(harness.stopDaemon() == 0)
        try harness.startDaemon()
        usleep(500_000)
        #expect(contents(of: path) == expected)
    }

    @Test("At most once: SIGKILL during the action, then a restart, never runs it again")
    func atMostOnceAcrossACrash() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let action = "echo begin >> ran.txt; sleep 2; echo end >> ran.txt"
        #expect(ctl(harness, in: harness.directory, ["start", "1s", "--exec", action]).status == 0)
        let path = harness.directory + "/ran.txt"
        #expect(contents(of: path) == "begin\n")  // the action runs; timerd is killed while it does
        harness.stopDaemon(signal: SIGKILL)
        try harness.startDaemon()
        // The first run goes on by itself (its own process group) and ends; no second "begin".
        #expect(contents(of: path, until: { $0.contains("end") }) == "begin\nend\n")
        usleep(1_000_000)
        #expect(contents(of: path) == "begin\nend\n")
        #expect(
            harness.log().contains(
                "warning: the exec action of timer 1 was due when timerd stopped and its result is not known (it may have run); not run again"
            ))
    }

    /// A timer with an action ends while timerd is down (SIGKILL): the restart runs it once with
    /// `TIMER_EVENT=missed`, records its outcome and sends the `action` event with `trigger`
    /// `missed` (docs/protocol.md); a second SIGKILL after it exited and a restart say nothing of a
    /// run "running when timerd stopped". Before, the restart marked the missed run interrupted
    /// as soon as it was scheduled, then refused its outcome ("the timer is no longer kept") and
    /// sent no event.
    @Test("A missed timer's action: run once, outcome recorded, action event with trigger missed, across SIGKILLs")
    func missedActionRecords() throws {
        let harness = try Harness()
        try harness.startDaemon()
        #expect(ctl(harness, in: harness.directory, ["start", "1s", "--exec", recorder]).status == 0)
        harness.stopDaemon(signal: SIGKILL)
        usleep(1_500_000)  // the timer ends while timerd is down
        try harness.startDaemon()
        let client = try RawClient(path: harness.socketPath)
        let subscribed = try client.request(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe","params":{"events":["missed","action"],"afterSeq":0}}"#
        )
        #expect(subscribed["result"] != nil, "\(subscribed)")
        var kinds: [String] = []
        var action: [String: Any]?
        while action == nil, let line = client.readLine(timeout: 10) {
            let params = try JSONObject.parse(line)["params"] as? [String: Any]
            kinds.append(params?["event"] as? String ?? "?")
            action = params?["action"] as? [String: Any]
        }
        #expect(kinds == ["missed", "action"])
        #expect(action?["trigger"] as? String == "missed")
        #expect(action?["outcome"] as? String == "exited" && action?["status"] as? Int == 0)
        #expect(contents(of: harness.directory + "/ran.txt") == "1 missed  1 \(harness.directory)\n")
        let firstLog = harness.log()
        #expect(!firstLog.contains("its result is not known"), "\(firstLog)")
        #expect(!firstLog.contains("no longer kept"), "\(firstLog)")
        harness.stopDaemon(signal: SIGKILL)
        try harness.startDaemon()
        usleep(300_000)
        #expect(contents(of: harness.directory + "/ran.txt") == "1 missed  1 \(harness.directory)\n")
        let log = harness.log()
        #expect(!log.contains("its result is not known"), "\(log)")
        #expect(!log.contains("no longer kept"), "\(log)")
        #expect(harness.stopDaemon() == 0)
    }

    @Test("An action past --action-timeout is stopped with its whole process group and recorded as 124")
    func timeout() throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: ["--action-timeout", "1"])
        // A background child of the shell, in the same process group, writes its pid.
        let action = "sleep 30 & echo $! > child.pid; wait"
        #expect(ctl(harness, in: harness.directory, ["start", "0.2s", "--exec", action]).status == 0)
        let log = contents(of: harness.directory + "/timerd.log", until: { $0.contains("timed out") })
        #expect(log.contains("exec timed out (status 124)"))
        #expect(log.contains("ran past the 1 s action time-out: SIGTERM to its process group"))
        let pid = try #require(
            Int32(contents(of: harness.directory + "/child.pid").trimmingCharacters(in: .whitespacesAndNewlines)))
        // The grandchild got SIGTERM with the group: gone (ESRCH) within a moment (it is reaped by init).
        let gone = contents(of: "/proc/\(pid)/stat", timeout: 3, until: { $0.isEmpty || $0.contains(") Z") })
        #expect(gone.isEmpty || gone.contains(") Z"))
    }

    @Test("A command that writes without end neither holds the event loop nor floods the log")
    func endlessOutput() throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: ["--action-timeout", "2"])
        #expect(ctl(harness, in: harness.directory, ["start", "0.1s", "--exec", "yes"]).status == 0)
        _ = contents(of: harness.directory + "/timerd.log", until: { $0.contains("exec started") })
        // While `yes` writes as fast as it can, timerd still answers (generous bound: a loaded machine).
        for _ in 0..<3 {
            let started = Date()
            #expect(harness.ctl(["ping"]).status == 0)
            #expect(Date().timeIntervalSince(started) < 2)
        }
        let log = contents(of: harness.directory + "/timerd.log", until: { $0.contains("timed out") })
        #expect(log.contains("exec timed out (status 124)"))
        // At most 200 output lines ("y", Daemon.actionOutputLineLimit), then one line saying the
        // rest was not logged.
        let lines = log.split(separator: "\n").filter { $0.hasSuffix("exec output: y") }
        #expect(lines.count == 200)
        #expect(log.contains("exec output: more than 65536 bytes or 200 lines; the rest is not logged"))
    }

    @Test(
        "A subscriber gets the action event with the command's exit status, after the finish",
        arguments: TestBackend.available)
    func actionEvent(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        let client = try RawClient(path: harness.socketPath)
        let reply = try client.request(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe","params":{"events":["finished","action"]}}"#)
        #expect(reply["result"] != nil, "\(reply)")
        #expect(ctl(harness, in: harness.directory, ["start", "0.3s", "--exec", "exit 3"]).status == 0)
        let finished = try JSONObject.parse(try #require(client.readLine()))
        let action = try JSONObject.parse(try #require(client.readLine()))
        #expect((finished["params"] as? [String: Any])?["event"] as? String == "finished")
        let params = try #require(action["params"] as? [String: Any])
        #expect(params["event"] as? String == "action")
        // The contract's member (COMMON.md, docs/protocol.md): exit status 3 of `exit 3`.
        let member = try #require(params["action"] as? [String: Any])
        #expect(member["kind"] as? String == "exec" && member["status"] as? Int == 3)
        #expect(member["trigger"] as? String == "finished" && member["outcome"] as? String == "exited")
        #expect((params["seq"] as? Int ?? 0) > ((finished["params"] as? [String: Any])?["seq"] as? Int ?? .max))
    }

    @Test(
        "A system-wide-style daemon (root) refuses --exec from another uid with -32007, and starts nothing",
        .enabled(if: getuid() == 0))
    func refusalForOtherUser() throws {
        let harness = try Harness()
        chmod(harness.directory, 0o711)
        try harness.startDaemon(extraArguments: ["--socket-mode", "0666"])
        let other = Harness.run(
            "/usr/bin/setpriv",
            [
                "--reuid=64120", "--regid=64120", "--clear-groups", "/bin/sh", "-c",
                "cd / && exec '\(Harness.timerctl)' --socket '\(harness.socketPath)' start 1m --exec 'touch /tmp/x'",
            ])
        #expect(other.status == 1)
        // TimerService+Actions' refusal for uid 64120 by a daemon running as uid 0.
        #expect(
            other.stderr
                == "Error: on-finish actions (--exec) run as timerd's own user (uid 0), and this timerd cannot run "
                + "them as uid 64120; use a per-user timerd for actions (systemctl --user enable --now timerd.socket)\n"
        )
        #expect(try harness.ctlJSON(["status", "--all"], as: [TimerInfo].self).isEmpty)
        // Without an action the same user may start timers.
        let plain = Harness.run(
            "/usr/bin/setpriv",
            ["--reuid=64120", "--regid=64120", "--clear-groups", Harness.timerctl, "--socket", harness.socketPath]
                + ["start", "1m"])
        #expect(plain.status == 0, "\(plain)")
    }
}
