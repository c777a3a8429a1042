// End-to-end lateness as a client sees it, its references (a clock_nanosleep loop under the same
// load, fdatasync of a small append beside the daemon's state), and Redis pub/sub fan-out.
import Glibc

func realtimeNanoseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

/// The value of the first `"key":"…"` string member in `line` (no escapes: ids and ISO dates).
func stringMember(_ key: String, in line: [UInt8]) -> [UInt8]? {
    let marker = Array("\"\(key)\":\"".utf8)
    guard line.count > marker.count else { return nil }
    for start in 0...(line.count - marker.count) where line[start..<(start + marker.count)].elementsEqual(marker) {
        var end = start + marker.count
        while end < line.count, line[end] != UInt8(ascii: "\"") { end += 1 }
        return Array(line[(start + marker.count)..<end])
    }
    return nil
}

/// `2026-11-29T09:25:00.123Z` as nanoseconds since the Unix epoch (UTC only, as timerd writes it).
func instantNanoseconds(_ text: [UInt8]) -> Int64? {
    func number(_ range: Range<Int>) -> Int? {
        guard range.upperBound <= text.count else { return nil }
        var value = 0
        for byte in text[range] {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
        let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
    else { return nil }
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    var nanoseconds: Int64 = 0
    if text.count > 20, text[19] == UInt8(ascii: ".") {
        var scale: Int64 = 100_000_000
        for byte in text[20...] where byte >= 48 && byte <= 57 && scale > 0 {
            nanoseconds += Int64(byte - 48) * scale
            scale /= 10
        }
    }
    return Int64(timegm(&parts)) * 1_000_000_000 + nanoseconds
}

/// Like ``load(socket:count:seconds:at:window:uid:)``, keeping each started timer's `endsAt`:
/// timer id → its deadline on the wall clock (ns since the epoch, millisecond resolution: timerd
/// writes `endsAt` in milliseconds).
func loadKeepingDeadlines(socket: String, count: Int, seconds: (Int) -> Double, uid: UInt32?) -> [String: Int64] {
    guard let client = LineClient(path: socket, uid: uid) else { fail("cannot connect to \(socket)") }
    var deadlines: [String: Int64] = [:]
    deadlines.reserveCapacity(count)
    var sent = 0
    var received = 0
    while received < count {
        var batch: [UInt8] = []
        while sent < count && sent - received < 256 {
            batch += startRequest(id: sent + 1, seconds: seconds(sent))
            sent += 1
        }
        if !batch.isEmpty { client.send(batch) }
        let reply = client.receiveLines(1)
        guard let id = timerID(in: reply), let endsAt = stringMember("endsAt", in: reply).flatMap(instantNanoseconds)
        else { fail("timer.start failed: \(String(decoding: reply, as: UTF8.self))") }
        deadlines[id] = endsAt
        received += 1
    }
    return deadlines
}

/// Splits what a connection reads into lines, each stamped with the wall-clock time of the read
/// that completed it.
struct StampedReader {
    let client: LineClient
    var pending: [UInt8] = []

    /// Reads what is there now; returns the complete lines and the read's CLOCK_REALTIME stamp, or
    /// nil when the connection closed.
    mutating func read() -> (lines: [[UInt8]], at: Int64)? {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        let count = Glibc.read(client.fd, &chunk, chunk.count)
        let now = realtimeNanoseconds()
        if count < 0 { return errno == EAGAIN || errno == EINTR ? ([], now) : nil }
        if count == 0 { return nil }
        pending += chunk[0..<count]
        var lines: [[UInt8]] = []
        while let newline = pending.firstIndex(of: 10) {
            lines.append(Array(pending[..<newline]))
            pending.removeSubrange(...newline)
        }
        return (lines, now)
    }
}

/// Forks the end-to-end probe: one connection subscribed to `finished` events (as this process's
/// uid, root: every user's timers) and one, as `waitUID` (the timers' owner), with `waits`
/// pending `timer.wait`s on timers spread evenly over `deadlines`. Each `finished` notification
/// and each `timer.wait` answer is stamped with CLOCK_REALTIME when read and compared with the
/// timer's `endsAt`. Reads until every one arrived or the boot-time clock reaches `until`, then
/// prints `e2e_event_*` and `e2e_wait_*` (µs) on stdout and exits. Returns once both requests are
/// sent and the subscription answered.
func probeEndToEnd(socket: String, deadlines: [String: Int64], waits: Int, waitUID: UInt32?, until: Int64) -> pid_t {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { fail("pipe: errno \(errno)") }
    let child = fork()
    if child < 0 { fail("fork: errno \(errno)") }
    if child > 0 {
        close(ends[1])
        var byte: UInt8 = 0
        guard read(ends[0], &byte, 1) == 1 else { fail("the end-to-end probe did not start") }
        close(ends[0])
        return child
    }
    close(ends[0])
    guard let subscriber = LineClient(path: socket) else { fail("cannot connect the probe's subscriber") }
    subscriber.send(
        Array(#"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe","params":{"events":["finished"]}}"#.utf8) + [10])
    let reply = subscriber.receiveLines(1)
    if !reply.starts(with: Array(#"{"id":1,"jsonrpc":"2.0","result""#.utf8)) {
        fail("timer.subscribe failed: \(String(decoding: reply, as: UTF8.self))")
    }
    guard let waiter = LineClient(path: socket, uid: waitUID) else { fail("cannot connect the probe's waiter") }
    let byDeadline = deadlines.sorted { $0.value < $1.value }.map(\.key)
    let waited = min(waits, byDeadline.count)
    var batch: [UInt8] = []
    for index in 0..<waited {
        let id = byDeadline[index * byDeadline.count / waited]
        batch += Array(#"{"jsonrpc":"2.0","id":\#(index + 2),"method":"timer.wait","params":{"timer":"\#(id)"}}"#.utf8)
        batch.append(10)
    }
    waiter.send(batch)
    for client in [subscriber, waiter] { _ = fcntl(client.fd, F_SETFL, fcntl(client.fd, F_GETFL) | O_NONBLOCK) }
    var byte: UInt8 = 1
    _ = write(ends[1], &byte, 1)
    close(ends[1])

    var readers = [StampedReader(client: subscriber), StampedReader(client: waiter)]
    var pollSet = readers.map { pollfd(fd: $0.client.fd, events: Int16(POLLIN), revents: 0) }
    var events: [Double] = []
    var answers: [Double] = []
    // `timer.gap`s: the daemon dropped this subscriber's queue (reason "slow": more than 1 MiB
    // waiting while the probe process waited for the CPU); the `finished` events in it give no
    // sample, and the probe then reads until `until`.
    var gaps = 0
    let gap = Array(#"{"jsonrpc":"2.0","method":"timer.gap""#.utf8)
    events.reserveCapacity(deadlines.count)
    while (events.count < deadlines.count || answers.count < waited) && bootNanoseconds() < until {
        let ready = poll(&pollSet, nfds_t(pollSet.count), 50)
        if ready < 0 && errno == EINTR { continue }
        if ready < 0 { fail("poll: errno \(errno)") }
        for index in pollSet.indices where pollSet[index].revents != 0 {
            guard let (lines, at) = readers[index].read() else { fail("probe connection \(index) closed") }
            for line in lines {
                if line.starts(with: Array(#"{"error""#.utf8)) {
                    fail("probe request failed: \(String(decoding: line, as: UTF8.self))")
                }
                if index == 0, line.starts(with: gap) {
                    gaps += 1
                    continue
                }
                guard let id = timerID(in: line), let deadline = deadlines[id] else { continue }
                let microseconds = Double(at - deadline) / 1e3
                if index == 0 { events.append(microseconds) } else { answers.append(microseconds) }
            }
        }
    }
    events.sort()
    answers.sort()
    printJSON([
        ("e2e_event_samples", Double(events.count)), ("e2e_event_gaps", Double(gaps)),
        ("e2e_event_p50_us", percentile(events, 0.5).rounded()),
        ("e2e_event_p99_us", percentile(events, 0.99).rounded()), ("e2e_event_max_us", (events.last ?? 0).rounded()),
        ("e2e_wait_samples", Double(answers.count)), ("e2e_wait_p50_us", percentile(answers, 0.5).rounded()),
        ("e2e_wait_p99_us", percentile(answers, 0.99).rounded()), ("e2e_wait_max_us", (answers.last ?? 0).rounded()),
    ])
    fflush(nil)
    _exit(0)
}

/// Forks the reference under load: a process sleeping with clock_nanosleep(CLOCK_BOOTTIME,
/// TIMER_ABSTIME) to each of `deadlines` (boot-time ns) while the daemon fires its timers and
/// serves its clients; prints `reference_load_*` (µs) on stdout and exits.
func referenceUnderLoad(deadlines: [Int64]) -> pid_t {
    let child = fork()
    if child < 0 { fail("fork: errno \(errno)") }
    if child > 0 { return child }
    var samples: [Double] = []
    samples.reserveCapacity(deadlines.count)
    for deadline in deadlines {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &spec, nil) == EINTR {}
        samples.append(Double(bootNanoseconds() - deadline) / 1_000)
    }
    samples.sort()
    printJSON([
        ("reference_load_samples", Double(samples.count)), ("reference_load_p50_us", percentile(samples, 0.5)),
        ("reference_load_p99_us", percentile(samples, 0.99)), ("reference_load_max_us", samples.last ?? 0),
    ])
    fflush(nil)
    _exit(0)
}

/// `fdatasync --path FILE [--count N]`: N appends of 100 bytes to FILE, each followed by
/// fdatasync(2) (what one durable journal record costs on that file system); prints p50/p99/max
/// in µs and removes FILE.
func fdatasyncLoop(_ options: Options) {
    guard let path = options.values["--path"] else { fail("fdatasync needs --path FILE") }
    let count = options.int("--count", 200)
    let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { fail("open \(path): errno \(errno)") }
    defer {
        close(fd)
        unlink(path)
    }
    let record = [UInt8](repeating: UInt8(ascii: "x"), count: 99) + [10]
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
        let start = monotonicNanoseconds()
        let written = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == record.count else { fail("write \(path): errno \(errno)") }
        guard fdatasync(fd) == 0 else { fail("fdatasync \(path): errno \(errno)") }
        samples.append(Double(monotonicNanoseconds() - start) / 1_000)
    }
    samples.sort()
    printJSON([
        ("count", Double(count)), ("p50_us", percentile(samples, 0.5).rounded()),
        ("p99_us", percentile(samples, 0.99).rounded()), ("max_us", (samples.last ?? 0).rounded()),
    ])
}

/// `redis-pubsub --socket PATH [--subscribers N] [--latency K] [--bytes B]`: N connections
/// `SUBSCRIBE bench`; one more `PUBLISH`es a B-byte message K times, one at a time, and the same
/// poll loop reads every subscriber: the latency from sending PUBLISH to each subscriber reading
/// the whole message (N × K samples), as `events --latency` measures timerd's notifications.
func redisPubSub(_ options: Options) {
    let subscriberCount = options.int("--subscribers", 1_000)
    let samples = options.int("--latency", 100)
    let size = options.int("--bytes", 500)
    raiseDescriptorLimit()
    var subscribers: [LineClient] = []
    for index in 0..<subscriberCount {
        guard let client = LineClient(path: options.socket) else { fail("cannot connect subscriber \(index)") }
        client.send(Array("SUBSCRIBE bench\r\n".utf8))
        // *3 $9 subscribe $5 bench :N: six lines.
        let last = client.receiveLines(6)
        if !last.starts(with: Array(":".utf8)) { fail("SUBSCRIBE failed: \(String(decoding: last, as: UTF8.self))") }
        subscribers.append(client)
    }
    guard let publisher = LineClient(path: options.socket) else { fail("cannot connect the publisher") }
    for client in subscribers + [publisher] { _ = fcntl(client.fd, F_SETFL, fcntl(client.fd, F_GETFL) | O_NONBLOCK) }
    var pollSet = (subscribers + [publisher]).map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    let publisherIndex = subscribers.count
    let payload = String(repeating: "x", count: size)
    let request = Array("*3\r\n$7\r\nPUBLISH\r\n$5\r\nbench\r\n$\(size)\r\n\(payload)\r\n".utf8)
    // What each subscriber reads per message: *3 $7 message $5 bench $B payload: seven lines.
    let linesPerMessage = 7
    var latencies: [Double] = []
    latencies.reserveCapacity(subscriberCount * samples)
    for _ in 0..<samples {
        var remaining = [Int](repeating: linesPerMessage, count: subscriberCount)
        var waiting = subscriberCount
        var answered = false
        let sentAt = monotonicNanoseconds()
        publisher.send(request)
        while waiting > 0 || !answered {
            let ready = poll(&pollSet, nfds_t(pollSet.count), 10_000)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { fail("a message did not arrive within 10 s") }
            let now = monotonicNanoseconds()
            for index in pollSet.indices where pollSet[index].revents != 0 {
                let lines = index == publisherIndex ? publisher.drainNewlines() : subscribers[index].drainNewlines()
                if lines < 0 { fail("connection \(index) closed") }
                if index == publisherIndex {
                    answered = answered || lines > 0
                } else if lines > 0, remaining[index] > 0 {
                    remaining[index] -= lines
                    if remaining[index] <= 0 {
                        waiting -= 1
                        latencies.append(Double(now - sentAt) / 1e3)
                    }
                }
            }
        }
    }
    latencies.sort()
    printJSON([
        ("subscribers", Double(subscriberCount)), ("bytes", Double(size)), ("latency_samples", Double(latencies.count)),
        ("latency_p50_us", percentile(latencies, 0.5).rounded()),
        ("latency_p99_us", percentile(latencies, 0.99).rounded()),
    ])
}
