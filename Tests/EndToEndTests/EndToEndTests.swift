import Foundation
import Glibc
import Testing
import TimerModel
import TimerProtocol

/// The main job through the real binaries: timerctl → Unix socket → timerd → engine → disk.
/// These are the only tests that wait for real time to pass, with generous bounds.
@Suite("timerctl drives a real timerd", .serialized, .tags(.endToEnd))
struct EndToEndTests {
    @Test(
        "start, status, pause/resume, stop and wait through the real binaries",
        arguments: TestBackend.available)
    func mainJob(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())

        let started = harness.ctl(["start", "2s", "--name", "tea"])
        #expect(started.status == 0, "\(started)")
        #expect(started.stdout == "started 1 \"tea\": 2s\n")
        let group = harness.ctl(["start", "1s", "1500ms", "--name", "pomodoro"])
        #expect(group.stdout == "started 2 \"pomodoro\": 1s + 1.5s\n")
        let long = harness.ctl(["start", "PT1H", "--name", "long"])
        #expect(long.status == 0)

        // status --json: remaining within ±0.5 s, progress in milliseconds.
        let timers = try harness.ctlJSON(["status"], as: [TimerInfo].self)
        #expect(timers.map(\.id) == ["1", "2", "3"])
        let tea = try #require(timers.first { $0.name == "tea" })
        #expect(tea.state == .running)
        #expect(tea.duration == 2)
        #expect(abs(tea.remaining - 2) <= 0.5)
        #expect(abs(tea.elapsed + tea.remaining - 2) < 1e-6)
        #expect(tea.progress.totalUnitCount == 2_000)
        #expect(abs(tea.progress.fractionCompleted - Double(tea.progress.completedUnitCount) / 2_000) < 1e-9)
        let pomodoro = try #require(timers.first { $0.name == "pomodoro" })
        #expect(pomodoro.progress.totalUnitCount == 2_500)
        #expect(pomodoro.children?.map(\.progress.totalUnitCount) == [1_000, 1_500])
        #expect(pomodoro.children?.map(\.state) == [.running, .pending])
        #expect(pomodoro.currentChild == 0)

        // Pause: remaining does not move while paused.
        #expect(harness.ctl(["pause", "long"]).status == 0)
        let pausedBefore = try harness.ctlJSON(["status", "long"], as: [TimerInfo].self)[0]
        usleep(600_000)
        let pausedAfter = try harness.ctlJSON(["status", "long"], as: [TimerInfo].self)[0]
        #expect(pausedAfter.state == .paused)
        #expect(pausedAfter.progress.isPaused)
        #expect(pausedAfter.remaining == pausedBefore.remaining)
        #expect(harness.ctl(["resume", "long"]).status == 0)
        let resumed = try harness.ctlJSON(["status", "long"], as: [TimerInfo].self)[0]
        #expect(resumed.state == .running)
        #expect(abs(resumed.remaining - pausedBefore.remaining) < 0.5)

        // Stop one; waiting on it reports "stopped" with exit 1.
        let stopped = harness.ctl(["stop", "long"])
        #expect(stopped.status == 0)
        #expect(stopped.stdout.hasPrefix("stopped 3 \"long\" with "))  // 0:59:59 or 1:00:00 (rounded up)
        let waitStopped = harness.ctl(["wait", "long"])
        #expect(waitStopped.status == 1)
        #expect(waitStopped.stdout == "3 \"long\" was stopped\n")

        // Wait on the group until it finishes: exit 0, every child finished, progress complete.
        let waited = harness.ctl(["wait", "pomodoro", "--json"])
        #expect(waited.status == 0, "\(waited)")
        let finished = try JSONDecoder().decode(TimerInfo.self, from: Data(waited.stdout.utf8))
        #expect(finished.state == .finished)
        #expect(finished.remaining == 0)
        #expect(finished.progress.completedUnitCount == 2_500)
        #expect(finished.progress.fractionCompleted == 1)
        #expect(finished.progress.isFinished)
        #expect(finished.children?.map(\.state) == [.finished, .finished])
        #expect(harness.ctl(["wait", "tea"]).status == 0)

