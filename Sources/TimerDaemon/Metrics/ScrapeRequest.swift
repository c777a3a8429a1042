import TimerProtocol

/// The head of one HTTP/1.x request to the metrics endpoint, read from bytes with no socket, and
/// the response to it (RFC 9112 for the message syntax, RFC 9110 for the status codes).
///
/// Only what a scraper sends is understood: a request line `METHOD TARGET HTTP/1.x` and header
/// lines up to an empty line; the headers themselves are not read (a `GET` has no body, and the
/// response always ends with `Connection: close`). The head may be at most
/// ``maximumHeadBytes``; a longer one is refused with 431.
struct ScrapeRequest {
    /// What the bytes received so far amount to.
    enum Reading: Equatable {
        /// The head is not complete yet.
        case incomplete
        /// A complete head: its method and the path of its target (the query left out).
        case complete(method: String, path: String)
        /// The head passed ``ScrapeRequest/maximumHeadBytes`` without ending.
        case tooLarge
        /// The request line is not `METHOD TARGET HTTP/1.x`.
        case malformed
    }

    /// The most bytes a request head may have: 8 KiB, as many servers allow.
    static let maximumHeadBytes = 8_192

    /// The bytes received so far (at most ``maximumHeadBytes`` plus one read).
    private(set) var received: [UInt8] = []

    /// Takes bytes read from the socket.
    ///
    /// - Parameter bytes: what one read returned.
    /// - Returns: what the head amounts to now.
    /// - Complexity: O(n) in the bytes received so far.
    mutating func receive(_ bytes: ArraySlice<UInt8>) -> Reading {
        received.append(contentsOf: bytes)
        guard let end = Self.endOfHead(received) else {
            return received.count > Self.maximumHeadBytes ? .tooLarge : .incomplete
        }
        if end > Self.maximumHeadBytes { return .tooLarge }
        return Self.requestLine(received[..<end])
    }

    /// Where the head ends: the index after its empty line (CR LF CR LF, or LF LF as RFC 9112
    /// § 2.2 lets a server accept), or `nil` when it has not ended.
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 10 {
                let next = index + 1
                if next < bytes.count, bytes[next] == 10 { return next + 1 }
                if next + 1 < bytes.count, bytes[next] == 13, bytes[next + 1] == 10 { return next + 2 }
            }
            index += 1
        }
        return nil
    }

    /// Reads the request line of a complete head.
    private static func requestLine(_ head: ArraySlice<UInt8>) -> Reading {
        let lineEnd = head.firstIndex(of: 10) ?? head.endIndex
        var line = head[head.startIndex..<lineEnd]
        if line.last == 13 { line = line.dropLast() }
        let parts = line.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0 >= 65 && $0 <= 90 }),
            parts[1].first == UInt8(ascii: "/") || parts[1].elementsEqual("*".utf8),
            parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8)
        else { return .malformed }
        let target = parts[1]
        let path = target[target.startIndex..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)]
        return .complete(method: String(decoding: parts[0], as: UTF8.self), path: String(decoding: path, as: UTF8.self))
    }

    /// The response to send for `reading` (which must not be ``Reading/incomplete``): 200 with
    /// the metrics for `GET /metrics`, 405 (with `Allow: GET`) for another method on it, 404 for
    /// another path, 400 for a malformed head, 431 for one too large.
    ///
    /// - Parameters:
    ///   - reading: the complete (or refused) head.
    ///   - metrics: renders the metrics; called only for `GET /metrics`.
    /// - Returns: the whole response, head and body.
    static func response(to reading: Reading, metrics: () -> String) -> [UInt8] {
        switch reading {
        case .complete(let method, let path):
            guard path == "/metrics" else { return response(404, "Not Found", body: "not found: try /metrics\n") }
            guard method == "GET" else {
                return response(
                    405, "Method Not Allowed", body: "only GET is allowed on /metrics\n", extraHeaders: "Allow: GET\r\n"
                )
            }
            return response(200, "OK", body: metrics(), contentType: MetricsResult.prometheusContentType)
        case .tooLarge:
            return response(431, "Request Header Fields Too Large", body: "request head over 8 KiB\n")
        case .malformed, .incomplete:
            return response(400, "Bad Request", body: "expected GET /metrics HTTP/1.1\n")
        }
    }

    /// The response sent when a scraper does not complete its request in time (408, RFC 9110
    /// § 15.5.9).
    static var timeoutResponse: [UInt8] {
        response(408, "Request Timeout", body: "request not completed in time\n")
    }

    /// One response: status line, `Content-Type`, `Content-Length`, `Connection: close`, the
    /// extra headers, then the body.
    static func response(
        _ status: Int, _ reason: String, body: String, contentType: String = "text/plain; charset=utf-8",
        extraHeaders: String = ""
    ) -> [UInt8] {
        let bodyBytes = Array(body.utf8)
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\n"
        head += "Content-Length: \(bodyBytes.count)\r\nConnection: close\r\n\(extraHeaders)\r\n"
        return Array(head.utf8) + bodyBytes
    }
}
