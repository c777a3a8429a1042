import Foundation
import Glibc

/// A real `timerd` (the built product) on a socket in a fresh temporary directory, for the picker
/// tests whose picked time reaches a daemon. ``stop()`` (or the value going away) ends it with
/// SIGTERM, reaps it and removes the directory.
final class TestDaemon {
    /// The daemon's socket path.
    let socket: String
    private let directory: URL
    private let process = Process()
    private var isStopped = false

    /// Starts the daemon and waits up to 15 s for its socket to appear.
    ///
    /// - Parameters:
    ///   - tag: a word that names the directory (`timerpick-PID-TAG`), unique per test.
    ///   - environment: the daemon's environment, or `nil` for the test process's own.
    /// - Throws: what creating the directory or starting the process throws.
    init(tag: String, environment: [String: String]? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("timerpick-\(getpid())-\(tag)")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socket = directory.appendingPathComponent("timerd.sock").path
        process.executableURL = URL(fileURLWithPath: PseudoTerminal.productsDirectory + "/timerd")
        process.arguments = ["--socket", socket, "--state-dir", directory.appendingPathComponent("state").path]
        if let environment { process.environment = environment }
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let deadline = Date().addingTimeInterval(15)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(20_000) }
    }

    /// Ends the daemon (SIGTERM, then waits for it) and removes its directory; once.
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
