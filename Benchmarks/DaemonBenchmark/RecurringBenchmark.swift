import Glibc

// Recurring timers: daemon lateness with many recurring timers. `count` timers on
// `*:*:S/10 UTC` with S = 0.000 … 9.999 (the i-th timer at S = (i mod 10,000) ms): every timer
// elapses every 10 s, and the daemon has one elapse due every millisecond (count / 10,000 timers
// per instant). After `--window` seconds, daemon.stats gives the lateness of the most recent
// firings (each is an elapse: the engine re-arms the timer for its next elapse).

/// The `timer.start` request of the i-th recurring timer.
func recurringRequest(id: Int, index: Int) -> [UInt8] {
    let millis = index % 10_000
    let second = "\(millis / 1_000).\(String(millis % 1_000 + 1_000).dropFirst())"
    return Array(
        #"{"jsonrpc":"2.0","id":\#(id),"method":"timer.start","params":{"on":"*:*:\#(second)/10","timeZone":"UTC"}}"#
            .utf8) + [10]
}

/// `DaemonBenchmark recurring --socket PATH --count N --window S`: loads N recurring timers (root:
/// no per-user quota), waits S seconds of elapses, prints daemon.stats.
func recurring(_ options: Options) {
    let count = options.int("--count", 100_000)
    let window = options.double("--window", 12)
    guard let client = LineClient(path: options.socket) else { fail("cannot connect to \(options.socket)") }
    let start = monotonicNanoseconds()
    var sent = 0
    var received = 0
    while received < count {
        var batch: [UInt8] = []
        while sent < count && sent - received < 256 {
            batch += recurringRequest(id: sent + 1, index: sent)
            sent += 1
        }
        if !batch.isEmpty { client.send(batch) }
        let reply = client.receiveLines(1)
        if reply.count < 20 || reply.starts(with: Array(#"{"error""#.utf8)) {
            fail("timer.start failed: \(String(decoding: reply, as: UTF8.self))")
        }
        received += 1
    }
    let loaded = Double(monotonicNanoseconds() - start) / 1e9
    let line = Array("DaemonBenchmark: \(count) recurring timers started in \(loaded) s\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    let until = bootNanoseconds() + Int64(window * 1e9)
    var delay = timespec(tv_sec: Int(until / 1_000_000_000), tv_nsec: Int(until % 1_000_000_000))
    while clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &delay, nil) == EINTR {}
    client.send(Array(#"{"jsonrpc":"2.0","id":0,"method":"daemon.stats"}"#.utf8) + [10])
    print(String(decoding: client.receiveLines(1), as: UTF8.self))
}
