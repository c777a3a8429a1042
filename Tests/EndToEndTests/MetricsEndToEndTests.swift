import Foundation
import Glibc
import TestSupport
import Testing
import TimerModel
import TimerProtocol
import TimerSystem

/// `timerd --metrics` through the real binaries on both backends: a scrape over the Unix socket
/// and over loopback TCP, values checked against what `timerctl status` shows, `promtool check
/// metrics` on the text, and a slow scraper that holds up nobody.
@Suite("Prometheus metrics from a real timerd", .serialized, .tags(.endToEnd))
struct MetricsEndToEndTests {
    /// Where Debian's `prometheus` package puts promtool (scripts/test and .ci/run install it).
    static let promtool = "/usr/bin/promtool"

    @Test(
        "GET /metrics over the Unix socket and loopback TCP agrees with timerctl status",
        arguments: TestBackend.available)
    func scrape(backend: TestBackend) throws {
        let harness = try Harness()
        let backendArguments = try backend.daemonArguments()
        let metricsSocket = harness.directory + "/metrics.sock"
        try harness.startDaemon(extraArguments: backendArguments + ["--metrics", metricsSocket, "--metrics-timers"])
        // What the steps below leave, and so what the counters must say: 4 started, "c" finished,
        // "d" stopped; "a" running, "b" paused.
        for (duration, name) in [("1h", "a"), ("1h", "b"), ("1s", "c"), ("1h", "d")] {
            let run = harness.ctl(["start", duration, "--name", name])
            #expect(run.status == 0, "\(run)")
        }
        #expect(harness.ctl(["pause", "b"]).status == 0)
        #expect(harness.ctl(["stop", "d"]).status == 0)
        let waited = harness.ctl(["wait", "c"])
        #expect(waited.status == 0, "\(waited)")

        // The socket's mode: owner and group only (the figures count every user's timers).
        var info = stat()
        #expect(stat(metricsSocket, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)

        let response = try ScrapeClient.get(unixSocket: metricsSocket)
        #expect(response.status == 200, "\(response)")
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let samples = response.samples
        let status = try harness.ctlJSON(["status"], as: [TimerInfo].self)
        let running = status.filter { $0.state == .running }
        let paused = status.filter { $0.state == .paused }
        #expect(running.map(\.name) == ["a"])
        #expect(paused.map(\.name) == ["b"])
        #expect(samples[#"timerd_timers{state="running"}"#] == Double(running.count))
        #expect(samples[#"timerd_timers{state="paused"}"#] == Double(paused.count))
        #expect(samples["timerd_timers_started_total"] == 4)
        #expect(samples["timerd_timers_finished_total"] == 1)
        #expect(samples["timerd_timers_stopped_total"] == 1)
        #expect(samples["timerd_timers_missed_total"] == 0)
        #expect(samples[#"timerd_request_duration_seconds_count{method="timer.start"}"#] == 4)
        // The per-timer series: "a" ends at the wall-clock time timerctl status gives (±1 s, the
        // database's clock in shared mode).
        let a = try #require(running.first)
        let endsAt = try #require(a.endsAt.flatMap { ISO8601.date(from: $0) })
        let nextElapse = try #require(samples[#"timerd_timer_next_elapse_seconds{owner="\#(getuid())",name="a"}"#])
        #expect(abs(nextElapse - endsAt.timeIntervalSince1970) < 1)
        try Self.checkWithPromtool(response.body, in: harness.directory)

        // timerctl stats --prometheus prints the same rendering through daemon.metrics.
        let printed = harness.ctl(["stats", "--prometheus"])
        #expect(printed.status == 0, "\(printed)")
        let printedSamples = ScrapeClient.samples(of: printed.stdout)
        for name in [
            #"timerd_timers{state="running"}"#, #"timerd_timers{state="paused"}"#, "timerd_timers_started_total",
        ] {
            #expect(printedSamples[name] == samples[name], "\(name)")
        }
        #expect(printed.stdout.hasPrefix("# HELP timerd_build_info "))
        switch backend {
        case .file:
            #expect(samples["timerd_store_compactions_total"] != nil)
            #expect(samples["timerd_shared_claims_total"] == nil)
        case .shared:
            #expect(samples["timerd_store_compactions_total"] == nil)
            #expect((samples["timerd_shared_claims_total"] ?? 0) >= 1)  // "c"'s completion at least
        }
        #expect(harness.stopDaemon() == 0)
        #expect(!FileManager.default.fileExists(atPath: metricsSocket), "the socket is removed at the stop")

        // Loopback TCP on a port the kernel picks, named in the log; the timers are still there.
        try harness.startDaemon(extraArguments: backendArguments + ["--metrics", "127.0.0.1:0"])
        let port = try #require(Self.loggedPort(harness.log()), "\(harness.log())")
        let overTCP = try ScrapeClient.get(port: port)
        #expect(overTCP.status == 200, "\(overTCP)")
        let tcpSamples = overTCP.samples
        let statusAgain = try harness.ctlJSON(["status"], as: [TimerInfo].self)
        #expect(
            tcpSamples[#"timerd_timers{state="running"}"#] == Double(statusAgain.filter { $0.state == .running }.count))
        #expect(
            tcpSamples[#"timerd_timers{state="paused"}"#] == Double(statusAgain.filter { $0.state == .paused }.count))
        #expect(tcpSamples[#"timerd_timers{state="running"}"#] == 1)
        #expect(tcpSamples["timerd_timers_started_total"] == 0, "counters start again with the daemon")
        #expect(!overTCP.body.contains("timerd_timer_next_elapse_seconds"), "no names without --metrics-timers")
        try Self.checkWithPromtool(overTCP.body, in: harness.directory)
        #expect(try ScrapeClient.get(port: port, request: "GET /other HTTP/1.1\r\n\r\n").status == 404)
        #expect(try ScrapeClient.get(port: port, request: "POST /metrics HTTP/1.1\r\n\r\n").status == 405)
        #expect(harness.stopDaemon() == 0)
    }

    @Test("On-finish outcomes are counted by kind and outcome", arguments: TestBackend.available)
    func actionOutcomes(backend: TestBackend) throws {
        let harness = try Harness()
        let metricsSocket = harness.directory + "/metrics.sock"
        try harness.startDaemon(extraArguments: try backend.daemonArguments() + ["--metrics", metricsSocket])
        for command in ["true", "exit 3", "true"] {
            let run = harness.ctl(["start", "1s", "--exec", command])
            #expect(run.status == 0, "\(run)")
        }
        // Expected from the three commands: two exit with status 0, one with 3; the runs end
        // shortly after their timers, so the count is read until it is complete (10 s at most).
        var samples: [String: Double] = [:]
        let deadline = Date().addingTimeInterval(10)
        let succeeded = #"timerd_actions_total{kind="exec",outcome="succeeded"}"#
        let failed = #"timerd_actions_total{kind="exec",outcome="failed"}"#
        while Date() < deadline {
            samples = try ScrapeClient.get(unixSocket: metricsSocket).samples
            if samples[succeeded] == 2, samples[failed] == 1 { break }
            usleep(200_000)
        }
        #expect(samples[succeeded] == 2, "\(samples.filter { $0.key.hasPrefix("timerd_actions") })")
        #expect(samples[failed] == 1)
        #expect(samples["timerd_timers_finished_total"] == 3)
    }

    @Test("A scraper that sends nothing holds up no client, and gets 408 at the request time-out")
    func slowScraper() throws {
        let harness = try Harness()
        let metricsSocket = harness.directory + "/metrics.sock"
        try harness.startDaemon(extraArguments: ["--metrics", metricsSocket, "--request-timeout", "1"])
        let silent = try ScrapeClient.connect(unixSocket: metricsSocket)
        defer { close(silent) }
        // The same loop answers timerctl meanwhile.
        let started = Date()
        let ping = harness.ctl(["ping"])
        #expect(ping.status == 0, "\(ping)")
        #expect(Date().timeIntervalSince(started) < 0.9, "ping waited for the silent scraper")
        let response = try ScrapeClient.readResponse(silent, timeout: 10)
        #expect(response.status == 408, "\(response)")
        #expect(Date().timeIntervalSince(started) >= 0.9, "408 before the 1 s time-out")
    }

    @Test("A non-loopback --metrics address is refused with exit 78 and what is allowed")
    func refusedAddress() {
        let run = Harness.run(Harness.timerd, ["--metrics", "0.0.0.0:9464"])
        #expect(run.status == 78)
        #expect(
            run.stderr.contains(
                "Error: --metrics: \"0.0.0.0\" is not a loopback address: the metrics count every user's timers and are "
                    + "served on loopback only; give a Unix socket path (starting with /) or 127.0.0.1:PORT, [::1]:PORT "
                    + "or localhost:PORT"), "\(run)")
    }

    @Test("daemon.metrics is for root and timerd's user only")
    func daemonMetricsPermission() throws {
        let harness = try Harness()
        try harness.startDaemon()
        let client = try RawClient(path: harness.socketPath)
        let reply = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"daemon.metrics"}"#)
        // The test runs as timerd's own user: it gets the text (another user's -32007: otherUserRefused).
        let result = try #require(reply["result"] as? [String: Any], "\(reply)")
        #expect(result["contentType"] as? String == "text/plain; version=0.0.4; charset=utf-8")
        #expect((result["text"] as? String)?.hasPrefix("# HELP timerd_build_info ") == true)
    }

