import Foundation
import Glibc
import Testing
import TimerSystem

/// One timerd per user, found through its state directory as tmux finds its server: the socket
/// follows `XDG_RUNTIME_DIR`, which differs between root's logins (`su`, `sudo -i`, an ssh
/// session), while the state directory does not. Real `timerd` and `timerctl`, temporary
/// directories for both variables.
@Suite("One daemon per user: the state directory names its socket", .serialized, .tags(.endToEnd))
struct OneDaemonPerUserTests {
    /// The environment of a login whose `XDG_RUNTIME_DIR` is `runtime`, with the state directory
    /// `<harness>/state/timerd` for every login.
    private static func login(_ harness: Harness, runtime: String) -> [String: String] {
        ["XDG_RUNTIME_DIR": runtime, "XDG_STATE_HOME": harness.stateDirectory, "PATH": "/usr/bin:/bin"]
    }

    @Test("A second XDG_RUNTIME_DIR finds the daemon the first one started instead of exiting 69")
    func twoRuntimeDirectories() throws {
        let harness = try Harness()
        let first = Self.login(harness, runtime: harness.directory + "/run-a")
        let second = Self.login(harness, runtime: harness.directory + "/run-b")
        for runtime in ["/run-a", "/run-b"] { mkdir(harness.directory + runtime, 0o700) }
        let started = harness.ctl(["start", "1h", "--name", "tea"], socket: false, environment: first)
        #expect(started.stdout == "started 1 \"tea\": 1h\n", "\(started)")
        let ping = harness.ctl(["ping", "--json"], socket: false, environment: first)
        let object = try? JSONSerialization.jsonObject(with: Data(ping.stdout.utf8)) as? [String: Any]
        let pid = try #require((object?["pid"] as? Int).map { Int32($0) }, "\(ping)")
        defer { kill(pid, SIGTERM) }
        let socket = harness.directory + "/run-a/timerd/timerd.sock"
        // The daemon wrote its socket into the state directory (XDG_STATE_HOME/timerd/socket).
        #expect(RuntimePaths.recordedSocket(in: harness.stateDirectory + "/timerd") == socket)

        // Before, this autostarted a second timerd on run-b, which found the state directory locked
        // and exited: "Error: timerd exited at start-up (status 1); see …/timerd.log", exit 69.
        let status = harness.ctl(["status", "tea"], socket: false, environment: second)
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("tea"), "\(status)")
        let secondPing = harness.ctl(["ping"], socket: false, environment: second)
        #expect(secondPing.stdout.contains("pid \(pid)) on \(socket)\n"), "\(secondPing)")
        // No second daemon: nothing listens on run-b.
        #expect(access(harness.directory + "/run-b/timerd/timerd.sock", F_OK) != 0)
        // --no-autostart finds it the same way.
        let noAutostart = harness.ctl(["--no-autostart", "status", "tea"], socket: false, environment: second)
        #expect(noAutostart.status == 0, "\(noAutostart)")
    }

    @Test("When the state directory's daemon cannot be reached, timerctl prints why timerd did not start")
    func startFailureReason() throws {
        let harness = try Harness()
        let state = harness.stateDirectory + "/timerd"
        // A daemon holds the state directory on a socket no login's default names, and its record
        // is gone (a timerd of an earlier version wrote none).
        mkdir(harness.stateDirectory, 0o700)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: Harness.timerd)
        daemon.arguments = ["--socket", harness.socketPath, "--state-dir", state]
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(10)
        while harness.ctl(["ping"]).status != 0 && Date() < deadline { usleep(20_000) }
        #expect(unlink(RuntimePaths.socketRecord(in: state)) == 0)
        mkdir(harness.directory + "/run", 0o700)
        let run = harness.ctl(
            ["status"], socket: false, environment: Self.login(harness, runtime: harness.directory + "/run"))
        #expect(run.status == 69)
        // The reason comes from timerd's log (StateLock.HeldError); before, only the status and the path.
        #expect(
            run.stderr
                == "Error: timerd exited at start-up (status 1): another timerd (pid \(daemon.processIdentifier)) is using the state directory \(state); stop it, or give this one its own --state-dir; see \(state)/timerd.log\n",
            "\(run)")
    }
}
