// Measures the Countdown engine in-process: N timers with random deadlines started, then cancelled
// in random order, on the real boot-time clock; and the bare DeadlineQueue underneath.
//
// Usage: EngineBenchmark [--count N] [--repeat R]
//        EngineBenchmark --burst N [--repeat R]
// With --burst: N timers due at one wall-clock instant (`start(at:)`, as `timerctl start --at`),
// fired in slices of 1,000 with their events and journal changes taken after each slice, as timerd's
// loop does; prints the median seconds of that firing, the reference of the daemon's burst figure.
// Prints one JSON object: the medians over R rounds of inserts/s and cancels/s for the engine and
// the queue, the engine's resident-memory growth per timer, and the cost of single operations by
// another user while the N timers are live (ns per start, status, stop, and list of 10 timers):
// the scaling table compares them across N.
import Countdown
import Foundation

var count = 1_000_000
var rounds = 3
var burst: Int?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--count": count = Int(arguments.popFirst() ?? "") ?? count
    case "--repeat": rounds = Int(arguments.popFirst() ?? "") ?? rounds
    case "--burst": burst = Int(arguments.popFirst() ?? "")
    default:
        FileHandle.standardError.write(
            Data("usage: EngineBenchmark [--count N] [--repeat R] | --burst N [--repeat R]\n".utf8))
        exit(64)
    }
}

/// Seconds to fire `count` timers due at one wall-clock instant, in slices of 1,000 (timerd's
/// `TimerService.maximumFiringsPerCall`), taking the events and the journal's changes after each.
func burstSeconds(count: Int) -> Double {
    let wall = Date(timeIntervalSince1970: 1_800_000_000)
    let clock = ManualClock(wall: wall)
    // As deployed: the default history of 1,000 ended timers per user, 10,000 timers per user.
    var engine = TimerEngine(clock: clock)
    engine.eventRecording = .buffered
    let due = wall.addingTimeInterval(60)
    for index in 0..<count {
        guard (try? engine.start(at: due, owner: UInt32(1_000 + index / 10_000))) != nil else {
            FileHandle.standardError.write(Data("EngineBenchmark: start(at:) failed\n".utf8))
            exit(1)
        }
    }
    _ = engine.takeEvents()
    _ = engine.takeChanges()
    clock.advance(bySeconds: 60.001)
    var fired = 0
    var events = 0
    var changed = 0
    let elapsed = seconds {
        while engine.hasDueTimers {
            fired += engine.fireDueTimers(limit: 1_000).count
            events += engine.takeEvents().count
            let changes = engine.takeChanges()
            changed += changes.updated.count + changes.removed.count
        }
    }
    // One `finished` event per timer, and a journal change for each (its record, or its removal
    // when the history limit dropped it in the same slice).
    guard fired == count, events == count, changed >= count else {
        FileHandle.standardError.write(
            Data("EngineBenchmark: fired \(fired), events \(events), changes \(changed) of \(count)\n".utf8))
        exit(1)
    }
    return elapsed
}

/// Resident set size of this process in kB (VmRSS in /proc/self/status).
func residentKilobytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
    return 0
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

// A fixed seed (xorshift) so every run uses the same deadlines.
struct XorShift {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
var generator = XorShift()
let durations = (0..<count).map { _ in 60 + Double(generator.next() % 86_400_000) / 1_000 }  // 1 min … 1 day
var order = Array(1...UInt64(count))
for index in order.indices.reversed() where index > 0 {
    order.swapAt(index, Int(generator.next() % UInt64(index + 1)))
}

if let burst {
    let samples = (0..<max(1, rounds)).map { _ in burstSeconds(count: burst) }
    print(#"{"burst_count":\#(burst),"burst_fire_seconds":\#(median(samples))}"#)
    exit(0)
}

var engineInserts: [Double] = []
var engineCancels: [Double] = []
var queueInserts: [Double] = []
var queueCancels: [Double] = []
var bytesPerTimer: [Double] = []
var operationNanoseconds: [String: [Double]] = [:]
let operations = 2_000

/// Nanoseconds per call of `body` over `operations` calls.
func perOperation(_ body: (Int) -> Void) -> Double {
    seconds { for index in 0..<operations { body(index) } } * 1e9 / Double(operations)
}
for _ in 0..<rounds {
    let before = residentKilobytes()
    var engine = TimerEngine(clock: SystemClock(), historyLimit: 1_000)
    var sink = 0
    engineInserts.append(
        Double(count)
            / seconds {
                for duration in durations {
                    if let info = try? engine.start(durations: [duration]) { sink &+= Int(truncatingIfNeeded: info.id) }
                }
            })
    bytesPerTimer.append(Double(residentKilobytes() - before) * 1_024 / Double(count))
    // Another user's operations among the N live timers: its 10 listed timers, then starts under
    // the default quota, a status of each, a stop of each.
    var listed: [UInt64] = []
    for _ in 0..<10 { if let info = try? engine.start(durations: [86_400], owner: 3_000) { listed.append(info.id) } }
    var ids = [UInt64](repeating: 0, count: operations)
    operationNanoseconds["start", default: []].append(
        perOperation { index in
            if let info = try? engine.start(
                durations: [durations[index % durations.count]], owner: 2_000, quota: 10_000)
            {
                ids[index] = info.id
            }
        })
    operationNanoseconds["status", default: []].append(
        perOperation { index in
            if let info = try? engine.status(.id(ids[index]), requester: 2_000) { sink &+= Int(info.id) }
        })
    operationNanoseconds["list", default: []].append(
        perOperation { _ in sink &+= engine.list(requester: 3_000).count })
    operationNanoseconds["stop", default: []].append(
        perOperation { index in
            if let ending = try? engine.stop(.id(ids[index]), requester: 2_000) { sink &+= Int(ending.timer.id) }
        })
    for id in listed { _ = try? engine.stop(.id(id)) }
    engineCancels.append(
        Double(count)
            / seconds {
                for id in order {
                    if let ending = try? engine.stop(.id(id)) { sink &+= Int(truncatingIfNeeded: ending.timer.id) }
                }
            })
    precondition(engine.liveCount == 0, "every timer was cancelled")

    var queue = DeadlineQueue()
    let base = SystemClock().now()
    queueInserts.append(
        Double(count)
            / seconds {
                for (index, duration) in durations.enumerated() {
                    queue.schedule(UInt64(index + 1), at: base.advanced(byNanoseconds: Int64(duration * 1e9)))
                }
            })
    queueCancels.append(
        Double(count)
            / seconds {
                for id in order { queue.remove(id) }
            })
    if sink == 42 { print("") }
}

let result: [String: Double] = [
    "count": Double(count),
    "engine_inserts_per_s": median(engineInserts).rounded(),
    "engine_cancels_per_s": median(engineCancels).rounded(),
    "queue_inserts_per_s": median(queueInserts).rounded(),
    "queue_cancels_per_s": median(queueCancels).rounded(),
    "engine_bytes_per_timer": median(bytesPerTimer).rounded(),
    "op_start_ns": median(operationNanoseconds["start"] ?? [0]).rounded(),
    "op_status_ns": median(operationNanoseconds["status"] ?? [0]).rounded(),
    "op_stop_ns": median(operationNanoseconds["stop"] ?? [0]).rounded(),
    "op_list10_ns": median(operationNanoseconds["list"] ?? [0]).rounded(),
]
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
print(String(decoding: try encoder.encode(result), as: UTF8.self))
