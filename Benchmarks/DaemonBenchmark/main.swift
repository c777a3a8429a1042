// A client-side load driver for timerd (and, for reference, redis-server) over a Unix socket,
// plus the process-timing helpers Benchmarks/run needs. Glibc only: no Foundation in the loops.
//
// Usage: DaemonBenchmark COMMAND [options]; each command prints one JSON object on stdout.
//   ping --socket PATH [--count N] [--redis] [--idle-connections N]   round trips on one connection
//   load --socket PATH --count N [--seconds S | --at ISO8601]
//                                                pipelined timer.start (one connection, 256 in flight);
//                                                with --at every timer is due at that one instant
//   starts --socket PATH [--clients C] [--count N]   C connections, one request in flight each
//   lateness --socket PATH [--count N] [--background-clients C] [--subscribers S] [--e2e-waits W]
//                                                N timers due within one second, then daemon.stats;
//                                                with W > 0 also end-to-end lateness (EndToEnd.swift)
//   ops --socket PATH [--count N] [--uid U] [--named] [--no-list]
//                                                start, status (by id, or by name with --named), stop
//                                                and list, one request in flight: p50 of each
//   fdatasync --path FILE [--count N]            100-byte appends, each fdatasync'ed
//   redis-pubsub --socket PATH [--subscribers N] [--latency K]
//                                                PUBLISH to N SUBSCRIBE clients of redis-server
//   baseline [--count N]                         clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME) loop
//   exec [--runs N] -- PROGRAM ARGS…             whole-process wall time (posix_spawn to waitpid)
//   ready [--socket PATH] -- PROGRAM ARGS…       exec to the first daemon.ping reply; then SIGTERM
//   events --socket PATH [--subscribers N] [--count E] [--latency K]
//                                                notifications to N subscribers (EventsBenchmark.swift)
//   burst --socket PATH --count N [--lead S] [--uids …]
//                                                N timers due at one instant: time until all fired, and
//                                                another client's ping meanwhile (BurstBenchmark.swift)
import Glibc

// MARK: - Small helpers

func fail(_ message: String) -> Never {
    let line = Array("DaemonBenchmark: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

func bootNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_BOOTTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

func monotonicNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

/// Nearest-rank percentile of `sorted` (ascending).
func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(sorted.count - 1, max(0, rank))]
}

func printJSON(_ fields: [(String, Double)]) {
    let body = fields.map { name, value in
        let text = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        return "\"\(name)\":\(text)"
    }
    print("{" + body.joined(separator: ",") + "}")
}

struct Options {
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var command: [String] = []

    init(_ arguments: ArraySlice<String>) {
        var rest = arguments
        while let argument = rest.popFirst() {
            if argument == "--" {
                command = Array(rest)
                return
            }
            if ["--redis", "--named", "--no-list"].contains(argument) {
                flags.insert(argument)
            } else if argument.hasPrefix("--") {
                values[argument] = rest.popFirst() ?? ""
            } else {
                fail("unexpected argument \(argument)")
            }
        }
    }

    func int(_ name: String, _ defaultValue: Int) -> Int { values[name].flatMap { Int($0) } ?? defaultValue }
    func double(_ name: String, _ defaultValue: Double) -> Double {
        values[name].flatMap { Double($0) } ?? defaultValue
    }
    /// `--uids A-B` or `--uids A,B,C`: the users whose clients the driver is (empty when absent).
    var uids: [UInt32] {
        guard let text = values["--uids"] else { return [] }
        return text.split(separator: ",").flatMap { part -> [UInt32] in
            let bounds = part.split(separator: "-").compactMap { UInt32($0) }
            guard let low = bounds.first else { fail("bad --uids \(text)") }
            return Array(low...(bounds.last ?? low))
        }
    }
    var socket: String {
        guard let path = values["--socket"] else { fail("--socket PATH is required") }
        return path
    }
}

// MARK: - A blocking (or non-blocking) line client

final class LineClient {
    let fd: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var pending: [UInt8] = []

