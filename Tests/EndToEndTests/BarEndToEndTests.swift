import Foundation
import Glibc
import Testing

/// A program whose standard output is a pipe the test reads line by line while it runs, and whose
/// read end the test can close (a status bar that goes away).
final class LineReadingProgram {
    let pid: pid_t
    private var readFD: Int32
    private var buffer: [UInt8] = []

    /// Starts `executable` with `arguments`: standard input `/dev/null`, standard output the pipe,
    /// standard error appended to `errorPath`.
    init(_ executable: String, _ arguments: [String], errorPath: String) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SystemFailure("pipe: errno \(errno)") }
        // Neither end leaks into the child beyond the dup2 onto its standard output.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw SystemFailure("posix_spawn \(executable): \(spawned)")
        }
        self.pid = pid
        readFD = fds[0]
    }

    deinit {
        if readFD >= 0 { close(readFD) }
        if wait(timeout: 0) == nil {
            kill(pid, SIGKILL)
            _ = wait(timeout: 10)
        }
    }

    /// The next line (without its newline) within `timeout` seconds, or `nil`.
    func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var descriptor = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(left * 1_000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4_096)
            let count = read(readFD, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
        }
    }

    /// Closes the test's end of the pipe: the program's next write gets EPIPE.
    func closeOutput() {
        close(readFD)
        readFD = -1
    }

    /// The exit status once the program has exited within `timeout` seconds; `nil` if it still runs
    /// (128 + N when signal N ended it).
    func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7f
                return signal == 0 ? (status >> 8) & 0xff : 128 + signal
            }
            if result < 0 { return -1 }
            if Date() >= deadline { return nil }
            usleep(20_000)
        }
    }
}

/// `timerctl bar` against the real timerd on each backend: its lines as a status bar reads them
/// through a pipe; the tick between events; a pause; a restart of timerd; the bar going away.
@Suite("timerctl bar on a real timerd", .serialized, .tags(.endToEnd))
struct BarEndToEndTests {
    @Test(
        "lines on start, a tick each second, a pause, across a timerd restart, exit 0 when the bar goes away",
        arguments: TestBackend.available)
    func barLines(backend: TestBackend) throws {
        let harness = try Harness()
        let daemonArguments = try backend.daemonArguments()
        try harness.startDaemon(extraArguments: daemonArguments)
        let bar = try LineReadingProgram(
            Harness.timerctl,
            ["--socket", harness.socketPath, "bar", "--format", "{name} {remaining} {state}", "--idle", "idle"],
            errorPath: harness.directory + "/bar.err")
        // No live timer: the idle text, once the listing has come.
        #expect(bar.readLine(timeout: 10) == "idle")

        #expect(harness.ctl(["start", "1h", "--name", "tea"]).status == 0)
        // The started event's timer has 3,600 s left: 1:00:00 (seconds rounded up).
        #expect(bar.readLine(timeout: 10) == "tea 1:00:00 running")
        // Then one line a second from the local clock alone (timerd sends nothing meanwhile).
        var ticks: [Date] = []
        for expected in ["tea 0:59:59 running", "tea 0:59:58 running"] {
            #expect(bar.readLine(timeout: 5) == expected)
            ticks.append(Date())
        }
        let interval = ticks[1].timeIntervalSince(ticks[0])
        #expect(interval > 0.5 && interval < 2.5, "\(interval) s between ticks")

        // A pause: the line shows the time left that the pause's own reply reports, then stays.
        let paused = harness.ctl(["pause", "tea"])
        let left = try #require(paused.stdout.split(separator: " ").dropLast().last.map(String.init))  // "0:59:57"
        #expect(paused.stdout == "paused 1 \"tea\" with \(left) left\n", "\(paused)")
        var line = bar.readLine(timeout: 10)
        while let text = line, text.hasSuffix(" running") { line = bar.readLine(timeout: 10) }  // a tick that crossed
        #expect(line == "tea \(left) paused")
        #expect(bar.readLine(timeout: 1.5) == nil)  // paused: no tick, no line

        // timerd restarts: bar connects again by itself, and sees the resume made afterwards.
        #expect(harness.stopDaemon() == 0)
        try harness.startDaemon(extraArguments: daemonArguments)
        #expect(harness.ctl(["resume", "tea"]).status == 0)
        line = bar.readLine(timeout: 15)
        #expect(line == "tea \(left) running", "\(String(describing: line)); \(harness.log())")

        // The bar goes away: bar exits 0 (it ignores SIGPIPE; poll reports the closed pipe).
        bar.closeOutput()
        #expect(bar.wait(timeout: 10) == 0)
        let errors = try String(contentsOfFile: harness.directory + "/bar.err", encoding: .utf8)
        #expect(errors.isEmpty)
        #expect(harness.stopDaemon() == 0)
    }

    /// `timerctl bar | head -1` with a paused timer: no tick will ever write again, so only `poll`
    /// can tell that head has gone (POLLERR on the pipe); with standard output closed from the start,
    /// bar exits before connecting (else the socket would take descriptor 1 and get the lines).
    @Test("bar exits 0 at once when its reader goes while nothing ticks, and with stdout closed")
    func readerGone() throws {
        let harness = try Harness()
        try harness.startDaemon()
        #expect(harness.ctl(["start", "1h", "--name", "tea"]).status == 0)
        #expect(harness.ctl(["pause", "tea"]).status == 0)
        let ctl = "'\(Harness.timerctl)' --socket '\(harness.socketPath)'"
        let started = Date()
        let piped = Harness.run("/bin/bash", ["-c", "set -o pipefail; \(ctl) bar | head -1"])
        let seconds = Date().timeIntervalSince(started)
        #expect(piped.status == 0 && piped.stdout == "⏸ tea 1:00:00\n" && piped.stderr.isEmpty, "\(piped)")
        #expect(seconds < 5, "\(seconds) s")  // at once, not at a tick that never comes
        let closed = Harness.run("/bin/sh", ["-c", "\(ctl) bar >&-"])
        #expect(closed.status == 0 && closed.stderr.isEmpty, "\(closed)")
        #expect(!harness.log().contains("not valid JSON"), "\(harness.log())")
        #expect(harness.stopDaemon() == 0)
    }

