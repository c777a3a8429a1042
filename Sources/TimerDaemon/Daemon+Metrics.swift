import Countdown
import Foundation
import Glibc
import TimerProtocol
import TimerService
import TimerSystem

/// The metrics endpoint (`--metrics`, docs/metrics.md): scrapers are clients of the same loop,
/// each with a bounded request head and a deadline, so a slow one holds up nobody; and
/// `daemon.metrics`, which answers with the same text.
extension Daemon {
    /// The epoll token of the metrics endpoint's listening socket.
    static let metricsToken: UInt64 = 6
    /// The most scrapes served at once; one past it is closed at once (a scraper retries at its
    /// next interval).
    static let maximumScrapes = 16
    /// The permission bits of a metrics Unix socket: the owner and the daemon's group may read
    /// the metrics, other users may not (they count every user's timers).
    static let metricsSocketMode: mode_t = 0o660

    /// Opens the metrics endpoint at `address` and watches it.
    ///
    /// - Parameters:
    ///   - address: where to listen.
    ///   - epoll: the loop's epoll.
    /// - Returns: the endpoint.
    /// - Throws: ``UnixSocket/AddressError`` or ``SystemError`` when it cannot listen.
    static func openMetricsEndpoint(address: MetricsAddress, epoll: Epoll) throws
        -> MetricsEndpoint
    {
        let endpoint: MetricsEndpoint
        switch address {
        case .unixSocket(let path):
            let claim = try SocketFileClaim(path: path)
            let (fd, _) = try claim.listen(mode: metricsSocketMode, backlog: 64)
            endpoint = MetricsEndpoint(listener: FileDescriptor(adopting: fd), claim: claim, address: path)
        case .loopback(let host, let port):
            let (fd, bound) = try LoopbackSocket.listen(host: host, port: port)
            endpoint = MetricsEndpoint(
                listener: FileDescriptor(adopting: fd), claim: nil,
                address: MetricsAddress.loopback(host: host, port: bound).description)
        }
        try epoll.add(endpoint.listener, interest: .readable, token: metricsToken)
        return endpoint
    }

    /// Accepts pending scrapers, up to ``maximumScrapes`` at once. Out of descriptors, one pending
    /// scraper is answered 503 with the spare descriptor (``DescriptorReserve``) and closed, so
    /// that the level-triggered listener does not wake every turn; any other `accept` error waits
    /// for the next readiness.
    func acceptScrapes() {
        guard let endpoint = metricsEndpoint else { return }
        while true {
            let accepted: FileDescriptor?
            do {
                accepted = try endpoint.listener.accept()
            } catch let error where error.errno.isDescriptorExhaustion {
                let refusal = ScrapeRequest.response(503, "Service Unavailable", body: "timerd is out of descriptors\n")
                if reserve.shed(endpoint.listener, refuse: { socket in _ = try? socket.write(ArraySlice(refusal)) }) {
                    continue
                }
                return
            } catch {
                return
            }
            guard let socket = accepted else { return }
            guard scrapes.count < Self.maximumScrapes else {
                socket.close()
                continue
            }
            let token = nextToken
            nextToken += 1
            do {
                try epoll.add(socket, interest: [.readable, .hangUp], token: token)
            } catch {
                socket.close()
                continue
            }
            let deadline = Syscall.bootTimeNanoseconds() + Int64(options.requestTimeoutSeconds * 1e9)
            scrapes[token] = ScrapeConnection(socket: socket, token: token, deadline: deadline)
        }
    }

    /// Serves a ready scraper: reads its head until complete, then writes the response and closes.
    ///
    /// - Parameters:
    ///   - token: its epoll token.
    ///   - ready: what epoll reported.
    func serveScrape(_ token: UInt64, _ ready: Epoll.Events) {
        guard let scrape = scrapes[token] else { return }
        if scrape.response == nil {
            var reads = 0
            while scrape.response == nil, reads < 4 {
                reads += 1
                let count: Int?
                do {
                    count = try scrape.socket.read(into: &readBuffer)
                } catch {
                    closeScrape(scrape)
                    return
                }
                guard let count else { break }  // nothing more now
                if count == 0 {
                    closeScrape(scrape)  // the scraper left before its head ended
                    return
                }
                let reading = scrape.request.receive(readBuffer[0..<count])
                guard reading != .incomplete else { continue }
                scrape.response = ScrapeRequest.response(to: reading) {
                    metricsReport(includingTimers: config.metricsTimers).exposition()
                }
            }
            guard scrape.response != nil else { return }
        }
        writeScrape(scrape)
    }

