import TimerClient
import TimerProtocol

/// timerctl's connection to timerd: TimerClient's synchronous ``TimerConnection`` (socket discovery,
/// autostart, the one request writer, reply reading), its errors told in timerctl's terms.
final class ControlClient {
    /// The connection.
    let connection: TimerConnection

    /// The connected socket (for `poll` in `watch` and `bar`).
    var fd: Int32 { connection.fd }
    /// The path of the socket connected to.
    var socketPath: String { connection.socketPath }

    private init(_ connection: TimerConnection) {
        self.connection = connection
    }

    /// Connects to `explicitPath`, or to the default socket, starting timerd there when nothing
    /// answers and `autostart` allows (the way tmux starts its server).
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` (exit 64) when `--socket` names something that is
    ///   not a socket (a directory, a regular file …; the empty and over-long paths were refused
    ///   when the options were read); ``ControlError/unavailable(_:)`` (exit 69) when nobody answers.
    static func connect(explicitPath: String?, autostart: Bool) throws(ControlError) -> ControlClient {
        do throws(TimerClientError) {
            return ControlClient(
                try TimerConnection.connect(explicitPath: explicitPath, autostart: autostart ? .whenNotRunning : .never)
            )
        } catch .notRunning(let path, let reason) {
            var message = "timerd is not running on \(path) (\(reason))"
            if explicitPath == nil && !autostart { message += "; start it with 'timerd' or drop --no-autostart" }
            throw .unavailable(message)
        } catch .notASocket(let path, let kind) {
            throw .usage("--socket \(path) is \(kind), not a socket", verb: nil)
        } catch {
            throw ControlError(error)
        }
    }

    /// Sends a request without waiting for its reply.
    ///
    /// - Returns: the request's id.
    @discardableResult
    func send(_ request: TimerRequest) throws(ControlError) -> Int {
        do throws(TimerClientError) {
            return try connection.send(request)
        } catch {
            throw ControlError(error)
        }
    }

    /// Reads the next line.
    ///
    /// - Parameter timeoutMilliseconds: how long to wait; -1 for ever.
    /// - Returns: the line, or `nil` on time-out.
    func readLine(timeoutMilliseconds: Int32) throws(ControlError) -> [UInt8]? {
        do throws(TimerClientError) {
            return try connection.readLine(timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw ControlError(error)
        }
    }

    /// Decodes a reply line into its id and its result or error.
    static func decode<Result: JSONReadable>(_ line: [UInt8], as type: Result.Type) throws(ControlError)
        -> TimerConnection.Response<Result>
    {
        do throws(TimerClientError) {
            return try TimerConnection.decode(line, as: type)
        } catch {
            throw ControlError(error)
        }
    }

    /// An error reply with a `null` id: about the connection, not a request of ours. At the
    /// connection limit (-32006) this is exit 69.
    static func connectionError(_ error: RPCError) -> ControlError {
        ControlError(TimerConnection.connectionError(error))
    }

    /// Sends a request and waits (10 s at most) for its result.
    ///
    /// - Throws: ``ControlError/failed(_:)`` with the daemon's error, or a connection error.
    func call<Result: JSONReadable>(
        _ request: TimerRequest, as type: Result.Type, timeoutMilliseconds: Int32 = 10_000
    ) throws(ControlError) -> Result {
        do throws(TimerClientError) {
            return try connection.call(request, as: type, timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            throw ControlError(error)
        }
    }
}

extension ControlError {
    /// A client error as timerctl reports it: a refusal exits 1, an unreadable reply 76, anything
    /// about the connection 69.
    ///
    /// - Parameter error: the client's error.
    init(_ error: TimerClientError) {
        switch error {
        case .daemon(let refusal), .refused(let refusal): self = .failed(refusal)
        case .protocolError(let text): self = .protocolError(text)
        case .invalidRequest: self = .usage(error.description, verb: nil)
        case .notRunning, .notASocket, .unavailable: self = .unavailable(error.description)
        }
    }
}