    /// Connects to `path`; as `uid` when given (the driver runs as root): the effective uid is
    /// switched around connect(2), as SO_PEERCRED records the credentials of that moment
    /// (socket(7)), so one driver process can be the clients of several users.
    init?(path: String, uid: UInt32? = nil) {
        if let uid, seteuid(uid) != 0 {
            fail("seteuid(\(uid)): errno \(errno) (run as root to connect as other users)")
        }
        defer { if uid != nil { _ = seteuid(0) } }
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { fail("socket path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        if status != 0 {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                fail("write: errno \(errno)")
            }
            offset += written
        }
    }

    /// Reads until `lines` newlines have arrived; returns the last line read.
    @discardableResult
    func receiveLines(_ lines: Int) -> [UInt8] {
        var remaining = lines
        var last: [UInt8] = []
        while remaining > 0 {
            if let newline = pending.firstIndex(of: 10) {
                last = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                remaining -= 1
                continue
            }
            let count = read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { fail("connection closed by the server") }
            pending += buffer[0..<count]
        }
        return last
    }

    /// Counts newlines in whatever is readable now (non-blocking callers); -1 when closed.
    func drainNewlines() -> Int {
        let count = read(fd, &buffer, buffer.count)
        if count < 0 { return errno == EAGAIN || errno == EINTR ? 0 : -1 }
        if count == 0 { return -1 }
        var lines = 0
        for index in 0..<count where buffer[index] == 10 { lines += 1 }
        return lines
    }
}

func startRequest(id: Int, seconds: Double) -> [UInt8] {
    Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"timer.start","params":{"durations":[\#(seconds)]}}"#.utf8)
        + [10]
}

/// A `timer.start` due at the instant `at` (an ISO 8601 date-time string, passed through as is).
func startRequest(id: Int, at: String) -> [UInt8] {
    Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"timer.start","params":{"at":"\#(at)"}}"#.utf8) + [10]
}

// MARK: - Commands

/// Round trips of a ping on one persistent connection, same loop for timerd and redis.
func ping(_ options: Options) {
    guard let client = LineClient(path: options.socket) else { fail("cannot connect to \(options.socket)") }
    let count = options.int("--count", 10_000)
    // Other clients connected and silent meanwhile (`--idle-connections N`): a per-turn cost that
    // grows with connections shows in the round trip.
    let idle = (0..<options.int("--idle-connections", 0)).compactMap { _ in LineClient(path: options.socket) }
    defer { withExtendedLifetime(idle) {} }
    let request =
        options.flags.contains("--redis")
        ? Array("PING\r\n".utf8) : Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#.utf8) + [10]
    for _ in 0..<min(1_000, count) {
        client.send(request)
        client.receiveLines(1)
    }
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
        let start = monotonicNanoseconds()
        client.send(request)
        client.receiveLines(1)
        samples.append(Double(monotonicNanoseconds() - start) / 1_000)
    }
    samples.sort()
    printJSON([
        ("count", Double(count)), ("p50_us", percentile(samples, 0.5)), ("p99_us", percentile(samples, 0.99)),
        ("max_us", samples.last ?? 0),
    ])
}

