// Over 450 lines on purpose: timerctl's one connection to timerd (finding and autostarting it,
// framing lines, reading replies across notifications and streamed parts) is one state machine over
// one descriptor and buffer; its pieces would have to share that state from several files.
import CLinux
import FoundationEssentials
import Glibc
import TimerModel
import TimerProtocol
import TimerSystem

/// A connection to timerd: sends JSON-RPC requests and reads their replies, one line each.
final class ControlClient {
    let fd: Int32
    let socketPath: String
    private var buffer: [UInt8] = []
    private var nextID = 1

    init(fd: Int32, socketPath: String) {
        self.fd = fd
        self.socketPath = socketPath
    }

    deinit { Syscall.close(fd) }

    /// Connects to `explicitPath`, or to the default socket, starting timerd there when nothing
    /// answers and `autostart` allows (the way tmux starts its server).
    ///
    /// - Throws: ``ControlError/usage(_:verb:)`` (exit 64) when `--socket` names something that is
    ///   not a socket (a directory, a regular file …; the empty and over-long paths were refused
    ///   when the options were read); ``ControlError/unavailable(_:)`` (exit 69) when nobody answers.
    static func connect(explicitPath: String?, autostart: Bool) throws(ControlError) -> ControlClient {
        let path = explicitPath ?? RuntimePaths.defaultSocketPath()
        do {
            return ControlClient(fd: try UnixSocket.connect(path), socketPath: path)
        } catch let error as SystemError where explicitPath == nil && isAbsent(error) {
            // One daemon per user: a timerd started under another XDG_RUNTIME_DIR (root's login
            // and `sudo -i` differ) listens elsewhere but holds the same state directory.
            if let client = connectToRecordedSocket(besides: path) { return client }
            guard autostart else {
                throw .unavailable(
                    "timerd is not running on \(path) (\(error)); start it with 'timerd' or drop --no-autostart")
            }
            return try startDaemon(socketPath: path)
        } catch let error as UnixSocket.AddressError {
            // Only the default path gets here (--socket was checked): XDG_RUNTIME_DIR is too long.
            throw .unavailable("cannot reach timerd: \(error)")
        } catch {
            if let explicitPath, let kind = UnixSocket.fileKind(at: explicitPath, followingLinks: true) {
                throw .usage("--socket \(explicitPath) is \(kind), not a socket", verb: nil)
            }
            var message = "timerd is not running on \(path) (\(error))"
            if explicitPath == nil && !autostart { message += "; start it with 'timerd' or drop --no-autostart" }
            throw .unavailable(message)
        }
    }

    /// Connects to the socket the default state directory names (``RuntimePaths/recordedSocket(in:)``)
    /// when it is not `defaultPath`.
    ///
    /// - Parameter defaultPath: the default socket, already tried.
    /// - Returns: the client, or nil when there is no other socket or nothing answers there.
    private static func connectToRecordedSocket(besides defaultPath: String) -> ControlClient? {
        guard let stateDirectory = try? RuntimePaths.defaultStateDirectory(),
            let recorded = RuntimePaths.recordedSocket(in: stateDirectory), recorded != defaultPath,
            let fd = try? UnixSocket.connect(recorded)
        else { return nil }
        return ControlClient(fd: fd, socketPath: recorded)
    }

    /// The last line of timerd's log that says why it did not start (`timerd: cannot start: …`),
    /// read from the last 4 KiB of `logPath`.
    ///
    /// - Parameter logPath: the log the autostarted daemon wrote its standard error to.
    /// - Returns: the line without its time stamp, or nil when there is none.
    static func startFailure(inLog logPath: String) -> String? {
        guard let file = try? FileDescriptor.open(logPath, O_RDONLY) else { return nil }
        let end = lseek(file.rawValue, 0, SEEK_END)
        let start = max(0, end - 4_096)
        var bytes = [UInt8](repeating: 0, count: Int(end - start))
        let count = pread(file.rawValue, &bytes, bytes.count, start)
        guard count > 0 else { return nil }
        let lines = String(decoding: bytes[0..<count], as: UTF8.self).split(separator: "\n")
        guard let line = lines.last(where: { $0.contains("cannot start: ") }),
            let reason = line.firstRange(of: "cannot start: ")
        else { return nil }
        return String(line[reason.upperBound...])
    }

