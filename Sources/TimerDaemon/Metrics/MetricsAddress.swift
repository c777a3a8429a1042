import TimerSystem

/// Where `timerd --metrics` serves its metrics: a Unix socket path, or a TCP port on a loopback
/// address (docs/metrics.md).
///
/// Only loopback is accepted for TCP (`127.0.0.1`, `::1`, `localhost`, which means `127.0.0.1`:
/// no name is resolved): the metrics count every user's timers, so they are never offered to
/// the network. A scraper on another machine reads them through a local agent (node_exporter's
/// textfile collector fed by `timerctl stats --prometheus`, or a proxy with its own
/// authentication).
public enum MetricsAddress: Sendable, Hashable, CustomStringConvertible {
    /// A Unix socket at this absolute path (created with mode 0660).
    case unixSocket(path: String)
    /// A TCP port on a loopback address; port 0 lets the kernel pick one (logged at start-up).
    case loopback(host: LoopbackSocket.Host, port: UInt16)

    /// Why an address was refused: the text says what was given and what is allowed.
    public struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What was wrong and what is allowed.
        public var description: String
    }

    /// Reads an address: a path starting with `/`, or `HOST:PORT` with `HOST` one of
    /// `127.0.0.1`, `localhost`, `::1` or `[::1]` and `PORT` 0…65,535.
    ///
    /// - Parameter text: the address as given (`--metrics`, `metrics=`).
    /// - Throws: ``ParseError`` for an empty or over-long path, a host that is not loopback, or a
    ///   missing or bad port.
    public init(parsing text: String) throws(ParseError) {
        if text.hasPrefix("/") {
            do throws(UnixSocket.AddressError) {
                try UnixSocket.checkPath(text)
            } catch {
                throw ParseError(description: "\(error)")
            }
            self = .unixSocket(path: text)
            return
        }
        let usage = "give a Unix socket path (starting with /) or 127.0.0.1:PORT, [::1]:PORT or localhost:PORT"
        guard let colon = text.lastIndex(of: ":") else {
            throw ParseError(description: "\"\(text)\" is neither a socket path nor HOST:PORT; \(usage)")
        }
        let host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard let port = UInt16(portText), portText.allSatisfy(\.isASCII) else {
            throw ParseError(description: "\"\(portText)\" in \"\(text)\" is not a port from 0 to 65535; \(usage)")
        }
        switch host {
        case "127.0.0.1", "localhost": self = .loopback(host: .ipv4, port: port)
        case "::1", "[::1]": self = .loopback(host: .ipv6, port: port)
        default:
            throw ParseError(
                description:
                    "\"\(host)\" is not a loopback address: the metrics count every user's timers and are "
                    + "served on loopback only; \(usage)")
        }
    }

    /// The address as a log line shows it: the path, `127.0.0.1:9464` or `[::1]:9464`.
    public var description: String {
        switch self {
        case .unixSocket(let path): return path
        case .loopback(.ipv4, let port): return "127.0.0.1:\(port)"
        case .loopback(.ipv6, let port): return "[::1]:\(port)"
        }
    }
}
