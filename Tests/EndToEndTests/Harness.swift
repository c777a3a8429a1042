import Foundation
import Glibc
import TestSupport
import Testing
import TimerModel
import TimerProtocol
import TimerSystem

/// Runs the real `timerd` and `timerctl` binaries in a private temporary directory.
///
/// Each harness has its own socket and state directory, so tests never touch a user's daemon and
/// can run in parallel. Output is captured in files and read after the process exits, so a full
/// pipe can never block a child.
final class Harness: @unchecked Sendable {
    let directory: String
    let socketPath: String
    let stateDirectory: String
    private(set) var daemon: Process?
    private var daemonLog: String { directory + "/timerd.log" }

    /// The directory holding the built products (`.build/debug`): where the test bundle itself is.
    static let productsDirectory: String = {
        let bundle = Bundle.main.bundlePath
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path,
            bundle,
            URL(fileURLWithPath: bundle).deletingLastPathComponent().path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/timerctl") } ?? candidates[0]
    }()

    static var timerd: String { productsDirectory + "/timerd" }
    static var timerctl: String { productsDirectory + "/timerctl" }

    init() throws {
        var template = Array("/tmp/timerd-e2e-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemFailure("mkdtemp failed") }
        directory = String(cString: made)
        socketPath = directory + "/timerd.sock"
        stateDirectory = directory + "/state"
    }

    deinit {
        if let daemon, daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts timerd on this harness's socket and waits until it answers (10 s at most).
    ///
    /// - Parameters:
    ///   - environment: variables added to the test's own environment (`TIMERD_BOOT_ID`).
    ///   - unsetting: variables removed from it (`TZ`, whose empty value means UTC, not unset).
    ///   - launcher: a program and its arguments that exec timerd (`setpriv` dropping a capability),
    ///     or empty to run timerd itself.
    func startDaemon(
        extraArguments: [String] = [], environment: [String: String] = [:], unsetting: Set<String> = [],
        launcher: [String] = []
    ) throws {
        let arguments = ["--socket", socketPath, "--state-dir", stateDirectory] + extraArguments
        // Foundation's spawn can fail with EBADF when another test thread closes a descriptor while
        // the child's descriptors are being set up (seen once in a full parallel run): try again,
        // twice, each time with a new Process (one that failed to launch is not launched again).
        _ = FileManager.default.createFile(atPath: daemonLog, contents: nil)
        var attempt = 0
        var launched: Process?
        while launched == nil {
            let process = Process()
            if let program = launcher.first {
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = Array(launcher.dropFirst()) + [Self.timerd] + arguments
            } else {
                process.executableURL = URL(fileURLWithPath: Self.timerd)
                process.arguments = arguments
            }
            if !environment.isEmpty || !unsetting.isEmpty {
                process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
                    .filter { !unsetting.contains($0.key) }
            }
            process.standardError = FileHandle(forWritingAtPath: daemonLog)
            process.standardOutput = FileHandle.nullDevice
            do {
                try process.run()
                launched = process
            } catch let error as NSError
                where attempt < 2 && (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(EBADF)
            {
                attempt += 1
            }
        }
        guard let process = launched else { throw SystemFailure("timerd could not be spawned") }
        daemon = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if ctl(["ping"]).status == 0 { return }
            if !process.isRunning { throw SystemFailure("timerd exited: \(log())") }
            usleep(20_000)
        }
        throw SystemFailure("timerd did not answer within 10 s: \(log())")
    }

    /// Sends SIGTERM and waits for the daemon to exit.
    ///
    /// - Returns: its exit status.
    @discardableResult
    func stopDaemon(signal: Int32 = SIGTERM) -> Int32 {
        guard let daemon else { return -1 }
        kill(daemon.processIdentifier, signal)
        daemon.waitUntilExit()
        self.daemon = nil
        return daemon.terminationStatus
    }

    /// What timerd wrote to stderr so far.
    func log() -> String {
        (try? String(contentsOfFile: daemonLog, encoding: .utf8)) ?? ""
    }

    /// Runs timerctl against this harness's socket.
    func ctl(_ arguments: [String], socket: Bool = true, environment: [String: String]? = nil) -> Run {
        Self.run(Self.timerctl, (socket ? ["--socket", socketPath] : []) + arguments, environment: environment)
    }

    /// Runs timerctl and decodes its `--json` standard output.
    func ctlJSON<T: Decodable>(_ arguments: [String], as type: T.Type) throws -> T {
        let run = ctl(arguments + ["--json"])
        guard run.status == 0 else { throw SystemFailure("timerctl \(arguments) failed: \(run)") }
        return try JSONDecoder().decode(T.self, from: Data(run.stdout.utf8))
    }

    struct Run: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        var description: String {
            "exit \(status), stdout \(stdout.debugDescription), stderr \(stderr.debugDescription)"
        }
    }

    /// Runs a program to completion, its output captured in files.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) -> Run {
        // SpawnedProgram, not Foundation's Process: waitUntilExit can hang while a program spawned
        // by another test holds the descriptor it watches (see SpawnedProgram).
        let outPath = NSTemporaryDirectory() + "/timerctl-out-\(UUID().uuidString)"
        let errPath = outPath + ".err"
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        let run = SpawnedProgram.run(
            executable, arguments, environment: environment, standardOutput: outPath, standardError: errPath)
        if let failure = run.failure {
            return Run(status: -1, stdout: "", stderr: "cannot run \(executable): \(failure)")
        }
        return Run(
            status: run.status,
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }
}

struct SystemFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A raw client on the daemon's socket, for protocol tests: writes bytes, reads reply lines.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        // The project's own address builder (it checks sun_path's length).
        var (address, length) = try UnixSocket.address(path)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard status == 0 else {
            close(fd)
            throw SystemFailure("connect \(path): errno \(errno)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a daemon that closed the connection must give EPIPE, not kill the test runner.
            let count = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return }
            offset += count
        }
    }

    /// The next line, or `nil` after `timeout` seconds or at end of stream.
    func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var scanned = 0  // no newline before this: a line of many MiB is scanned once
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32(left * 1_000) + 1) <= 0 { continue }
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { return nil }
            scanned = buffer.count
            buffer += chunk[0..<count]
        }
    }

    /// Sends one request line and decodes the reply as a JSON object.
    func request(_ line: String) throws -> [String: Any] {
        send(line + "\n")
        guard let reply = readLine() else { throw SystemFailure("no reply to \(line)") }
        return try JSONObject.parse(reply)
    }
}

enum JSONObject {
    static func parse(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw SystemFailure("not a JSON object: \(text)")
        }
        return object
    }
}
