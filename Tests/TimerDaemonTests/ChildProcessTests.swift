import Foundation
import Glibc
import Testing
import TimerSystem

/// `ChildProcess`, the spawner of on-finish actions, on real processes: exit status and output,
/// its own process group, default signal dispositions, the exact environment and directory, and a
/// missing directory refused by `posix_spawn` itself.
@Suite("TimerSystem: ChildProcess (posix_spawn, pidfd, process group)")
struct ChildProcessTests {
    /// Runs `/bin/sh -c command` and returns how it ended and everything it wrote.
    private func run(_ command: String, environment: [String] = ["PATH=/usr/bin:/bin"], directory: String = "/")
        throws -> (ChildProcess.Termination, String)
    {
        let child = try ChildProcess.spawn(
            executable: "/bin/sh", arguments: ["sh", "-c", command], environment: environment,
            workingDirectory: directory)
        // The pidfd is readable once the child has exited (pidfd_open(2)); 10 s bounds a hang.
        #expect(try Poll.wait(child.exitDescriptor.rawValue, events: Int16(POLLIN), timeoutMilliseconds: 10_000) != 0)
        var termination: ChildProcess.Termination?
        for _ in 0..<1_000 where termination == nil { termination = child.reap() }
        var output: [UInt8] = []
        var buffer = [UInt8]()
        while let bytes = child.readOutput(&buffer) {
            if bytes.isEmpty {
                _ = try? Poll.wait(child.outputDescriptor ?? -1, events: Int16(POLLIN), timeoutMilliseconds: 1_000)
                continue
            }
            output += bytes
        }
        return (try #require(termination), String(decoding: output, as: UTF8.self))
    }

    @Test("The exit status and both output streams come back, in the given directory and environment only")
    func statusAndOutput() throws {
        let (end, output) = try run(
            "echo out; echo err >&2; pwd; env | sort | tr '\\n' ' '; exit 4",
            environment: ["PATH=/usr/bin:/bin", "TIMER_ID=7"], directory: "/tmp")
        #expect(end == .exited(4))
        // sh adds PWD itself (and, on dash, nothing else): the environment is exactly what was given.
        #expect(output == "out\nerr\n/tmp\nPATH=/usr/bin:/bin PWD=/tmp TIMER_ID=7 ")
    }

    @Test("The child leads its own process group and has SIGPIPE at its default (timerd ignores it)")
    func groupAndSignals() throws {
        // Field 5 of /proc/PID/stat is the process group (proc(5)); `(sh)` has no space in it.
        let (_, group) = try run("test \"$(cut -d' ' -f5 /proc/$$/stat)\" = \"$$\" && echo leader")
        #expect(group == "leader\n")
        // As timerd does at start-up (and a test runner may already have); the child must not inherit it.
        signal(SIGPIPE, SIG_IGN)
        let (end, _) = try run("kill -PIPE $$; exit 0")
        #expect(end == .signalled(SIGPIPE))
    }

    @Test("signalGroup reaches a grandchild in the group")
    func signalGroup() throws {
        let child = try ChildProcess.spawn(
            executable: "/bin/sh", arguments: ["sh", "-c", "sleep 30 & echo $!; wait"], environment: [],
            workingDirectory: "/")
        var buffer = [UInt8]()
        var text = ""
        while !text.hasSuffix("\n"), let bytes = child.readOutput(&buffer) {
            if bytes.isEmpty {
                _ = try Poll.wait(child.outputDescriptor ?? -1, events: Int16(POLLIN), timeoutMilliseconds: 5_000)
            }
            text += String(decoding: bytes, as: UTF8.self)
        }
        let grandchild = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        child.signalGroup(SIGKILL)
        #expect(try Poll.wait(child.exitDescriptor.rawValue, events: Int16(POLLIN), timeoutMilliseconds: 10_000) != 0)
        var end: ChildProcess.Termination?
        for _ in 0..<1_000 where end == nil { end = child.reap() }
        #expect(end == .signalled(SIGKILL))
        // The grandchild (`sleep 30`) holds the output pipe's write end too: end of output before
        // its 30 s are up proves the group's SIGKILL reached it.
        let started = Date()
        var atEnd = false
        while !atEnd, Date().timeIntervalSince(started) < 10 {
            guard let bytes = child.readOutput(&buffer) else {
                atEnd = true
                break
            }
            if bytes.isEmpty {
                _ = try Poll.wait(child.outputDescriptor ?? -1, events: Int16(POLLIN), timeoutMilliseconds: 10_000)
            }
        }
        #expect(atEnd && Date().timeIntervalSince(started) < 10)
        #expect(grandchild > 1)  // the pid the shell printed: it ran
    }

    @Test("A missing working directory is refused by posix_spawn with ENOENT, and nothing runs")
    func missingDirectory() {
        #expect(throws: SystemError.self) {
            _ = try ChildProcess.spawn(
                executable: "/bin/sh", arguments: ["sh", "-c", "true"], environment: [],
                workingDirectory: "/nonexistent/timerd-test")
        }
        do {
            _ = try ChildProcess.spawn(
                executable: "/bin/sh", arguments: ["sh", "-c", "true"], environment: [],
                workingDirectory: "/nonexistent/timerd-test")
        } catch {
            #expect(error.errno == .noSuchFileOrDirectory)
        }
    }
}