    private static func isAbsent(_ error: SystemError) -> Bool {
        error.errno == .noSuchFileOrDirectory || error.errno == .connectionRefused
    }

    /// Starts `timerd --exit-when-idle 300` in its own session, its stderr appended to
    /// `timerd.log` in the state directory and no other descriptor inherited (as tmux does for
    /// its server), and waits up to 5 s for it to answer.
    private static func startDaemon(socketPath: String) throws(ControlError) -> ControlClient {
        guard let executable = daemonExecutable() else {
            throw .unavailable(
                "timerd is not running on \(socketPath) and no timerd executable was found beside timerctl or on PATH")
        }
        let logPath: String
        do {
            let stateDirectory = try RuntimePaths.defaultStateDirectory()
            try RuntimePaths.ensurePrivateDirectory(stateDirectory)
            logPath = stateDirectory + "/timerd.log"
        } catch {
            throw .unavailable("cannot start timerd: \(error)")
        }
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        posix_spawnattr_setflags(&attributes, TIMERD_POSIX_SPAWN_SETSID)
        let arguments = [executable, "--exit-when-idle", "300"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let status = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        guard status == 0 else {
            throw .unavailable("cannot start \(executable): \(SystemError("posix_spawn", errno: status))")
        }
        let deadline = Syscall.bootTimeNanoseconds() + 5_000_000_000
        while Syscall.bootTimeNanoseconds() < deadline {
            if let fd = try? UnixSocket.connect(socketPath) { return ControlClient(fd: fd, socketPath: socketPath) }
            var exitStatus: Int32 = 0
            if waitpid(pid, &exitStatus, WNOHANG) == pid {
                // Another timerd may have taken the state directory meanwhile: use it if it answers.
                if let client = connectToRecordedSocket(besides: socketPath) { return client }
                let reason = startFailure(inLog: logPath).map { ": \($0)" } ?? ""
                throw .unavailable("timerd exited at start-up (status \(exitStatus >> 8))\(reason); see \(logPath)")
            }
            usleep(10_000)
        }
        throw .unavailable("timerd did not answer on \(socketPath) within 5 s; see \(logPath)")
    }

    /// `timerd` beside this executable, else the first on `PATH`.
    private static func daemonExecutable() -> String? {
        var candidates: [String] = []
        var buffer = [CChar](repeating: 0, count: 4_096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let own = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = own.lastIndex(of: "/") { candidates.append(String(own[..<slash]) + "/timerd") }
        }
        for directory in (ProcessEnvironment.value("PATH") ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            candidates.append(directory + "/timerd")
        }
        return candidates.first { access($0, X_OK) == 0 }
    }

    // MARK: - Requests

    /// Sends a request without waiting for its reply.
    ///
    /// - Returns: the request's id.
    @discardableResult
    func send(_ method: RPCMethod, _ params: some RequestParams) throws(ControlError) -> Int {
        let id = nextID
        nextID += 1
        // Written by hand: the first JSONEncoder use costs a sizeable part of a CLI call's start-up.
        var line = #"{"jsonrpc":"2.0","id":"# + String(id) + #","method":"# + RequestJSON.string(method.rawValue)
        line += #","params":{"# + params.jsonMembers.joined(separator: ",") + "}}\n"
        // A daemon at its connection limit writes its refusal and closes: read it before writing
        // (Daemon+ConnectionIO.swift acceptClients), or the write meets a closed socket.
        if id == 1, let refusal = pendingRefusal(timeoutMilliseconds: 0) { throw refusal }
        do {
            try Self.writeAllWithoutSignal(fd, Array(line.utf8))
        } catch {
            if let refusal = pendingRefusal(timeoutMilliseconds: 1_000) { throw refusal }
            throw .unavailable("lost the connection to timerd on \(socketPath) (\(error))")
        }
        return id
    }

    /// Writes all of `bytes` with `send(MSG_NOSIGNAL)`: a closed peer is an `EPIPE` error, not a
    /// `SIGPIPE` that kills timerctl with status 141 (man send(2)). `SIGPIPE` keeps its default for
    /// stdout, so `timerctl status | head` still ends quietly.
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
    private func pendingRefusal(timeoutMilliseconds: Int32) -> ControlError? {
        guard let line = try? readLine(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        if let reply = try? RPCReply(line: line), reply.id == .null, let error = reply.error {
            return Self.connectionError(error)
        }
        buffer.insert(contentsOf: line + [10], at: 0)
        return nil
    }

    /// An error reply with a `null` id: about the connection, not a request of ours (timerctl
    /// sends only valid requests with ids). At the connection limit (-32006) this is exit 69.
    static func connectionError(_ error: RPCError) -> ControlError {
        if error.code == RPCErrorCode.tooManyConnections.rawValue {
            return .unavailable("timerd refused the connection: \(error.message) (\(error.code))")
        }
        return .failed(error)
    }

    /// Reads the next reply line.
    ///
    /// - Parameter timeoutMilliseconds: how long to wait; -1 for ever.
    /// - Returns: the line, or `nil` on time-out.
    func readLine(timeoutMilliseconds: Int32) throws(ControlError) -> [UInt8]? {
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
            do {
                let ready = try Poll.wait(fd, events: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds)
                if ready == 0 { return nil }
                let count = try Syscall.read(fd, into: &chunk)
                if count == 0 { throw ControlError.unavailable("timerd closed the connection on \(socketPath)") }
                buffer += chunk[0..<count]
            } catch let error as ControlError {
                throw error
            } catch {
                throw .unavailable("lost the connection to timerd on \(socketPath) (\(error))")
            }
        }
    }

    /// A reply as read: the id of the request answered, and its result or error.
    struct Response<Result> {
        var id: RPCID
        var result: Result?
        var error: RPCError?
    }

    /// Decodes a reply line into its id and its result or error, with the product's one JSON reader.
    static func decode<Result: JSONReadable>(_ line: [UInt8], as type: Result.Type) throws(ControlError)
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

    /// Sends a request and waits (10 s at most) for its result.
    ///
    /// - Throws: ``ControlError/failed(_:)`` with the daemon's error, or a connection error.
    func call<Result: JSONReadable>(
        _ method: RPCMethod, _ params: some RequestParams, as type: Result.Type, timeoutMilliseconds: Int32 = 10_000
    ) throws(ControlError) -> Result {
        let id = try send(method, params)
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
            if let error = response.error { throw .failed(error) }
            guard let result = response.result else { throw .protocolError("no result") }
            return result
        }
    }
}