    @Test("A real Prometheus scrapes timerd every second and answers a query with the running count")
    func realPrometheus() throws {
        let prometheus = "/usr/bin/prometheus"
        try #require(
            FileManager.default.isExecutableFile(atPath: prometheus),
            "prometheus is missing: install the Debian package prometheus (scripts/test and .ci/run do)")
        let harness = try Harness()
        try harness.startDaemon(extraArguments: ["--metrics", "127.0.0.1:0"])
        let port = try #require(Self.loggedPort(harness.log()), "\(harness.log())")
        for name in ["a", "b"] { #expect(harness.ctl(["start", "1h", "--name", name]).status == 0) }
        // A free port for Prometheus's own HTTP server: one the kernel picked, released again.
        let probe = try LoopbackSocket.listen(host: .ipv4, port: 0)
        close(probe.fd)
        let config = harness.directory + "/prometheus.yml"
        try """
        global:
          scrape_interval: 1s
        scrape_configs:
          - job_name: timerd
            static_configs:
              - targets: ['127.0.0.1:\(port)']
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: prometheus)
        process.arguments = [
            "--config.file=" + config, "--storage.tsdb.path=" + harness.directory + "/tsdb",
            "--web.listen-address=127.0.0.1:\(probe.port)", "--log.level=warn",
        ]
        let logPath = harness.directory + "/prometheus.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        // timerd_timers{state="running"}, URL-encoded.
        let query =
            "GET /api/v1/query?query=timerd_timers%7Bstate%3D%22running%22%7D HTTP/1.1\r\n"
            + "Host: 127.0.0.1\r\nConnection: close\r\n\r\n"
        var value: String?
        var last = ""
        let deadline = Date().addingTimeInterval(60)
        while value == nil, Date() < deadline {
            usleep(500_000)
            guard let response = try? ScrapeClient.get(port: probe.port, request: query) else { continue }
            last = response.body
            guard let start = response.body.firstIndex(of: "{"), let end = response.body.lastIndex(of: "}"),
                let json = try? JSONSerialization.jsonObject(with: Data(response.body[start...end].utf8)),
                let data = (json as? [String: Any])?["data"] as? [String: Any],
                let first = (data["result"] as? [[String: Any]])?.first,
                let pair = first["value"] as? [Any]
            else { continue }
            value = pair.last as? String
        }
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        // Two timers run: the query's value is the gauge timerd served.
        #expect(value == "2", "last answer \(last.debugDescription); prometheus log: \(log)")
    }

    @Test(
        "Another user can neither read daemon.metrics (-32007) nor connect to the 0660 metrics socket",
        .enabled(if: getuid() == 0))
    func otherUserRefused() throws {
        let harness = try Harness()
        chmod(harness.directory, 0o711)
        let metricsSocket = harness.directory + "/metrics.sock"
        try harness.startDaemon(extraArguments: ["--socket-mode", "0666", "--metrics", metricsSocket])
        func asOther(_ arguments: [String]) -> Harness.Run {
            Harness.run("/usr/bin/setpriv", ["--reuid=64120", "--regid=64120", "--clear-groups"] + arguments)
        }
        let stats = asOther([Harness.timerctl, "--socket", harness.socketPath, "stats", "--prometheus"])
        #expect(stats.status == 1, "\(stats)")
        // Daemon+Metrics.swift's refusal for a uid other than root and timerd's (0 here).
        #expect(stats.stderr == "Error: only root or uid 0 may read timerd's metrics\n")
        #expect(stats.stdout.isEmpty)
        // Their own counts stay readable through daemon.stats.
        let own = asOther([Harness.timerctl, "--socket", harness.socketPath, "stats"])
        #expect(own.stdout == "timers: 0 live (0 running, 0 paused), 0 fired since timerd started\n", "\(own)")
        // connect(2) on a Unix socket needs write permission on its file: 0660 root:root refuses.
        let scrape = asOther([
            "/usr/bin/python3", "-c",
            "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])", metricsSocket,
        ])
        #expect(scrape.status != 0)
        #expect(scrape.stderr.contains("PermissionError"), "\(scrape)")
    }

    /// Runs `promtool check metrics` on `text`; fails loudly when promtool is missing.
    static func checkWithPromtool(_ text: String, in directory: String) throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: promtool),
            "promtool is missing: install the Debian package prometheus (scripts/test and .ci/run do)")
        let file = directory + "/metrics.txt"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let run = Harness.run("/bin/sh", ["-c", "\(promtool) check metrics < '\(file)'"])
        #expect(run.status == 0, "promtool check metrics: \(run)")
    }

    /// The port of `serving metrics on 127.0.0.1:PORT` in the log.
    static func loggedPort(_ log: String) -> UInt16? {
        guard let range = log.range(of: "serving metrics on 127.0.0.1:") else { return nil }
        return UInt16(log[range.upperBound...].prefix { $0.isNumber })
    }
}

/// A minimal HTTP/1.1 client for the tests: one request, the response read to the end.
enum ScrapeClient {
    struct Response: CustomStringConvertible {
        var status: Int
        var headers: [String: String]
        var body: String
        var description: String { "\(status) \(headers) \(body.prefix(300).debugDescription)" }

        /// The samples of the body by `name{labels}`.
        var samples: [String: Double] { ScrapeClient.samples(of: body) }
    }

    /// Every sample line of an exposition, `name{labels}` → value (`+Inf` and the like as Double reads them).
    static func samples(of text: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            result[String(line[..<space])] = Double(line[line.index(after: space)...])
        }
        return result
    }

    static func connect(unixSocket path: String) throws -> Int32 {
        try UnixSocket.connect(path)
    }

    static func connect(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            close(fd)
            throw SystemFailure("connect 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }

    static func get(unixSocket path: String, request: String = "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n") throws
        -> Response
    {
        let fd = try connect(unixSocket: path)
        defer { close(fd) }
        return try exchange(fd, request)
    }

    static func get(port: UInt16, request: String = "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n") throws -> Response {
        let fd = try connect(port: port)
        defer { close(fd) }
        return try exchange(fd, request)
    }

    static func exchange(_ fd: Int32, _ request: String) throws -> Response {
        let bytes = Array(request.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw SystemFailure("write: errno \(errno)") }
        return try readResponse(fd, timeout: 10)
    }

    /// Reads until the server closes (`Connection: close`), at most `timeout` seconds.
    static func readResponse(_ fd: Int32, timeout: Double) throws -> Response {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&poll, 1, 100) >= 0 else { throw SystemFailure("poll: errno \(errno)") }
            if poll.revents == 0 { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else {
            throw SystemFailure("no response head: \(text.debugDescription)")
        }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return Response(status: status, headers: headers, body: String(text[split.upperBound...]))
    }
}
