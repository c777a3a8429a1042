import Foundation
import Glibc
import Testing
import TimerProtocol

/// `timerctl logs` against the real timerd: a finished timer's `--exec` run with its trigger, exit
/// status and output; after a restart the outcome only; another user's timer is "no such timer".
@Suite("timerctl logs through the real timerd", .serialized, .tags(.endToEnd))
struct ActionRunsEndToEndTests {
    /// Runs timerctl in `directory` (the action's working directory is the caller's).
    private func ctl(_ harness: Harness, in directory: String, _ arguments: [String]) -> Harness.Run {
        let quoted = ([Harness.timerctl, "--socket", harness.socketPath] + arguments).map { "'" + $0 + "'" }
        return Harness.run("/bin/sh", ["-c", "cd '\(directory)' && exec " + quoted.joined(separator: " ")])
    }

    /// The `timer.runs` result once its first run has ended, or the last one read after 10 s.
    private func endedRuns(_ harness: Harness, _ timer: String) throws -> ActionRunsResult {
        let deadline = Date().addingTimeInterval(10)
        var result = try harness.ctlJSON(["logs", timer], as: ActionRunsResult.self)
        while result.runs.first?.endedAt == nil, Date() < deadline {
            usleep(20_000)
            result = try harness.ctlJSON(["logs", timer], as: ActionRunsResult.self)
        }
        return result
    }

    @Test(
        "logs shows the run's trigger, exit status and output; after a restart its outcome only",
        arguments: TestBackend.available)
    func finishedRun(backend: TestBackend) throws {
        let harness = try Harness()
        let arguments = try backend.daemonArguments()
        try harness.startDaemon(extraArguments: arguments)
        let started = ctl(
            harness, in: harness.directory, ["start", "1s", "--name", "tea", "--exec", "echo hello; exit 3"])
        #expect(started.status == 0, "\(started)")
        #expect(harness.ctl(["wait", "tea"]).status == 0)
        let result = try endedRuns(harness, "tea")
        // Expected: the command's `exit 3` and `echo hello`; the trigger of a timer that finished.
        #expect(result.id == "1")
        #expect(result.name == "tea")
        #expect(result.runs.count == 1)
        let run = try #require(result.runs.first)
        #expect(run.kind == "exec")
        #expect(run.trigger == "finished")
        #expect(run.outcome == "exited")
        #expect(run.exitStatus == 3)
        #expect(run.output == "hello\n")
        #expect(run.outputTruncated == nil)
        // The text: one block, the start in local time, then the output indented by four spaces.
        let text = harness.ctl(["logs", "tea"])
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(lines.first?.hasSuffix("  finished  exec  exit status 3") == true, "\(text.stdout)")
        #expect(lines.dropFirst().first == "    hello")
        // Output lives in memory: after a restart the durable outcome stays, the output is gone.
        #expect(harness.stopDaemon() == 0)
        try harness.startDaemon(extraArguments: arguments)
        let restarted = try harness.ctlJSON(["logs", "tea"], as: ActionRunsResult.self)
        #expect(restarted.runs.map(\.exitStatus) == [3])
        #expect(restarted.runs.map(\.output) == [nil])
        #expect(
            harness.ctl(["logs", "tea"]).stdout.hasSuffix(
                "\n    (output not kept: the run ended before timerd's last start)\n"))
        // Errors as the rest of timerctl: no such timer 1, usage 64.
        let missing = harness.ctl(["logs", "coffee"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: no timer named \"coffee\"\n")
        #expect(harness.ctl(["logs"]).status == 64)
        #expect(harness.stopDaemon() == 0)
    }

    @Test("another user's logs of a timer is no such timer, as for a missing one", .enabled(if: getuid() == 0))
    func otherUser() throws {
        let harness = try Harness()
        chmod(harness.directory, 0o711)  // let the test user reach the socket, not list the directory
        try harness.startDaemon(extraArguments: ["--socket-mode", "0666"])
        #expect(ctl(harness, in: harness.directory, ["start", "1s", "--exec", "echo hello; exit 3"]).status == 0)
        #expect(harness.ctl(["wait", "1"]).status == 0)
        #expect(try endedRuns(harness, "1").runs.map(\.exitStatus) == [3])
        func asUser(_ arguments: [String]) -> Harness.Run {
            Harness.run(
                "/usr/bin/setpriv",
                ["--reuid=64101", "--regid=64101", "--clear-groups", Harness.timerctl, "--socket", harness.socketPath]
                    + arguments)
        }
        let other = asUser(["logs", "1"])
        let missing = asUser(["logs", "999"])
        #expect(other.status == 1)
        #expect(other.stdout == "")
        #expect(other.stderr == "Error: no timer with id 1\n")
        #expect(missing.stderr == "Error: no timer with id 999\n")
        #expect(harness.stopDaemon() == 0)
    }
}