/// Parameters of the protocol's methods, as the client sends them.
/// Parameters of a request, written as the members of its JSON `params` object.
protocol RequestParams {
    /// `"key":value` pairs, already JSON.
    var jsonMembers: [String] { get }
}

/// JSON text for the few value types requests carry.
enum RequestJSON {
    /// A JSON string literal, escaped per RFC 8259 §7.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u00" + String(scalar.value, radix: 16).leftPaddedHex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A finite number in the shortest form that reads back exactly (Swift's `description`).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(describing: value)
    }
}

extension String {
    fileprivate var leftPaddedHex: String { count >= 2 ? self : "0" + self }
}

struct StartParams: RequestParams, Sendable {
    var durations: [Double]
    var name: String?
    var action: ActionRequest?
    /// `--heartbeat`: `"heartbeat":true`, sent only when set.
    var isHeartbeat = false
    /// `--loops N`: `"loops":N`, sent only when given.
    var loops: Int?
    /// `--wake`: `"wake":true`, sent only when set.
    var isWake = false
    var jsonMembers: [String] {
        [#""durations":["# + durations.map(RequestJSON.number).joined(separator: ",") + "]"]
            + (name.map { [#""name":"# + RequestJSON.string($0)] } ?? []) + (action.map { [$0.jsonMember] } ?? [])
            + (isHeartbeat ? [#""heartbeat":true"#] : []) + (loops.map { [#""loops":\#($0)"#] } ?? [])
            + (isWake ? [#""wake":true"#] : [])
    }
}

struct StartAtParams: RequestParams, Sendable {
    var at: String
    var timeZone: String?
    var minuteInterval: Int?
    var name: String?
    var action: ActionRequest?
    /// `--wake`: `"wake":true`, sent only when set.
    var isWake = false
    var jsonMembers: [String] {
        var members = [#""at":"# + RequestJSON.string(at)]
        if let action { members.append(action.jsonMember) }
        if let timeZone { members.append(#""timeZone":"# + RequestJSON.string(timeZone)) }
        if let minuteInterval { members.append(#""minuteInterval":"# + String(minuteInterval)) }
        if let name { members.append(#""name":"# + RequestJSON.string(name)) }
        if isWake { members.append(#""wake":true"#) }
        return members
    }
}

/// `timer.start` with `on` or `every` (`timerctl start --on EXPR`, `--every DURATION`).
struct StartRecurringParams: RequestParams, Sendable {
    var on: String?
    var every: Double?
    var from: String?
    var timeZone: String?
    var skipMissed: Bool
    var randomizedDelay: Double?
    var name: String?
    var action: ActionRequest?
    /// `--wake`: `"wake":true`, sent only when set.
    var isWake = false

    /// Checks what can be checked locally (durations, the --from time) before anything is sent; the
    /// expression itself is parsed by timerd, whose error names the token and its offset.
    ///
    /// The zone sent with `--on` is the caller's `TZ` when it is set (explicit: the timer keeps it);
    /// without `TZ` none is sent and the timer follows the system zone. `--from` with a local time
    /// is sent with the local zone, as `--at` is.
    static func make(_ options: ControlOptions) throws(ControlError) -> StartRecurringParams {
        var params = StartRecurringParams(
            on: options.on, every: nil, from: nil, timeZone: nil, skipMissed: options.skipMissed,
            randomizedDelay: nil, name: options.name, action: nil)
        do throws(CountdownError) {
            if let every = options.every { params.every = try DurationParser.seconds(from: every) }
            if let delay = options.randomizedDelay { params.randomizedDelay = try DurationParser.seconds(from: delay) }
            if let name = options.name, !TimerName.isValid(name) { throw .invalidName(name) }
        } catch {
            throw .usage(error.description, verb: .start)
        }
        if let on = options.on {
            guard on.contains(where: { $0 != " " && $0 != "\t" }) else {
                throw .usage("--on needs a calendar expression, such as --on 'Mon..Fri 07:00'", verb: .start)
            }
            // TZ set (an empty TZ is UTC): that zone; unset: none, so the timer follows timerd's system zone.
            if let tz = ProcessEnvironment.valueIfSet("TZ") {
                params.timeZone = LocalTimeZone.detect(tz: tz).name
            }
        }
        if let from = options.from {
            let time = try AbsoluteTime.parse(from, minuteInterval: nil)
            params.from = time.text
            params.timeZone = time.timeZone
        }
        return params
    }

    var jsonMembers: [String] {
        var members: [String] = []
        if let action { members.append(action.jsonMember) }
        if let every { members.append(#""every":"# + RequestJSON.number(every)) }
        if let from { members.append(#""from":"# + RequestJSON.string(from)) }
        if let name { members.append(#""name":"# + RequestJSON.string(name)) }
        if let on { members.append(#""on":"# + RequestJSON.string(on)) }
        if let randomizedDelay { members.append(#""randomizedDelay":"# + RequestJSON.number(randomizedDelay)) }
        if skipMissed { members.append(#""skipMissed":true"#) }
        if let timeZone { members.append(#""timeZone":"# + RequestJSON.string(timeZone)) }
        if isWake { members.append(#""wake":true"#) }
        return members
    }
}

struct TimerParams: RequestParams, Sendable {
    var timer: String
    var jsonMembers: [String] { [#""timer":"# + RequestJSON.string(timer)] }
}

struct ListParams: RequestParams, Sendable {
    var all: Bool
    var jsonMembers: [String] { [#""all":"# + (all ? "true" : "false")] }
}

struct NoParams: RequestParams, Sendable {
    var jsonMembers: [String] { [] }
}

struct ExtendParams: RequestParams, Sendable {
    var timer: String
    /// Seconds; negative subtracts.
    var seconds: Double
    var jsonMembers: [String] { [#""timer":"# + RequestJSON.string(timer), #""by":"# + RequestJSON.number(seconds)] }
}

struct RenameParams: RequestParams, Sendable {
    var timer: String
    var name: String
    var jsonMembers: [String] { [#""timer":"# + RequestJSON.string(timer), #""name":"# + RequestJSON.string(name)] }
}

struct RemoveParams: RequestParams, Sendable {
    /// The timer to remove, or `nil` for every ended timer of the caller.
    var timer: String?
    var jsonMembers: [String] {
        timer.map { [#""timer":"# + RequestJSON.string($0)] } ?? [#""allEnded":true"#]
    }
}
