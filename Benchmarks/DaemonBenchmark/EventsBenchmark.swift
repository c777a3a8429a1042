// `DaemonBenchmark events`: server-pushed events (timer.subscribe) delivered to many subscribers.
import Glibc

/// Raises this process's descriptor limit to its hard limit (1,000 subscribers need as many sockets).
func raiseDescriptorLimit() {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
}

/// `events --socket PATH [--subscribers N] [--count E] [--latency K]`:
///
/// N connections each subscribe to every event; one more connection pipelines E `timer.start`s
/// (256 in flight), each making one `started` event, while the same poll loop reads every
/// subscriber. Prints the notifications delivered per second over all subscribers (first request
/// sent to last notification read) and how many were lost to gaps (a subscriber that fell more
/// than 1 MiB behind). Then, with K > 0, K pause/resume changes one at a time: the latency from
/// sending the change to each subscriber reading its notification (N × K samples, p50 and p99).
func eventsBenchmark(_ options: Options) {
    let subscriberCount = options.int("--subscribers", 1)
    let count = options.int("--count", 10_000)
    let samples = options.int("--latency", 0)
    raiseDescriptorLimit()
    let subscribe = Array(#"{"jsonrpc":"2.0","id":1,"method":"timer.subscribe"}"#.utf8) + [10]
    var subscribers: [LineClient] = []
    for index in 0..<subscriberCount {
        guard let client = LineClient(path: options.socket) else { fail("cannot connect subscriber \(index)") }
        client.send(subscribe)
        let reply = client.receiveLines(1)
        if !reply.starts(with: Array(#"{"id":1,"jsonrpc":"2.0","result""#.utf8)) {
            fail("timer.subscribe failed: \(String(decoding: reply, as: UTF8.self))")
        }
        subscribers.append(client)
    }
    guard let producer = LineClient(path: options.socket) else { fail("cannot connect the producer") }
    for client in subscribers + [producer] { _ = fcntl(client.fd, F_SETFL, fcntl(client.fd, F_GETFL) | O_NONBLOCK) }
    var pollSet = (subscribers + [producer]).map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    let producerIndex = subscribers.count

    // Throughput.
    var sent = 0
    var replied = 0
    var delivered = 0
    var lastDelivery = monotonicNanoseconds()
    let start = lastDelivery
    let expected = count * subscriberCount
    while delivered < expected {
        if sent < count && sent - replied < 256 {
            var batch: [UInt8] = []
            while sent < count && sent - replied < 256 {
                batch += startRequest(id: sent + 1, seconds: 86_400)
                sent += 1
            }
            producer.send(batch)
        }
        let ready = poll(&pollSet, nfds_t(pollSet.count), 2_000)
        if ready < 0 && errno == EINTR { continue }
        if ready == 0 {
            if replied == count { break }  // every request answered and 2 s without a notification
            fail("no progress within 2 s")
        }
        for index in pollSet.indices where pollSet[index].revents != 0 {
            let lines = index == producerIndex ? producer.drainNewlines() : subscribers[index].drainNewlines()
            if lines < 0 { fail("connection \(index) closed") }
            if index == producerIndex {
                replied += lines
            } else if lines > 0 {
                delivered += lines
                lastDelivery = monotonicNanoseconds()
            }
        }
    }
    let seconds = Double(lastDelivery - start) / 1e9
    var fields: [(String, Double)] = [
        ("subscribers", Double(subscriberCount)), ("count", Double(count)),
        ("events_delivered_per_s", (Double(delivered) / seconds).rounded()),
        ("events_lost", Double(max(0, expected - delivered))),
    ]

    // Latency, one change at a time: timer 1 paused, resumed, paused …
    var latencies: [Double] = []
    for sample in 0..<samples {
        let method = sample % 2 == 0 ? "timer.pause" : "timer.resume"
        let request = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":{"timer":1}}"#
        var waiting = Set(0..<subscriberCount)
        var answered = false
        let sentAt = monotonicNanoseconds()
        producer.send(Array(request.utf8) + [10])
        while !waiting.isEmpty || !answered {
            let ready = poll(&pollSet, nfds_t(pollSet.count), 10_000)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { fail("a notification did not arrive within 10 s") }
            let now = monotonicNanoseconds()
            for index in pollSet.indices where pollSet[index].revents != 0 {
                let lines = index == producerIndex ? producer.drainNewlines() : subscribers[index].drainNewlines()
                if lines < 0 { fail("connection \(index) closed") }
                if index == producerIndex {
                    answered = answered || lines > 0
                } else if lines > 0, waiting.remove(index) != nil {
                    latencies.append(Double(now - sentAt) / 1e3)
                }
            }
        }
    }
    if !latencies.isEmpty {
        latencies.sort()
        fields += [
            ("latency_samples", Double(latencies.count)),
            ("latency_p50_us", percentile(latencies, 0.5).rounded()),
            ("latency_p99_us", percentile(latencies, 0.99).rounded()),
        ]
    }
    printJSON(fields)
}
