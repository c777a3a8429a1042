import Glibc
import TimerProtocol
import TimerSystem

/// The synchronous core of the client: one connection to timerd that sends requests and reads their
/// replies, one line each. ``TimerClient`` wraps it for async callers; timerctl, a short-lived CLI,
/// uses it directly. Not `Sendable`: one thread at a time uses a connection.
package final class TimerConnection {
    /// The connected socket; closed when the connection is released.
    package let fd: Int32
    /// The path it is connected to.
    package let socketPath: String
    private var buffer: [UInt8] = []
    private var nextID = 1

    /// Takes ownership of a connected descriptor.
    ///
    /// - Parameters:
    ///   - fd: a connected Unix stream socket.
    ///   - socketPath: its path, for messages.
    package init(fd: Int32, socketPath: String) {
        self.fd = fd
        self.socketPath = socketPath
    }

    deinit { Syscall.close(fd) }

    /// Connects by ``SocketDiscovery``'s rules.
    ///
    /// - Parameters:
    ///   - explicitPath: the socket to use, or `nil` for the default rules.
    ///   - autostart: whether timerd may be started on the default socket.
    /// - Throws: what ``SocketDiscovery/connect(explicitPath:autostart:)`` throws.
    package static func connect(explicitPath: String?, autostart: AutostartPolicy) throws(TimerClientError)
        -> TimerConnection
    {
        let (fd, path) = try SocketDiscovery.connect(explicitPath: explicitPath, autostart: autostart)
        return TimerConnection(fd: fd, socketPath: path)
    }

    /// Sends a request without waiting for its reply.
    ///
    /// - Parameter request: the request, written by ``TimerRequest/line(id:)``.
    /// - Returns: the request's id.
    /// - Throws: ``TimerClientError/unavailable(_:)`` when the connection is lost or was refused.
    @discardableResult
    package func send(_ request: TimerRequest) throws(TimerClientError) -> Int {
        let id = nextID
        nextID += 1
        let line = try request.line(id: id)
        // A daemon at its connection limit writes its refusal and closes: read it before writing
        // (Daemon+ConnectionIO.swift acceptClients), or the write meets a closed socket.
        if id == 1, let refusal = pendingRefusal(timeoutMilliseconds: 0) { throw refusal }
        do {
            try Self.writeAllWithoutSignal(fd, line)
        } catch {
            if let refusal = pendingRefusal(timeoutMilliseconds: 1_000) { throw refusal }
            throw .unavailable("lost the connection to timerd on \(socketPath) (\(error))")
        }
        return id
    }

    /// Writes all of `bytes` with `send(MSG_NOSIGNAL)`: a closed peer is an `EPIPE` error, not a
    /// `SIGPIPE` that kills the process with status 141 (man send(2)). `SIGPIPE` keeps its default
    /// for stdout, so `timerctl status | head` still ends quietly.
    private static func writeAllWithoutSignal(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let count = try Syscall.retrying("send") {
                bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            offset += count
        }
    }

    /// The daemon's refusal of this connection, if one is waiting to be read within the time
    /// given; any other line read is kept for ``readLine(timeoutMilliseconds:)``.
    private func pendingRefusal(timeoutMilliseconds: Int32) -> TimerClientError? {
        guard let line = try? readLine(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        if let reply = try? RPCReply(line: line), reply.id == .null, let error = reply.error {
            return Self.connectionError(error)
        }
        buffer.insert(contentsOf: line + [10], at: 0)
        return nil
    }

    /// An error reply with a `null` id: about the connection, not a request (this client sends only
    /// valid requests with ids). At the connection limit (-32006) the connection is unavailable.
    ///
    /// - Parameter error: the error object.
    /// - Returns: ``TimerClientError/unavailable(_:)`` for -32006, else ``TimerClientError/refused(_:)``.
    package static func connectionError(_ error: RPCError) -> TimerClientError {
        if error.code == RPCErrorCode.tooManyConnections.rawValue {
            return .unavailable("timerd refused the connection: \(error.message) (\(error.code))")
        }
        return .refused(error)
    }

    /// Reads the next line (a reply or a notification).
    ///
    /// - Parameter timeoutMilliseconds: how long to wait; -1 for ever.
    /// - Returns: the line without its newline, or `nil` on time-out.
    /// - Throws: ``TimerClientError/unavailable(_:)`` when timerd closed the connection or a read failed.
    package func readLine(timeoutMilliseconds: Int32) throws(TimerClientError) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        // Bytes before `scanned` hold no newline: each byte is looked at once, even in a reply of
        // many MiB (a streamed `timer.list`), not once per read.
        var scanned = 0
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 10) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                return line
            }
            scanned = buffer.count
            let count: Int
            do {
                let ready = try Poll.wait(fd, events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds)
                if ready == 0 { return nil }
                count = try Syscall.read(fd, into: &chunk)
            } catch {
                throw .unavailable("lost the connection to timerd on \(socketPath) (\(error))")
            }
            if count == 0 { throw .unavailable("timerd closed the connection on \(socketPath)") }
            buffer += chunk[0..<count]
        }
    }

    /// A reply as read: the id of the request answered, and its result or error.
    package struct Response<Result> {
        /// The id of the request answered.
        package var id: RPCID
        /// The result, on success.
        package var result: Result?
        /// The error, on failure.
        package var error: RPCError?
    }

    /// Decodes a reply line into its id and its result or error, with the product's one JSON reader.
    ///
    /// - Parameters:
    ///   - line: the reply's bytes.
    ///   - type: the result's type.
    /// - Returns: the reply.
    /// - Throws: ``TimerClientError/protocolError(_:)`` for a line that is not such a reply; the
    ///   connection's error (``connectionError(_:)``) for an error with a `null` id.
    package static func decode<Result: JSONReadable>(_ line: [UInt8], as type: Result.Type) throws(TimerClientError)
        -> Response<Result>
    {
        let response: Response<Result>
        do {
            let reply = try RPCReply(line: line)
            response = Response(
                id: reply.id,
                result: try reply.result.map { value throws(JSONShapeError) in try Result(json: value) },
                error: reply.error)
        } catch {
            throw .protocolError(String(decoding: line.prefix(200), as: UTF8.self))
        }
        if response.result == nil && response.error == nil { throw .protocolError("no result and no error") }
        if response.id == .null, let error = response.error { throw connectionError(error) }
        return response
    }

    /// Sends a request and waits for its result, skipping notifications and replies to other requests.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - type: the result's type.
    ///   - timeoutMilliseconds: how long to wait for the reply after the last line read (10 s by
    ///     default); -1 for ever (`timer.wait`).
    /// - Returns: the result.
    /// - Throws: ``TimerClientError/daemon(_:)`` with timerd's error; ``TimerClientError/unavailable(_:)``
    ///   when the connection is lost or nothing answers in time; ``TimerClientError/protocolError(_:)``.
    package func call<Result: JSONReadable>(
        _ request: TimerRequest, as type: Result.Type, timeoutMilliseconds: Int32 = 10_000
    ) throws(TimerClientError) -> Result {
        let id = try send(request)
        while true {
            guard let line = try readLine(timeoutMilliseconds: timeoutMilliseconds) else {
                throw .unavailable("timerd on \(socketPath) did not answer within \(timeoutMilliseconds / 1_000) s")
            }
            let response: Response<Result>
            do {
                response = try Self.decode(line, as: Result.self)
            } catch {
                // A notification of a subscription on this connection is not a reply: skip it.
                if (try? ServerNotification(line: line)) != nil { continue }
                throw error
            }
            guard response.id == .number(Double(id)) else { continue }
            if let error = response.error { throw .daemon(error) }
            guard let result = response.result else { throw .protocolError("no result") }
            return result
        }
    }
}
