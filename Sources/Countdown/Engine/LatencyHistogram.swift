/// Cumulative counts of durations in fixed buckets, with their sum and count: the shape of a
/// Prometheus histogram (`_bucket{le=…}`, `_sum`, `_count`; the Prometheus exposition format,
/// version 0.0.4).
///
/// Memory is fixed (one counter per bucket), and recording is a short scan of the bounds with no
/// allocation, so the daemon can record every request and every firing. Counts only grow: a
/// scraper computes rates from successive readings.
public struct LatencyHistogram: Sendable, Hashable {
    /// The buckets' upper bounds in seconds, ascending; the `+Inf` bucket is implied (``count``).
    public let upperBounds: [Double]
    /// How many recorded durations are at most each bound (non-cumulative here: one per bucket;
    /// ``cumulativeCounts`` adds them up as Prometheus reports them).
    private var bucketCounts: [Int]
    /// Every duration recorded, in seconds, summed.
    public private(set) var sum: Double = 0
    /// How many durations were recorded (the `+Inf` bucket).
    public private(set) var count = 0

    /// Bounds for the lateness of a timer's firing, from 100 µs to 10 s (timerd's loop fires
    /// within about 0.1–0.3 ms; seconds mean a stalled loop).
    public static let latencyBounds: [Double] = [
        0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    /// Bounds for requests and commits, from 10 µs to 2.5 s (a ping takes tens of microseconds,
    /// an `fsync` milliseconds).
    public static let requestBounds: [Double] = [
        0.000_01, 0.000_025, 0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05,
        0.1, 0.25, 0.5, 1, 2.5,
    ]

    /// Creates an empty histogram.
    ///
    /// - Parameter upperBounds: the buckets' upper bounds in seconds; sorted and made unique
    ///   here, non-finite bounds dropped (the `+Inf` bucket is always there).
    public init(upperBounds: [Double]) {
        self.upperBounds = Array(Set(upperBounds.filter(\.isFinite))).sorted()
        bucketCounts = Array(repeating: 0, count: self.upperBounds.count)
    }

    /// Records one duration; a negative or NaN duration counts as 0.
    ///
    /// - Parameter seconds: the duration in seconds.
    /// - Complexity: O(b) for b bounds (16 or 17 here), no allocation.
    public mutating func record(seconds: Double) {
        let value = seconds > 0 ? seconds : 0
        count += 1
        sum += value
        for index in upperBounds.indices where value <= upperBounds[index] {
            bucketCounts[index] += 1
            return
        }
    }

    /// Records one duration given in nanoseconds (negative values count as 0).
    ///
    /// - Parameter nanoseconds: the duration in nanoseconds.
    /// - Complexity: O(b) for b bounds.
    public mutating func record(nanoseconds: Int64) {
        record(seconds: Double(nanoseconds) / 1e9)
    }

    /// For each bound in ``upperBounds``, how many recorded durations are at most that bound.
    ///
    /// - Complexity: O(b) for b bounds.
    public var cumulativeCounts: [Int] {
        var total = 0
        return bucketCounts.map { count in
            total += count
            return total
        }
    }
}
