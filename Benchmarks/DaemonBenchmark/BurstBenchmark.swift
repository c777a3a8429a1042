import Glibc

// `burst`: N timers due at one wall-clock instant (`timer.start` with `at`), loaded before it;
// from that instant on, one connection pings timerd in a loop and another asks `daemon.stats`
// every 5 ms until `firedTimers` has grown by N. Prints how long after the instant the last of
// them was seen fired, and the ping round trips before the instant (idle) and during the burst.
// timerd fires due timers in slices of 1,000 with requests served between them; the reference
// for the firing time is the engine's own (EngineBenchmark --burst N), measured in the same run.

/// `CLOCK_REALTIME` in seconds: the clock `at` instants are on.
func realtimeSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// `YYYY-MM-DDTHH:MM:SSZ` of whole seconds since the epoch.
func iso8601UTC(_ seconds: Int) -> String {
    var time = time_t(seconds)
    var fields = tm()
    gmtime_r(&time, &fields)
    let year = Int(fields.tm_year) + 1_900
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(year)-\(two(fields.tm_mon + 1))-\(two(fields.tm_mday))T\(two(fields.tm_hour)):"
        + "\(two(fields.tm_min)):\(two(fields.tm_sec))Z"
}

/// `firedTimers` of a `daemon.stats` reply (every user's for root), or nil when absent.
func firedTimers(_ client: LineClient) -> Int? {
    client.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.stats"}"#.utf8) + [10])
    let reply = client.receiveLines(1)
    let key = Array(#""firedTimers":"#.utf8)
    guard reply.count > key.count else { return nil }
    for start in 0...(reply.count - key.count) where reply[start..<(start + key.count)].elementsEqual(key) {
        var value = 0
        var index = start + key.count
        while index < reply.count, reply[index] >= 48, reply[index] <= 57 {
            value = value * 10 + Int(reply[index] - 48)
            index += 1
        }
        return value
    }
    return nil
}

func burstCommand(_ options: Options) {
    let count = options.int("--count", 100_000)
    let due = Int(realtimeSeconds()) + options.int("--lead", 10)
    let loaded = loadTimers(options, count: count, seconds: 0, at: iso8601UTC(due))
    guard realtimeSeconds() < Double(due) - 0.3 else {
        fail("the load (\(Int(loaded.rate)) starts/s) ended after the due instant; raise --lead")
    }
    guard let pinger = LineClient(path: options.socket), let poller = LineClient(path: options.socket) else {
        fail("cannot connect to \(options.socket)")
    }
    guard let before = firedTimers(poller) else { fail("daemon.stats has no firedTimers (connect as root)") }
    let ping = Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.ping"}"#.utf8) + [10]
    func roundTrip() -> Double {
        let start = monotonicNanoseconds()
        pinger.send(ping)
        pinger.receiveLines(1)
        return Double(monotonicNanoseconds() - start) / 1e6
    }
    var idle: [Double] = []
    while realtimeSeconds() < Double(due) - 0.05 { idle.append(roundTrip()) }
    while realtimeSeconds() < Double(due) {}
    var during: [Double] = []
    var nextPoll = monotonicNanoseconds()
    var allFiredAt: Double?
    while allFiredAt == nil {
        during.append(roundTrip())
        guard monotonicNanoseconds() >= nextPoll else { continue }
        nextPoll = monotonicNanoseconds() + 5_000_000
        let fired = firedTimers(poller) ?? before
        if fired - before >= count {
            allFiredAt = realtimeSeconds()
        } else if realtimeSeconds() > Double(due) + 300 {
            fail("\(fired - before) of \(count) fired 300 s after the due instant")
        }
    }
    idle.sort()
    during.sort()
    printJSON([
        ("burst_count", Double(count)), ("load_starts_per_s", loaded.rate.rounded()),
        ("burst_fire_seconds", (allFiredAt ?? 0) - Double(due)), ("idle_ping_p99_ms", percentile(idle, 0.99)),
        ("burst_ping_p50_ms", percentile(during, 0.5)), ("burst_ping_p99_ms", percentile(during, 0.99)),
        ("burst_ping_max_ms", during.last ?? 0), ("burst_pings", Double(during.count)),
    ])
}