/// Starts `count` timers over one connection with up to `window` requests in flight.
func load(
    socket: String, count: Int, seconds: (Int) -> Double, at: String? = nil, window: Int = 256, uid: UInt32? = nil
) -> Double {
    guard let client = LineClient(path: socket, uid: uid) else { fail("cannot connect to \(socket)") }
    let start = monotonicNanoseconds()
    var sent = 0
    var received = 0
    while received < count {
        var batch: [UInt8] = []
        while sent < count && sent - received < window {
            batch +=
                at.map { startRequest(id: sent + 1, at: $0) } ?? startRequest(id: sent + 1, seconds: seconds(sent))
            sent += 1
        }
        if !batch.isEmpty { client.send(batch) }
        let reply = client.receiveLines(1)
        if reply.count < 20 || reply.starts(with: Array(#"{"error""#.utf8)) {
            fail("timer.start failed: \(String(decoding: reply, as: UTF8.self))")
        }
        received += 1
    }
    return Double(count) / (Double(monotonicNanoseconds() - start) / 1e9)
}

/// Starts `count` timers of `seconds` (or due at `at`) as `load` does; with `--uids`, as deployed:
/// one connection per user in turn, each with at most `--per-uid` timers (the daemon's per-user
/// quota, 10,000 by default), 256 requests in flight.
///
/// - Returns: the starts per second, and how many users' connections were used (0 without `--uids`).
func loadTimers(_ options: Options, count: Int, seconds: Double, at: String?) -> (rate: Double, users: Int) {
    let uids = options.uids
    guard !uids.isEmpty else {
        return (load(socket: options.socket, count: count, seconds: { _ in seconds }, at: at), 0)
    }
    let perUID = options.int("--per-uid", 10_000)
    guard perUID * uids.count >= count else {
        fail("\(count) timers need \(count / perUID + 1) uids, got \(uids.count)")
    }
    let start = monotonicNanoseconds()
    var started = 0
    for uid in uids where started < count {
        let chunk = min(perUID, count - started)
        _ = load(socket: options.socket, count: chunk, seconds: { _ in seconds }, at: at, uid: uid)
        started += chunk
    }
    return (Double(count) / (Double(monotonicNanoseconds() - start) / 1e9), (count + perUID - 1) / perUID)
}

func loadCommand(_ options: Options) {
    let count = options.int("--count", 1_000)
    let loaded = loadTimers(
        options, count: count, seconds: options.double("--seconds", 86_400), at: options.values["--at"])
    guard loaded.users > 0 else {
        printJSON([("count", Double(count)), ("starts_per_s", loaded.rate.rounded())])
        return
    }
    printJSON([("count", Double(count)), ("users", Double(loaded.users)), ("starts_per_s", loaded.rate.rounded())])
}

/// `clients` connections with one `timer.start` in flight each, like redis-benchmark -c.
func starts(_ options: Options) {
    let clientCount = options.int("--clients", 16)
    let count = options.int("--count", 2_000)
    let uids = options.uids
    let clients = (0..<clientCount).map { index in
        guard let client = LineClient(path: options.socket, uid: uids.isEmpty ? nil : uids[index % uids.count]) else {
            fail("cannot connect")
        }
        return client
    }
    for client in clients { _ = fcntl(client.fd, F_SETFL, fcntl(client.fd, F_GETFL) | O_NONBLOCK) }
    var sent = 0
    var received = 0
    let start = monotonicNanoseconds()
    for client in clients where sent < count {
        client.send(startRequest(id: sent + 1, seconds: 86_400))
        sent += 1
    }
    var pollSet = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    while received < count {
        let ready = poll(&pollSet, nfds_t(pollSet.count), 10_000)
        if ready < 0 && errno == EINTR { continue }
        if ready <= 0 { fail("no reply within 10 s") }
        for index in pollSet.indices where pollSet[index].revents != 0 {
            let lines = clients[index].drainNewlines()
            if lines < 0 { fail("connection closed") }
            received += lines
            for _ in 0..<lines where sent < count {
                clients[index].send(startRequest(id: sent + 1, seconds: 86_400))
                sent += 1
            }
        }
    }
    let rate = Double(count) / (Double(monotonicNanoseconds() - start) / 1e9)
    printJSON([("clients", Double(clientCount)), ("count", Double(count)), ("starts_per_s", rate.rounded())])
}

/// Starts `count` timers whose deadlines are spread evenly over one second starting `lead` s from
/// now, waits until they have all fired, and prints the daemon's own lateness figures.
func lateness(_ options: Options) {
    let count = options.int("--count", 10_000)
    let lead = options.double("--lead", 2)
    let firstDeadline = bootNanoseconds() + Int64(lead * 1e9)
    let uids = options.uids
    let seconds: (Int) -> Double = { index in
        let deadline = firstDeadline + Int64(index) * 1_000_000_000 / Int64(count)
        return Double(deadline - bootNanoseconds()) / 1e9
    }
    let waitUntil = firstDeadline + 1_500_000_000
    // End to end (`--e2e-waits W`): each timer's `endsAt` from its start reply, a probe reading
    // `finished` events and W `timer.wait` answers, and a clock_nanosleep loop beside it.
    let endToEndWaits = options.int("--e2e-waits", 0)
    var probes: [pid_t] = []
    if endToEndWaits > 0 {
        let deadlines = loadKeepingDeadlines(socket: options.socket, count: count, seconds: seconds, uid: uids.first)
        probes.append(
            probeEndToEnd(
                socket: options.socket, deadlines: deadlines, waits: endToEndWaits, waitUID: uids.first,
                until: waitUntil + 5_000_000_000))
        // The reference under the same load: every 10th of the timers' boot-time deadlines.
        let references = stride(from: 0, to: count, by: 10).map {
            firstDeadline + Int64($0) * 1_000_000_000 / Int64(count)
        }
        probes.append(referenceUnderLoad(deadlines: references))
    } else {
        _ = load(socket: options.socket, count: count, seconds: seconds, uid: uids.first)
    }
    // Watchers: subscribers that read every event until the window ends, in a child
    // process; subscribed after the load, whose 10,000 `started` events would otherwise fan out to
    // them and, on a busy machine, push the load past the first deadline.
    let watcher = watchEvents(
        socket: options.socket, subscribers: options.int("--subscribers", 0), until: waitUntil + 200_000_000)
    let background = options.int("--background-clients", 0)
    var backgroundStarts = 0
    if background > 0 {
        // As deployed: other users' clients keep starting far-off timers while these fire.
        backgroundStarts = startsUntil(
            socket: options.socket, clients: background, uids: Array(uids.dropFirst()), until: waitUntil)
    }
    var delay = timespec(tv_sec: Int(waitUntil / 1_000_000_000), tv_nsec: Int(waitUntil % 1_000_000_000))
    while clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &delay, nil) == EINTR {}
    if background > 0 {
        let line = Array("DaemonBenchmark: \(backgroundStarts) background starts during the window\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
    if let watcher { _ = waitFor(watcher) }
    for probe in probes where waitFor(probe) != 0 { fail("an end-to-end probe failed") }
    // As root: daemon.stats gives the daemon-wide lateness to root and the daemon's own uid only.
    guard let client = LineClient(path: options.socket) else { fail("cannot connect") }
    client.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.stats"}"#.utf8) + [10])
    print(String(decoding: client.receiveLines(1), as: UTF8.self))
}

/// The floor: one thread sleeping to each of the same kind of deadlines with clock_nanosleep.
func baseline(_ options: Options) {
    let count = options.int("--count", 10_000)
    let first = bootNanoseconds() + 200_000_000
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for index in 0..<count {
        let deadline = first + Int64(index) * 1_000_000_000 / Int64(count)
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &spec, nil) == EINTR {}
        samples.append(Double(bootNanoseconds() - deadline) / 1_000)
    }
    samples.sort()
    printJSON([
        ("count", Double(count)), ("p50_us", percentile(samples, 0.5)), ("p99_us", percentile(samples, 0.99)),
        ("max_us", samples.last ?? 0),
    ])
}

func spawn(_ command: [String], quiet: Bool) -> pid_t {
    guard !command.isEmpty else { fail("no program given after --") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if quiet {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    let argv = command.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawnp(&pid, command[0], &actions, nil, argv, environ)
    guard status == 0 else { fail("cannot run \(command[0]): errno \(status)") }
    return pid
}

func waitFor(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

/// Whole-process wall time: posix_spawn to waitpid, stdout and stderr to /dev/null.
func execTime(_ options: Options) {
    let runs = options.int("--runs", 50)
    for _ in 0..<3 { _ = waitFor(spawn(options.command, quiet: true)) }
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = monotonicNanoseconds()
        let status = waitFor(spawn(options.command, quiet: true))
        samples.append(Double(monotonicNanoseconds() - start) / 1e6)
        if status != 0 { fail("\(options.command.joined(separator: " ")) exited with status \(status)") }
    }
    samples.sort()
    printJSON([("runs", Double(runs)), ("p50_ms", percentile(samples, 0.5)), ("p99_ms", percentile(samples, 0.99))])
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: DaemonBenchmark ping|load|starts|lateness|baseline|exec|ready …") }
let options = Options(arguments.dropFirst(2))
switch arguments[1] {
case "ping": ping(options)
case "load": loadCommand(options)
case "starts": starts(options)
case "lateness": lateness(options)
case "baseline": baseline(options)
case "exec": execTime(options)
case "ready": ready(options)
case "ops": operations(options)
case "notify": notifySink(options)
case "redis-proto": redisProtocol(options)
case "events": eventsBenchmark(options)
case "recurring": recurring(options)
case "fdatasync": fdatasyncLoop(options)
case "redis-pubsub": redisPubSub(options)
case "burst": burstCommand(options)
default: fail("unknown command \(arguments[1])")
}
