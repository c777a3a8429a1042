import Foundation
import Glibc
import Testing
import TimerModel

/// `timerctl watch` on a real pseudo-terminal against a real timerd: the first screen, a key that
/// pauses (checked with `timerctl status`), a resize to 40 columns without a wrapped line, and a clean
/// terminal after SIGTERM. Only this end-to-end suite waits on the real clock (for frames, never a
/// fixed sleep).
@Suite("timerctl watch on a pseudo-terminal", .serialized, .timeLimit(.minutes(2)))
struct WatchSessionTests {
    static var timerctl: String { PseudoTerminal.productsDirectory + "/timerctl" }

    /// A timerd on a socket in a fresh directory, stopped (SIGTERM) by ``stop()``.
    final class Daemon {
        let directory: URL
        let socket: String
        let process = Process()

        init(_ name: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("timerwatch-\(getpid())-\(name)")
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            socket = directory.appendingPathComponent("timerd.sock").path
            process.executableURL = URL(fileURLWithPath: PseudoTerminal.productsDirectory + "/timerd")
            process.arguments = ["--socket", socket, "--state-dir", directory.appendingPathComponent("state").path]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(15)
            while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(20_000) }
        }

        /// Runs timerctl on this daemon's socket; returns its exit status and standard output.
        func ctl(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: WatchSessionTests.timerctl)
            process.arguments = ["--socket", socket] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test("first screen, p pauses, 40 columns never wrap, SIGTERM leaves a clean terminal")
    func session() throws {
        let daemon = try Daemon("session")
        defer { daemon.stop() }
        #expect(try daemon.ctl(["start", "25m", "--name", "tea"]).status == 0)
        #expect(try daemon.ctl(["start", "25m", "5m", "--name", "pomodoro"]).status == 0)
        // A name of 11 wide characters (22 columns): cut, never split, on a narrow terminal.
        #expect(try daemon.ctl(["start", "1h", "--name", "お茶の時間です長い名前"]).status == 0)
        let terminal = try PseudoTerminal(
            Self.timerctl, ["--socket", daemon.socket, "watch"],
            environment: ["TERM": "xterm", "NO_COLOR": "1", "LANG": "C.UTF-8", "TZ": "UTC"], outputIsTerminal: true)

        let first = terminal.waitForFrame(containing: "お茶")
        let lines = first.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("timerctl watch · 3 live timers · ") == true, "\(first)")
        // The rows in id order, the first selected; a group shows its step; the keys are listed.
        let rows = lines.filter { $0.contains("running") }
        #expect(rows.count == 3, "\(first)")
        #expect(rows.first?.hasPrefix("> 1   tea") == true, "\(first)")
        #expect(rows.dropFirst().first?.contains("step 1/2") == true, "\(first)")
        #expect(lines.last == "p pause/resume  s stop  +/- 1 min  n next step  ↑/↓ select  q quit", "\(first)")
        #expect(!String(decoding: terminal.rawScreen, as: UTF8.self).contains("\u{1B}[32m"))  // NO_COLOR

        terminal.type("p")
        let paused = terminal.waitForFrame(containing: "paused")
        #expect(paused.contains("> 1   tea"), "\(paused)")
        let status = try daemon.ctl(["status", "tea", "--json"])
        #expect(status.output.contains("\"state\" : \"paused\""), "\(status.output)")

        let before = terminal.frameCount
        terminal.resize(columns: 40)
        let narrow = terminal.waitForFrame(after: before)
        let narrowLines = narrow.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(narrowLines.count >= 5, "\(narrow)")
        for line in narrowLines {
            #expect(DisplayWidth.of(String(line)) <= 40, "wider than 40 columns: \(line)")
        }
        #expect(narrow.contains("お茶"), "\(narrow)")
        #expect(narrow.contains("…"), "the long name is cut with an ellipsis: \(narrow)")

        kill(terminal.pid, SIGTERM)
        let result = terminal.finish()
        #expect(result.status == 128 + SIGTERM)
        #expect(terminal.isCooked)
        // The last bytes written show the cursor and leave the alternate screen.
        #expect(String(decoding: terminal.rawScreen, as: UTF8.self).hasSuffix("\u{1B}[?25h\u{1B}[?1049l"))
    }

    @Test("q quits with status 0 and restores the terminal")
    func quit() throws {
        let daemon = try Daemon("quit")
        defer { daemon.stop() }
        let terminal = try PseudoTerminal(
            Self.timerctl, ["--socket", daemon.socket, "top"],
            environment: ["TERM": "xterm", "NO_COLOR": "1", "LANG": "C.UTF-8", "TZ": "UTC"], outputIsTerminal: true)
        #expect(terminal.waitForFrame(containing: "no live timers").contains("timerctl watch · 0 live timers"))
        terminal.type("q")
        #expect(terminal.finish().status == 0)
        #expect(terminal.isCooked)
        #expect(String(decoding: terminal.rawScreen, as: UTF8.self).hasSuffix("\u{1B}[?25h\u{1B}[?1049l"))
    }

    @Test("Without a terminal: a clear error pointing to 'timerctl events', status 69, no daemon asked")
    func notATerminal() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.timerctl)
        process.arguments = ["--socket", "/nonexistent/timerd.sock", "watch"]
        let error = Pipe()
        process.standardInput = Pipe()
        process.standardOutput = Pipe()
        process.standardError = error
        try process.run()
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 69)
        #expect(
            message
                == "Error: watch needs a terminal (standard input and output are not one); 'timerctl events' prints "
                + "the same events as lines, and 'timerctl status' the timers\n")
    }
}
