/// A bounded ring of the most recent firing latenesses: how long after its deadline on the
/// boot-time clock each timer was actually finished by the owner's loop.
///
/// The engine records one sample per timer that ``TimerEngine/fireDueTimers(limit:)`` finishes; the
/// daemon reports percentiles through `daemon.stats`. Memory is fixed: ``capacity`` samples of
/// 8 bytes, the oldest overwritten first.
public struct LatenessRecorder: Sendable, Hashable {
    /// Lateness percentiles over the samples held, in microseconds.
    public struct Summary: Sendable, Hashable, Codable {
        /// How many samples the figures are over (at most ``LatenessRecorder/capacity``).
        public var count: Int
        /// The median lateness, microseconds.
        public var p50: Double
        /// The 99th percentile, microseconds.
        public var p99: Double
        /// The largest lateness held, microseconds.
        public var max: Double
    }

    /// The most samples kept.
    public let capacity: Int
    /// Every sample recorded since start-up, including those overwritten since.
    public private(set) var totalCount = 0
    private var samples: [Int64] = []
    private var next = 0
    /// Every sample recorded since start-up in cumulative buckets (``LatencyHistogram/latencyBounds``),
    /// for the daemon's Prometheus metrics: unlike the ring, it forgets nothing.
    public private(set) var histogram = LatencyHistogram(upperBounds: LatencyHistogram.latencyBounds)

    /// Creates an empty ring.
    ///
    /// - Parameter capacity: the most samples kept (default 16,384); at least 1.
    public init(capacity: Int = 16_384) {
        self.capacity = Swift.max(1, capacity)
    }

    /// Records one firing that came `nanoseconds` after its deadline (negative values count as 0).
    ///
    /// - Complexity: O(b) for the histogram's b bounds (16), no allocation.
    public mutating func record(nanoseconds: Int64) {
        let sample = Swift.max(0, nanoseconds)
        if samples.count < capacity {
            samples.append(sample)
        } else {
            samples[next] = sample
        }
        next = (next + 1) % capacity
        totalCount += 1
        histogram.record(nanoseconds: sample)
    }

    /// The percentiles of the samples held (nearest-rank), or `nil` when there are none.
    ///
    /// - Complexity: O(k log k) for the k samples held.
    public var summary: Summary? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func rank(_ fraction: Double) -> Double {
            let index = Swift.min(
                sorted.count - 1, Swift.max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
            return Double(sorted[index]) / 1_000
        }
        return Summary(
            count: sorted.count, p50: rank(0.5), p99: rank(0.99), max: Double(sorted[sorted.count - 1]) / 1_000)
    }
}
