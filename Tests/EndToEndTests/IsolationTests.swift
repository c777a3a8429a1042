import Foundation
import Glibc
import Testing
import TimerModel
import TimerProtocol

/// Two other users on one root-run daemon: neither can list, wait on or
/// stop the other's timers, both get "no such timer", root sees both; modes are checked.
/// Needs root (CI runs as root); `setpriv` (util-linux) switches the uid for each timerctl call.
@Suite("Per-user isolation on a shared daemon", .serialized, .tags(.endToEnd), .enabled(if: getuid() == 0))
struct IsolationTests {
    private func asUser(_ uid: Int, _ harness: Harness, _ arguments: [String]) -> Harness.Run {
        Harness.run(
            "/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", Harness.timerctl, "--socket", harness.socketPath]
                + arguments)
    }

    @Test("users see only their own timers; others' look missing; root sees all", arguments: TestBackend.available)
    func isolation(backend: TestBackend) throws {
        let harness = try Harness()
        chmod(harness.directory, 0o711)  // let the test users reach the socket, not list the directory
        try harness.startDaemon(extraArguments: ["--socket-mode", "0666"] + (try backend.daemonArguments()))
        let alice = 64_101
        let bob = 64_102

        #expect(asUser(alice, harness, ["start", "1h", "--name", "tea"]).status == 0)
        #expect(asUser(bob, harness, ["start", "1h", "--name", "tea"]).status == 0)  // names are per owner
        let aliceList = asUser(alice, harness, ["status", "--json"])
        let aliceTimers = try JSONDecoder().decode([TimerInfo].self, from: Data(aliceList.stdout.utf8))
        #expect(aliceTimers.map(\.id) == ["1"])
        let bobTimers = try JSONDecoder().decode(
            [TimerInfo].self, from: Data(asUser(bob, harness, ["status", "--json"]).stdout.utf8))
        #expect(bobTimers.map(\.id) == ["2"])

        // Bob trying Alice's timer by id looks exactly like a timer that does not exist.
        for verb in ["stop", "wait", "status", "pause"] {
            let other = asUser(bob, harness, [verb, "1"])
            let missing = asUser(bob, harness, [verb, "999"])
            #expect(other.status == 1)
            #expect(other.stderr == "Error: no timer with id 1\n")
            #expect(missing.stderr == "Error: no timer with id 999\n")
        }
        #expect(asUser(alice, harness, ["stop", "2"]).stderr == "Error: no timer with id 2\n")
        // Alice's "tea" is hers; Bob stopping "tea" stops his own.
        #expect(asUser(bob, harness, ["stop", "tea"]).stdout.hasPrefix("stopped 2 \"tea\""))
        #expect(asUser(alice, harness, ["status", "tea", "--json"]).stdout.contains("\"state\" : \"running\""))

        // root sees both.
        let all = try harness.ctlJSON(["status", "--all"], as: [TimerInfo].self)
        #expect(all.map(\.id) == ["1", "2"])

        // Modes: socket as configured, state directory 0700, state files 0600.
        var info = stat()
        #expect(stat(harness.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o666)
        // A shared host keeps no state directory: the timers are in the database.
        guard backend == .file else {
            #expect(harness.stopDaemon() == 0)
            return
        }
        #expect(stat(harness.stateDirectory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: harness.stateDirectory)
        #expect(!files.isEmpty)
        for file in files {
            #expect(stat(harness.stateDirectory + "/" + file, &info) == 0)
            #expect(info.st_mode & 0o077 == 0, "\(file) is readable by others")
        }
        #expect(harness.stopDaemon() == 0)
    }

    @Test("the default 0600 socket keeps other users out entirely")
    func defaultSocketIsPrivate() throws {
        let harness = try Harness()
        chmod(harness.directory, 0o711)
        try harness.startDaemon()
        let denied = asUser(64_101, harness, ["status"])
        #expect(denied.status == 69)
        // SocketDiscovery's text for EACCES on connect: not "not running", since a timerd answers there.
        #expect(
            denied.stderr
                == "Error: cannot connect to timerd on \(harness.socketPath): Permission denied for uid 64101 "
                + "(another user's timerd): use your own (timerctl without --socket) or ask its owner for access\n")
        #expect(harness.stopDaemon() == 0)
    }
}
