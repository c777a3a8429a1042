import TimerModel

/// An instant on the boot-time clock: nanoseconds since the machine booted, suspend included.
///
/// On Linux this is `CLOCK_BOOTTIME` (man clock_gettime(2)), the clock Swift's `ContinuousClock` reads:
/// it never jumps when the wall clock is set and keeps counting while the machine is suspended, so a
/// 25-minute countdown with 10 minutes of suspend in between ends 25 minutes after it started. It is
/// a plain integer so that it can be stored, compared across a daemon restart on the same boot, and
/// handed to a `timerfd` unchanged.
public struct BootInstant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Nanoseconds since boot (0 ... `Int64.max`, about 292 years).
    public var nanoseconds: Int64

    /// Creates an instant `nanoseconds` after boot.
    ///
    /// - Parameter nanoseconds: nanoseconds since boot on `CLOCK_BOOTTIME`.
    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    /// The instant `nanoseconds` later, saturating at `Int64.max` instead of overflowing.
    ///
    /// - Parameter nanoseconds: the offset in nanoseconds; negative goes back in time.
    /// - Returns: the shifted instant.
    public func advanced(byNanoseconds nanoseconds: Int64) -> BootInstant {
        let (sum, overflow) = self.nanoseconds.addingReportingOverflow(nanoseconds)
        if overflow { return BootInstant(nanoseconds: nanoseconds > 0 ? .max : .min) }
        return BootInstant(nanoseconds: sum)
    }

    /// Nanoseconds from `other` to `self` (negative when `other` is later), saturating.
    ///
    /// - Parameter other: the earlier instant.
    /// - Returns: `self - other` in nanoseconds.
    public func nanoseconds(since other: BootInstant) -> Int64 {
        let (difference, overflow) = nanoseconds.subtractingReportingOverflow(other.nanoseconds)
        if overflow { return other.nanoseconds > nanoseconds ? .min : .max }
        return difference
    }

    /// Orders instants by their position on the clock.
    public static func < (lhs: BootInstant, rhs: BootInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The instant in seconds since boot, for logs (`12.500000000s`).
    public var description: String {
        "\(nanoseconds / 1_000_000_000).\(String(nanoseconds % 1_000_000_000).leftPadded(to: 9))s"
    }
}