    /// Through a proxy that records what timerctl sends: 4 s of a running timer, with a pause and
    /// a resume made by another client, cost bar two requests, the subscription and one listing;
    /// every tick comes from its own clock.
    @Test(
        "bar never polls: one timer.subscribe and one timer.list, whatever it prints", arguments: TestBackend.available)
    func barDoesNotPoll(backend: TestBackend) throws {
        let harness = try Harness()
        try harness.startDaemon(extraArguments: try backend.daemonArguments())
        #expect(harness.ctl(["start", "1h", "--name", "tea"]).status == 0)
        let proxy = try RecordingProxy(
            path: harness.directory + "/proxy.sock", target: harness.socketPath,
            recordPath: harness.directory + "/requests.log")
        let bar = try LineReadingProgram(
            Harness.timerctl, ["--socket", proxy.path, "bar", "--format", "{remaining} {state}"],
            errorPath: harness.directory + "/bar.err")
        var lines: [String] = []
        let started = Date()
        while Date().timeIntervalSince(started) < 2, let line = bar.readLine(timeout: 5) { lines.append(line) }
        #expect(harness.ctl(["pause", "tea"]).status == 0)
        // The pause's line before the resume: on a loaded machine both events can reach bar in one
        // read, and bar prints the state it ends in, once.
        while !lines.contains(where: { $0.hasSuffix(" paused") }), Date().timeIntervalSince(started) < 12,
            let line = bar.readLine(timeout: 5)
        {
            lines.append(line)
        }
        #expect(harness.ctl(["resume", "tea"]).status == 0)
        while Date().timeIntervalSince(started) < 4, let line = bar.readLine(timeout: 5) { lines.append(line) }
        // CPU time so far (utime + stime, clock ticks: man proc(5), fields 14 and 15).
        let stat = try String(contentsOfFile: "/proc/\(bar.pid)/stat", encoding: .utf8)
        let fields = stat[(stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ")
        let ticks = (Int(fields[12]) ?? -1) + (Int(fields[13]) ?? -1)
        bar.closeOutput()
        #expect(bar.wait(timeout: 10) == 0)
        #expect(try proxy.methods() == ["timer.subscribe", "timer.list"])
        // About one line a second (4 s) plus the pause and the resume: at least 5 lines, all distinct
        // from the one before.
        #expect(lines.count >= 5, "\(lines)")
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0 != $1 }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix(" paused") }, "\(lines)")
        print("bar (\(backend)): \(lines.count) lines in 4 s, 2 requests, \(ticks) clock ticks of CPU time")
        #expect(harness.stopDaemon() == 0)
    }

    /// tmux runs `#()` commands through a pipe and shows the last line of one still running,
    /// redrawing when a new line comes (tmux(1), FORMATS). In a pseudo-terminal (`script`), a real
    /// tmux with `status-interval 15` draws bar's countdown several times in 4 s: the updates come
    /// from bar's lines, not from tmux re-running anything.
    @Test("tmux's status line shows bar --tmux's lines as they come, well within status-interval")
    func tmuxStatusLine() throws {
        let tmux = "/usr/bin/tmux"
        try #require(
            FileManager.default.isExecutableFile(atPath: tmux),
            "tmux is missing: apt-get install tmux (scripts/test and .ci/run install it)")
        let harness = try Harness()
        try harness.startDaemon()
        #expect(harness.ctl(["start", "1h", "--name", "tea"]).status == 0)
        let configuration = harness.directory + "/tmux.conf"
        try """
        set -g status-interval 15
        set -g status-right-length 60
        set -g status-right '#(\(Harness.timerctl) --socket \(harness.socketPath) bar --tmux --format bar:{name}:{remaining})'

        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        let typescript = harness.directory + "/tmux.typescript"
        let command =
            "stty cols 100 rows 10; \(tmux) -S \(harness.directory)/tmux.sock -f \(configuration) new-session 'sleep 4'"
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": harness.directory, "TERM": "xterm", "LANG": "C.UTF-8",
            "SHELL": "/bin/sh",
        ]
        let run = Harness.run("/usr/bin/script", ["-qfc", command, typescript], environment: environment)
        #expect(run.status == 0, "\(run)")
        let screen = String(decoding: try Data(contentsOf: URL(fileURLWithPath: typescript)), as: UTF8.self)
        // Each countdown value tmux drew, in order, once each.
        var shown: [String] = []
        var rest = screen[...]
        while let range = rest.range(of: "bar:tea:") {
            let value = String(rest[range.upperBound...].prefix(7))  // 0:59:58
            if shown.last != value { shown.append(value) }
            rest = rest[range.upperBound...]
        }
        // At least three different seconds, each lower than the one before (4 s of a 1 h countdown).
        print("tmux drew bar's countdown as: \(shown.joined(separator: " "))")
        #expect(shown.count >= 3, "\(shown)")
        #expect(shown == shown.sorted(by: >) && Set(shown).count == shown.count, "\(shown)")
        #expect(shown.allSatisfy { $0.hasPrefix("0:59:") || $0 == "1:00:00" }, "\(shown)")
        #expect(harness.stopDaemon() == 0)
    }
}
