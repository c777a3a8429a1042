import Foundation
import Glibc

/// A Unix-socket proxy (a small python3 program) in front of timerd that appends every byte a
/// client sends to a file, so that a test can list the requests a command made: `wait` and `bar`
/// must not poll.
final class RecordingProxy {
    /// Where clients connect.
    let path: String
    /// The file of recorded client bytes.
    let recordPath: String
    private let process = Process()

    /// Starts the proxy on `path`, forwarding to `target`, and waits until it listens.
    init(path: String, target: String, recordPath: String) throws {
        self.path = path
        self.recordPath = recordPath
        let script = """
            import socket, sys, threading
            listen, target, log = sys.argv[1:4]
            server = socket.socket(socket.AF_UNIX)
            server.bind(listen)
            server.listen(8)
            print("ready", flush=True)
            def pump(source, sink, record):
                while True:
                    data = source.recv(65536)
                    if not data:
                        break
                    if record:
                        with open(log, "ab") as f:
                            f.write(data)
                    sink.sendall(data)
            while True:
                client, _ = server.accept()
                upstream = socket.socket(socket.AF_UNIX)
                upstream.connect(target)
                threading.Thread(target=pump, args=(client, upstream, True), daemon=True).start()
                threading.Thread(target=pump, args=(upstream, client, False), daemon=True).start()
            """
        let ready = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path, target, recordPath]
        process.standardOutput = ready
        try process.run()
        _ = ready.fileHandleForReading.availableData  // "ready"
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The `method` of each recorded request, in order.
    func methods() throws -> [String] {
        guard FileManager.default.fileExists(atPath: recordPath) else { return [] }
        return try String(contentsOfFile: recordPath, encoding: .utf8).split(separator: "\n").compactMap {
            line -> String? in (try? JSONObject.parse(String(line)))?["method"] as? String
        }
    }
}
