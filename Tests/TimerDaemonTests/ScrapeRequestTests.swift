import Testing
import TimerSystem

@testable import TimerDaemon

/// The metrics endpoint's HTTP side with no socket: request heads fed in fragments as a socket
/// delivers them, the responses byte for byte (RFC 9112 message syntax), and the addresses
/// `--metrics` accepts.
@Suite("Metrics: scrape requests, responses and addresses")
struct ScrapeRequestTests {
    /// Feeds `fragments` one after the other and returns what each left the reader at.
    private func feed(_ fragments: [String]) -> [ScrapeRequest.Reading] {
        var request = ScrapeRequest()
        return fragments.map { request.receive(ArraySlice($0.utf8)) }
    }

    @Test("A head in fragments is complete only at its empty line (CR LF or bare LF)")
    func fragments() {
        #expect(
            feed(["GET /metr", "ics HTTP/1.1\r\nHost: x\r", "\n", "\r\n"]) == [
                .incomplete, .incomplete, .incomplete, .complete(method: "GET", path: "/metrics"),
            ])
        #expect(feed(["GET /metrics?x=1 HTTP/1.0\n\n"]) == [.complete(method: "GET", path: "/metrics")])
        #expect(feed(["POST / HTTP/1.1\r\n\r\n"]) == [.complete(method: "POST", path: "/")])
    }

    @Test(
        "Request lines that are not METHOD TARGET HTTP/1.x are malformed",
        arguments: [
            "GET /metrics\r\n\r\n", "get /metrics HTTP/1.1\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
            "GET /metrics HTTP/2\r\n\r\n", "GET  /metrics HTTP/1.1\r\n\r\n", "\r\n\r\n",
        ])
    func malformed(_ head: String) {
        #expect(feed([head]) == [.malformed])
    }

    @Test("A head past 8 KiB is refused, ended or not")
    func tooLarge() {
        let filler = "X-Filler: " + String(repeating: "a", count: ScrapeRequest.maximumHeadBytes) + "\r\n"
        #expect(feed(["GET /metrics HTTP/1.1\r\n", filler]) == [.incomplete, .tooLarge])
        #expect(feed(["GET /metrics HTTP/1.1\r\n" + filler + "\r\n"]) == [.tooLarge])
        // Exactly at the limit is still read.
        let line = "GET /metrics HTTP/1.1\r\n"
        let pad = "X: " + String(repeating: "a", count: ScrapeRequest.maximumHeadBytes - line.utf8.count - 7) + "\r\n"
        #expect((line + pad + "\r\n").utf8.count == ScrapeRequest.maximumHeadBytes)
        #expect(feed([line + pad + "\r\n"]) == [.complete(method: "GET", path: "/metrics")])
    }

    @Test("Responses: 200 with the metrics, 405, 404, 400, 431 and 408, byte for byte")
    func responses() {
        func text(_ reading: ScrapeRequest.Reading) -> String {
            String(decoding: ScrapeRequest.response(to: reading) { "a 1\n" }, as: UTF8.self)
        }
        #expect(
            text(.complete(method: "GET", path: "/metrics"))
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                + "Content-Length: 4\r\nConnection: close\r\n\r\na 1\n")
        #expect(
            text(.complete(method: "POST", path: "/metrics"))
                == "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: 32\r\nConnection: close\r\nAllow: GET\r\n\r\nonly GET is allowed on /metrics\n")
        #expect(
            text(.complete(method: "GET", path: "/"))
                == "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: 24\r\nConnection: close\r\n\r\nnot found: try /metrics\n")
        #expect(text(.malformed).hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(text(.tooLarge).hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"))
        #expect(
            String(decoding: ScrapeRequest.timeoutResponse, as: UTF8.self)
                == "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: 30\r\nConnection: close\r\n\r\nrequest not completed in time\n")
    }

    @Test("The metrics are rendered only for GET /metrics")
    func rendersOnlyForMetrics() {
        var renders = 0
        for reading in [
            ScrapeRequest.Reading.complete(method: "HEAD", path: "/metrics"), .complete(method: "GET", path: "/x"),
            .malformed, .tooLarge,
        ] {
            _ = ScrapeRequest.response(to: reading) {
                renders += 1
                return ""
            }
        }
        #expect(renders == 0)
    }

    @Test(
        "Addresses: socket paths and loopback HOST:PORT",
        arguments: [
            ("/run/timerd/metrics.sock", MetricsAddress.unixSocket(path: "/run/timerd/metrics.sock")),
            ("127.0.0.1:9464", .loopback(host: .ipv4, port: 9464)), ("localhost:0", .loopback(host: .ipv4, port: 0)),
            ("[::1]:65535", .loopback(host: .ipv6, port: 65535)), ("::1:80", .loopback(host: .ipv6, port: 80)),
        ])
    func addresses(_ text: String, _ address: MetricsAddress) throws {
        #expect(try MetricsAddress(parsing: text) == address)
    }

    @Test("Other hosts, bad ports and bad paths are refused with what is allowed")
    func refusedAddresses() {
        let usage = "give a Unix socket path (starting with /) or 127.0.0.1:PORT, [::1]:PORT or localhost:PORT"
        #expect(
            throws: MetricsAddress.ParseError(
                description:
                    "\"0.0.0.0\" is not a loopback address: the metrics count every user's timers and are served on "
                    + "loopback only; \(usage)")
        ) { try MetricsAddress(parsing: "0.0.0.0:9464") }
        #expect(
            throws: MetricsAddress.ParseError(
                description: "\"65536\" in \"127.0.0.1:65536\" is not a port from 0 to 65535; \(usage)")
        ) { try MetricsAddress(parsing: "127.0.0.1:65536") }
        #expect(
            throws: MetricsAddress.ParseError(
                description: "\"metrics.sock\" is neither a socket path nor HOST:PORT; \(usage)")
        ) { try MetricsAddress(parsing: "metrics.sock") }
        #expect(throws: MetricsAddress.ParseError.self) { try MetricsAddress(parsing: "127.0.0.2:80") }
        #expect(throws: MetricsAddress.ParseError.self) { try MetricsAddress(parsing: "127.0.0.1:") }
        #expect(throws: MetricsAddress.ParseError.self) {
            try MetricsAddress(parsing: "/" + String(repeating: "a", count: UnixSocket.maximumPathBytes))
        }
    }

    @Test("--metrics with a refused address is a configuration error (exit 78); metrics= in the file too")
    func options() throws {
        #expect(throws: DaemonOptions.UsageError.self) { try DaemonOptions.parse(["--metrics", "10.0.0.1:80"]) }
        do {
            _ = try DaemonOptions.parse(["--metrics", "10.0.0.1:80"])
        } catch {
            #expect(error.isConfiguration)
        }
        let options = try DaemonOptions.parse(["--metrics", "127.0.0.1:9464", "--metrics-timers"])
        let config = DaemonConfig().overridden(by: options)
        #expect(config.metricsAddress == .loopback(host: .ipv4, port: 9464))
        #expect(config.metricsTimers)
        let file = try DaemonConfig.parse("metrics=/run/m.sock\nmetrics_timers=yes\n", path: "t.conf")
        #expect(file.metricsAddress == .unixSocket(path: "/run/m.sock"))
        #expect(file.metricsTimers)
        #expect(
            throws: DaemonConfig.ConfigError(
                path: "t.conf", line: 1, message: "metrics_timers must be yes or no, got \"1\"")
        ) { try DaemonConfig.parse("metrics_timers=1\n", path: "t.conf") }
    }
}