    /// Writes what the socket takes of the response; closes once all is written, watches for
    /// writability otherwise.
    func writeScrape(_ scrape: ScrapeConnection) {
        guard let response = scrape.response else { return }
        while scrape.written < response.count {
            let written: Int?
            do {
                written = try scrape.socket.write(response[scrape.written...])
            } catch {
                closeScrape(scrape)
                return
            }
            guard let written else {
                try? epoll.modify(scrape.socket, interest: [.writable, .hangUp], token: scrape.token)
                return
            }
            scrape.written += written
        }
        closeScrape(scrape)
    }

    /// Forgets a scraper; its socket closes with the last reference.
    func closeScrape(_ scrape: ScrapeConnection) {
        guard scrapes.removeValue(forKey: scrape.token) != nil else { return }
        epoll.remove(scrape.socket)
    }

    /// The earliest deadline of the open scrapes (boot-time ns), or `nil` for none.
    ///
    /// - Complexity: O(s) for s ≤ ``maximumScrapes`` open scrapes.
    var scrapeDeadline: Int64? { scrapes.values.map(\.deadline).min() }

    /// Answers the scrapes past their deadline with 408 (when their head is not complete) and
    /// closes them.
    func expireScrapes() {
        guard !scrapes.isEmpty else { return }
        let now = Syscall.bootTimeNanoseconds()
        for scrape in scrapes.values where scrape.deadline <= now {
            if scrape.response == nil { _ = try? scrape.socket.write(ArraySlice(ScrapeRequest.timeoutResponse)) }
            closeScrape(scrape)
        }
    }

    /// Closes the endpoint at the stop: its scrapers, its listener, and its socket file.
    func closeMetricsEndpoint() {
        for scrape in scrapes.values { closeScrape(scrape) }
        guard let endpoint = metricsEndpoint else { return }
        epoll.remove(endpoint.listener)
        endpoint.claim?.removeSocketFile()
        metricsEndpoint = nil
    }

    /// Gathers every figure of the metrics now.
    ///
    /// - Parameter includingTimers: also list the named running timers.
    /// - Returns: the report to render.
    /// - Complexity: O(c) for c connections; the shared backend adds database round trips.
    func metricsReport(includingTimers: Bool) -> MetricsReport {
        let figures = backend.metricFigures(includingTimers: includingTimers)
        var subscriptions = 0
        var waits = 0
        for connection in connections.values {
            subscriptions += connection.state.subscriptions.count
            waits += connection.state.waiters.count
        }
        var requests: [String: LatencyHistogram] = [:]
        for (method, histogram) in metrics.requests { requests[method.rawValue] = histogram }
        return MetricsReport(
            version: ServiceVersion.version, startTime: metrics.startTime, timersByState: figures.timersByState,
            timerCounts: figures.timerCounts, actions: metrics.actions, lateness: figures.lateness,
            commits: metrics.commits, requests: requests, connections: connections.count,
            subscriptions: subscriptions, waits: waits, store: figures.store, shared: figures.shared,
            timerElapses: figures.timerElapses)
    }

    /// Answers `daemon.metrics`: root and the daemon's own uid get the text (what the endpoint
    /// serves, per-timer series included only with `--metrics-timers` or `metrics_timers=yes`), anyone else
    /// `-32003` (the figures count every user's timers).
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - connection: its connection.
    func answerMetrics(_ request: MetricsRequest, on connection: Connection) {
        let result: Result<MetricsResult, RPCError>
        if connection.uid == 0 || connection.uid == getuid() {
            result = .success(MetricsResult(text: metricsReport(includingTimers: config.metricsTimers).exposition()))
        } else {
            result = .failure(
                RPCError(.permissionDenied, "only root or uid \(getuid()) may read timerd's metrics"))
        }
        if let reply = TimerService.metricsReply(id: request.id, result) { queue(reply, to: connection) }
    }
}
