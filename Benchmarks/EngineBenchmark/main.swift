// Measures the Countdown engine in-process: N timers with random deadlines started, then cancelled
// in random order, on the real boot-time clock; and the bare DeadlineQueue underneath.
//
// Usage: EngineBenchmark [--count N] [--repeat R]
// Prints one JSON object: the medians over R rounds of inserts/s and cancels/s for the engine and
// the queue, and the engine's resident-memory growth per timer.
import Countdown
import Foundation

var count = 1_000_000
var rounds = 3
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--count": count = Int(arguments.popFirst() ?? "") ?? count
    case "--repeat": rounds = Int(arguments.popFirst() ?? "") ?? rounds
    default:
        FileHandle.standardError.write(Data("usage: EngineBenchmark [--count N] [--repeat R]\n".utf8))
        exit(64)
    }
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

var engineInserts: [Double] = []
var engineCancels: [Double] = []
var queueInserts: [Double] = []
var queueCancels: [Double] = []
var bytesPerTimer: [Double] = []
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
]
let encoder = JSONEncoder()
encoder.outputFormatting = [.sortedKeys]
print(String(decoding: try encoder.encode(result), as: UTF8.self))