        // Errors: unknown timer (1), bad duration (64), invalid transition (1).
        let unknown = harness.ctl(["stop", "nope"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "Error: no timer named \"nope\"\n")
        #expect(unknown.stdout.isEmpty)
        let bad = harness.ctl(["start", "-5m"])
        #expect(bad.status == 64)
        #expect(
            bad.stderr == """
                Error: duration must be > 0 and ≤ 366 days, got "-5m"
                See 'timerctl start --help'.

                """)
        let again = harness.ctl(["stop", "tea"])
        #expect(again.status == 1)
        #expect(
            again.stderr
                == "Error: cannot stop timer 1 (\"tea\"): it has finished; only running, paused or ringing timers can be stopped\n"
        )

        // Live list is empty now; --all shows the history.
        #expect(harness.ctl(["status"]).stdout == "no live timers (timerctl status --all shows ended ones)\n")
        let all = try harness.ctlJSON(["status", "--all"], as: [TimerInfo].self)
        #expect(all.map(\.state) == [.finished, .finished, .stopped])
        #expect(harness.stopDaemon() == 0)
    }

    @Test("an absent daemon with --no-autostart exits 69 and says how to start one")
    func absentDaemon() throws {
        let harness = try Harness()
        let explicit = harness.ctl(["status"])
        #expect(explicit.status == 69)
        #expect(
            explicit.stderr
                == "Error: timerd is not running on \(harness.socketPath) (connect \(harness.socketPath): No such file or directory)\n"
        )
        let environment = [
            "XDG_RUNTIME_DIR": harness.directory, "XDG_STATE_HOME": harness.stateDirectory, "PATH": "/usr/bin:/bin",
        ]
        let implicit = harness.ctl(["--no-autostart", "status"], socket: false, environment: environment)
        #expect(implicit.status == 69)
        let path = harness.directory + "/timerd/timerd.sock"
        #expect(
            implicit.stderr
                == "Error: timerd is not running on \(path) (connect \(path): No such file or directory); start it with 'timerd' or drop --no-autostart\n"
        )
    }

    @Test("timerctl starts timerd on the default socket when none answers, like tmux")
    func autostart() throws {
        let harness = try Harness()
        let environment = [
            "XDG_RUNTIME_DIR": harness.directory, "XDG_STATE_HOME": harness.stateDirectory, "PATH": "/usr/bin:/bin",
        ]
        let started = harness.ctl(["start", "1h", "--name", "auto"], socket: false, environment: environment)
        #expect(started.status == 0, "\(started)")
        let ping = harness.ctl(["ping", "--json"], socket: false, environment: environment)
        #expect(ping.status == 0)
        let result = try JSONDecoder().decode(PingResult.self, from: Data(ping.stdout.utf8))
        defer { kill(result.pid, SIGTERM) }
        #expect(result.protocolVersion == 1)
        var info = stat()
        #expect(stat(harness.directory + "/timerd", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(stat(harness.directory + "/timerd/timerd.sock", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let status = try JSONDecoder().decode(
            [TimerInfo].self,
            from: Data(harness.ctl(["status", "--json"], socket: false, environment: environment).stdout.utf8))
        #expect(status.map(\.name) == ["auto"])
    }

    @Test("an autostarted daemon exits by itself when idle; its state stays on disk")
    func idleExit() throws {
        let harness = try Harness()
        // A live timer keeps the idle daemon busy while the harness connects: its idle clock starts
        // only once the timer has finished. (Starting with an empty state raced: on a loaded machine
        // the harness's first ping came after the 1 s idle window, and timerd had rightly exited.)
        try harness.startDaemon()
        #expect(harness.ctl(["start", "4s", "--name", "brief"]).status == 0)
        #expect(harness.stopDaemon() == 0)
        try harness.startDaemon(extraArguments: ["--exit-when-idle", "1"])
        let daemon = try #require(harness.daemon)
        let deadline = Date().addingTimeInterval(20)
        while daemon.isRunning && Date() < deadline { usleep(50_000) }
        #expect(!daemon.isRunning)
        #expect(daemon.terminationStatus == 0)
        #expect(harness.log().contains("idle for 1 s with no live timers and no clients: exiting"))
        try harness.startDaemon()
        let history = try harness.ctlJSON(["status", "--all"], as: [TimerInfo].self)
        #expect(history.map(\.name) == ["brief"])
        #expect(history.first?.state == .finished)
        #expect(harness.stopDaemon() == 0)
    }

    @Test("state survives a restart; downtime counts")
    func restart() throws {
        let harness = try Harness()
        try harness.startDaemon()
        #expect(harness.ctl(["start", "1h", "--name", "kept"]).status == 0)
        #expect(harness.ctl(["start", "30m", "--name", "held"]).status == 0)
        #expect(harness.ctl(["pause", "held"]).status == 0)
        let before = try harness.ctlJSON(["status"], as: [TimerInfo].self)
        #expect(harness.stopDaemon() == 0)
        usleep(500_000)
        try harness.startDaemon()
        let after = try harness.ctlJSON(["status"], as: [TimerInfo].self)
        #expect(after.map(\.name) == ["kept", "held"])
        #expect(after[0].state == .running)
        #expect(before[0].remaining - after[0].remaining >= 0.5)
        #expect(before[0].remaining - after[0].remaining < 5)
        #expect(after[1].state == .paused)
        #expect(after[1].remaining == before[1].remaining)
        #expect(harness.ctl(["start", "1m"]).stdout == "started 3: 1m\n")
        #expect(harness.stopDaemon() == 0)
    }

    @Test("a second daemon on the same socket refuses to start; a stale socket is replaced")
    func singleInstance() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let second = Harness.run(
            Harness.timerd, ["--socket", harness.socketPath, "--state-dir", harness.stateDirectory + "2"])
        #expect(second.status == 1)
        #expect(
            second.stderr.contains("timerd: cannot start: another timerd is already listening on \(harness.socketPath)")
        )
        // A second daemon on another socket but the same state directory is refused too: two
        // daemons must never share a journal.
        let sharing = Harness.run(
            Harness.timerd, ["--socket", harness.directory + "/other.sock", "--state-dir", harness.stateDirectory])
        #expect(sharing.status == 1)
        let pid = try #require(harness.daemon?.processIdentifier)
        #expect(
            sharing.stderr.contains(
                "timerd: cannot start: another timerd (pid \(pid)) is using the state directory \(harness.stateDirectory); "
                    + "stop it, or give this one its own --state-dir"), "\(sharing)")
        // SIGKILL leaves the socket file behind; the next daemon removes it and serves.
        #expect(harness.stopDaemon(signal: SIGKILL) == SIGKILL)
        #expect(FileManager.default.fileExists(atPath: harness.socketPath))
        try harness.startDaemon()
        #expect(harness.log().contains("removed a stale socket left at \(harness.socketPath)"))
        // SIGTERM: exit 0 and the socket is gone.
        #expect(harness.stopDaemon() == 0)
        #expect(!FileManager.default.fileExists(atPath: harness.socketPath))
    }
}
