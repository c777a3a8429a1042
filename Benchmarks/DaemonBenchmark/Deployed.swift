// The commands for the deployed-shape benchmark: per-operation latencies, a private
// NOTIFY_SOCKET that reads what the daemon sends, and the Redis references (a delayed queue's data
// in RESP for `redis-cli --pipe`, and exec to a loaded dataset).
import Glibc

/// The timer id in a `timer.start` reply (`"id":"123"`; the request's id is a number).
func timerID(in reply: [UInt8]) -> String? {
    let marker = Array(#""id":""#.utf8)
    guard reply.count > marker.count else { return nil }
    for start in 0...(reply.count - marker.count) where reply[start..<(start + marker.count)].elementsEqual(marker) {
        var end = start + marker.count
        while end < reply.count, reply[end] != UInt8(ascii: "\"") { end += 1 }
        return String(decoding: reply[(start + marker.count)..<end], as: UTF8.self)
    }
    return nil
}

/// C clients (round-robin over `uids`) each keep one `timer.start` of a day in flight until the
/// boot-time clock reaches `until`; returns how many were answered.
func startsUntil(socket: String, clients clientCount: Int, uids: [UInt32], until: Int64) -> Int {
    let clients = (0..<clientCount).map { index in
        guard let client = LineClient(path: socket, uid: uids.isEmpty ? nil : uids[index % uids.count]) else {
            fail("cannot connect")
        }
        _ = fcntl(client.fd, F_SETFL, fcntl(client.fd, F_GETFL) | O_NONBLOCK)
        return client
    }
    var sent = 0
    var received = 0
    for client in clients {
        client.send(startRequest(id: sent + 1, seconds: 86_400))
        sent += 1
    }
    var pollSet = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    while bootNanoseconds() < until {
        let ready = poll(&pollSet, nfds_t(pollSet.count), 50)
        if ready < 0 && errno == EINTR { continue }
        if ready < 0 { fail("poll: errno \(errno)") }
        for index in pollSet.indices where pollSet[index].revents != 0 {
            let lines = clients[index].drainNewlines()
            if lines < 0 { fail("connection closed") }
            received += lines
            for _ in 0..<lines {
                clients[index].send(startRequest(id: sent + 1, seconds: 86_400))
                sent += 1
            }
        }
    }
    return received
}

/// Forks a child that opens `subscribers` connections (as this process's uid), subscribes each to
/// every event (`timer.subscribe`) and reads them all until `until` (boot-time ns), then reports
/// the notifications it read and exits. Returns once every subscription is answered; `nil` when
/// `subscribers` is 0. The caller waits for the child with ``waitFor(_:)``.
func watchEvents(socket: String, subscribers: Int, until: Int64) -> pid_t? {
    guard subscribers > 0 else { return nil }
    raiseDescriptorLimit()
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { fail("pipe: errno \(errno)") }
    let child = fork()
    if child < 0 { fail("fork: errno \(errno)") }
    if child > 0 {
        close(ends[1])
        var byte: UInt8 = 0
        guard read(ends[0], &byte, 1) == 1 else { fail("the subscribers did not start") }
        close(ends[0])
        return child
    }
    close(ends[0])
    let subscribe = Array(#"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe"}"#.utf8) + [10]
    let clients = (0..<subscribers).map { index in
        guard let client = LineClient(path: socket) else { fail("cannot connect subscriber \(index)") }
        client.send(subscribe)
        let reply = client.receiveLines(1)
        if !reply.starts(with: Array(#"{"id":1,"jsonrpc":"2.0","result""#.utf8)) {
            fail("timer.subscribe failed: \(String(decoding: reply, as: UTF8.self))")
        }
        _ = fcntl(client.fd, F_SETFL, fcntl(client.fd, F_GETFL) | O_NONBLOCK)
        return client
    }
    var byte: UInt8 = 1
    _ = write(ends[1], &byte, 1)
    close(ends[1])
    var pollSet = clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    var received = 0
    while bootNanoseconds() < until {
        let ready = poll(&pollSet, nfds_t(pollSet.count), 50)
        if ready < 0 && errno == EINTR { continue }
        if ready < 0 { fail("poll: errno \(errno)") }
        for index in pollSet.indices where pollSet[index].revents != 0 {
            let lines = clients[index].drainNewlines()
            if lines < 0 { fail("subscriber connection closed") }
            received += lines
        }
    }
    let line = Array("DaemonBenchmark: \(subscribers) subscribers read \(received) notifications\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    _exit(0)
}

/// Round trips of each operation by one user (`--uid`), one request in flight, so that their
/// p50s can be compared between daemons holding 1k and 1M other timers: `timer.start`,
/// `timer.status` of the timer just started, `timer.stop` of it, and `timer.list` of the user's
/// 10 other live timers. Prints µs per operation.
func operations(_ options: Options) {
    let count = options.int("--count", 1_000)
    let uid = options.values["--uid"].flatMap { UInt32($0) }
    guard let client = LineClient(path: options.socket, uid: uid) else { fail("cannot connect to \(options.socket)") }
    func roundTrip(_ text: String) -> (reply: [UInt8], microseconds: Double) {
        let start = monotonicNanoseconds()
        client.send(Array(text.utf8) + [10])
        let reply = client.receiveLines(1)
        let elapsed = Double(monotonicNanoseconds() - start) / 1_000
        if reply.starts(with: Array(#"{"error""#.utf8)) { fail("\(text): \(String(decoding: reply, as: UTF8.self))") }
        return (reply, elapsed)
    }
    for index in 0..<10 {
        _ = roundTrip(#"{"jsonrpc":"2.0","id":\#(index),"method":"timer.start","params":{"durations":[86400]}}"#)
    }
    var starts: [Double] = []
    var statuses: [Double] = []
    var stops: [Double] = []
    var lists: [Double] = []
    // `--named`: each timer gets a name (unique to this run) and status asks for it by name.
    let prefix = options.flags.contains("--named") ? "ops\(getpid())-" : nil
    let listing = !options.flags.contains("--no-list")
    for index in 0..<(count + 100) {
        let name = prefix.map { #","name":"\#($0)\#(index)""# } ?? ""
        let started = roundTrip(
            #"{"jsonrpc":"2.0","id":1,"method":"timer.start","params":{"durations":[86400]\#(name)}}"#)
        guard let id = timerID(in: started.reply) else { fail("no timer id in the start reply") }
        let reference = prefix.map { "\($0)\(index)" } ?? id
        let status = roundTrip(
            #"{"jsonrpc":"2.0","id":2,"method":"timer.status","params":{"timer":"\#(reference)"}}"#)
        let stop = roundTrip(#"{"jsonrpc":"2.0","id":3,"method":"timer.stop","params":{"timer":"\#(id)"}}"#)
        // `--no-list`: the requester's whole list is every live timer it has (all of a loaded table).
        let list =
            listing ? roundTrip(#"{"jsonrpc":"2.0","id":4,"method":"timer.list"}"#) : (reply: [], microseconds: 0)
        guard index >= 100 else { continue }  // warm-up
        starts.append(started.microseconds)
        statuses.append(status.microseconds)
        stops.append(stop.microseconds)
        lists.append(list.microseconds)
    }
    guard !starts.isEmpty else { fail("no samples: --count must be > 0") }
    printJSON(
        [
            ("count", Double(count)), ("start_us", percentile(starts.sorted(), 0.5)),
            ("status_us", percentile(statuses.sorted(), 0.5)), ("stop_us", percentile(stops.sorted(), 0.5)),
        ] + (listing ? [("list_us", percentile(lists.sorted(), 0.5))] : []))
}

/// A private `NOTIFY_SOCKET` (sd_notify(3)): binds `--path` (mode 0666, for a daemon run as
/// another user), reads datagrams until `--stop-file` exists, then prints how many `READY=1`,
/// `WATCHDOG=1` and `STATUS=` it got and the longest gap between two watchdog pings (a loop that
/// stalls, e.g. on a status line built from a listing, shows there).
func notifySink(_ options: Options) {
    guard let path = options.values["--path"], let stopFile = options.values["--stop-file"] else {
        fail("notify needs --path PATH --stop-file PATH")
    }
    unlink(path)
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { fail("path too long") }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if bound != 0 { fail("cannot bind \(path): errno \(errno)") }
    chmod(path, 0o666)
    var ready = 0
    var watchdogs = 0
    var statuses = 0
    var lastWatchdog: Int64?
    var longestGap: Int64 = 0
    var lastStatus = ""
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while access(stopFile, F_OK) != 0 {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 100) > 0 else { continue }
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { continue }
        for line in String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n") {
            if line == "READY=1" { ready += 1 }
            if line.hasPrefix("STATUS=") {
                statuses += 1
                lastStatus = String(line.dropFirst(7))
            }
            if line == "WATCHDOG=1" {
                watchdogs += 1
                let now = monotonicNanoseconds()
                if let lastWatchdog { longestGap = max(longestGap, now - lastWatchdog) }
                lastWatchdog = now
            }
        }
    }
    close(fd)
    unlink(path)
    let text = Array("DaemonBenchmark notify: last STATUS=\(lastStatus)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    printJSON([
        ("ready", Double(ready)), ("watchdog", Double(watchdogs)), ("status", Double(statuses)),
        ("watchdog_max_gap_ms", Double(longestGap) / 1e6),
    ])
}

/// `--count N` delayed entries as Sidekiq and BullMQ keep them, in RESP for `redis-cli --pipe`:
/// one sorted set `timers` (score: the due time in ms, member: the id) and one hash per timer
/// `timer:ID` with the fields a timer has (owner, state, duration, createdAt, startedAt).
func redisProtocol(_ options: Options) {
    let count = options.int("--count", 1_000)
    var out: [UInt8] = []
    out.reserveCapacity(1 << 20)
    func bulk(_ text: String) {
        out += Array("$\(text.utf8.count)\r\n".utf8)
        out += Array(text.utf8)
        out += [13, 10]
    }
    func flush() {
        var offset = 0
        while offset < out.count {
            let written = out[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if written <= 0 { fail("write to stdout: errno \(errno)") }
            offset += written
        }
        out.removeAll(keepingCapacity: true)
    }
    let base: Int64 = 1_795_965_453_000
    for index in 1...max(1, count) {
        let id = String(index)
        let due = base + Int64(index % 86_400) * 1_000 + 60_000
        out += Array("*4\r\n".utf8)
        bulk("ZADD")
        bulk("timers")
        bulk(String(due))
        bulk(id)
        out += Array("*12\r\n".utf8)
        bulk("HSET")
        bulk("timer:" + id)
        for (field, value) in [
            ("owner", "1000"), ("state", "running"), ("duration", "86400"), ("createdAt", String(base)),
            ("startedAt", String(base)),
        ] {
            bulk(field)
            bulk(value)
        }
        if out.count >= 1 << 20 { flush() }
    }
    flush()
}

/// For `ready --redis --keys N`: milliseconds from exec until redis answers `DBSIZE` with N keys
/// (loading an RDB answers -LOADING until it is done).
func redisLoaded(_ options: Options, since start: Int64, pid: pid_t) -> Double {
    let keys = options.int("--keys", 0)
    let expected = Array(":\(keys)".utf8)
    while monotonicNanoseconds() - start < 120_000_000_000 {
        if let client = LineClient(path: options.socket) {
            client.send(Array("DBSIZE\r\n".utf8))
            if client.receiveLines(1).starts(with: expected) {
                let elapsed = Double(monotonicNanoseconds() - start) / 1e6
                kill(pid, SIGTERM)
                _ = waitFor(pid)
                return elapsed
            }
        }
        usleep(200)
    }
    kill(pid, SIGTERM)
    _ = waitFor(pid)
    fail("redis did not load \(keys) keys within 120 s")
}

/// Exec to `READY=1` on a private `NOTIFY_SOCKET` (sd_notify(3): sent once the socket is bound,
/// the state loaded and the timers armed), and to the first successful `daemon.ping` reply; then
/// SIGTERM and wait (the daemon saves on exit).
func ready(_ options: Options) {
    let notifyPath = "/tmp/timerd-bench-notify-\(getpid())"
    unlink(notifyPath)
    let notify = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let pathBytes = Array(notifyPath.utf8)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(notify, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    if bound != 0 { fail("cannot bind \(notifyPath): errno \(errno)") }
    chmod(notifyPath, 0o666)  // the daemon may run as another user
    defer {
        close(notify)
        unlink(notifyPath)
    }
    setenv("NOTIFY_SOCKET", notifyPath, 1)
    if let watchdog = options.values["--watchdog-usec"] { setenv("WATCHDOG_USEC", watchdog, 1) }
    let start = monotonicNanoseconds()
    let pid = spawn(options.command, quiet: false)
    unsetenv("NOTIFY_SOCKET")
    unsetenv("WATCHDOG_USEC")
    if options.flags.contains("--redis") {
        printJSON([("ready_ms", redisLoaded(options, since: start, pid: pid))])
        return
    }
    var readyMilliseconds = -1.0
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while readyMilliseconds < 0 && monotonicNanoseconds() - start < 60_000_000_000 {
        var entry = pollfd(fd: notify, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 100) > 0 else { continue }
        let count = recv(notify, &buffer, buffer.count, 0)
        if count > 0, String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n").contains("READY=1") {
            readyMilliseconds = Double(monotonicNanoseconds() - start) / 1e6
        }
    }
    let request = Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#.utf8) + [10]
    var pingMilliseconds = -1.0
    while monotonicNanoseconds() - start < 60_000_000_000 {
        if let client = LineClient(path: options.socket) {
            client.send(request)
            if client.receiveLines(1).starts(with: Array(#"{"id":1,"jsonrpc":"2.0","result""#.utf8)) {
                pingMilliseconds = Double(monotonicNanoseconds() - start) / 1e6
                break
            }
        }
        usleep(200)
    }
    kill(pid, SIGTERM)
    _ = waitFor(pid)
    if readyMilliseconds < 0 { fail("no READY=1 within 60 s") }
    printJSON([("ready_ms", readyMilliseconds), ("first_ping_ms", pingMilliseconds)])
}
