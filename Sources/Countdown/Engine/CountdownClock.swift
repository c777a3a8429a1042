#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The two clocks a countdown needs, injected so that tests drive time by hand and never sleep.
///
/// `now()` measures durations: it must be the boot-time clock (`CLOCK_BOOTTIME`, what Swift's
/// `ContinuousClock` reads on Linux), never the wall clock, which can be stepped. `wallNow()` only
/// stamps the created/started/ended times shown to people (ISO 8601 in output).
public protocol CountdownClock: Sendable {
    /// The current instant on the boot-time clock.
    func now() -> BootInstant
    /// The current wall-clock time (`CLOCK_REALTIME`), used only for timestamps shown to people.
    func wallNow() -> Date
    /// Nanoseconds the machine has spent suspended since boot (`CLOCK_BOOTTIME` minus
    /// `CLOCK_MONOTONIC`), or `nil` when the clock cannot tell. The engine compares two readings to
    /// learn that a timer's end passed during a suspend, which makes it `missed` (docs/time.md).
    func suspendedNanoseconds() -> Int64?
}

extension CountdownClock {
    /// `nil`: a clock that cannot tell suspend apart (a timer is then `missed` only when its end
    /// passed while no engine ran).
    public func suspendedNanoseconds() -> Int64? { nil }
}

/// The machine's clocks: `CLOCK_BOOTTIME` for counting and `CLOCK_REALTIME` for timestamps.
///
/// See man clock_gettime(2): `CLOCK_BOOTTIME` is `CLOCK_MONOTONIC` plus the time the system was
/// suspended. Swift's `ContinuousClock` is the same clock on Linux.
public struct SystemClock: CountdownClock {
    /// Creates the system clock.
    public init() {}

    /// Reads `CLOCK_BOOTTIME`.
    public func now() -> BootInstant {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return BootInstant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    /// Reads `CLOCK_BOOTTIME` minus `CLOCK_MONOTONIC` (the latter stops during suspend), read
    /// back to back; jitter between the two readings is below a microsecond.
    public func suspendedNanoseconds() -> Int64? {
        var boot = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        clock_gettime(CLOCK_BOOTTIME, &boot)
        let bootNanoseconds = Int64(boot.tv_sec) * 1_000_000_000 + Int64(boot.tv_nsec)
        let monotonicNanoseconds = Int64(monotonic.tv_sec) * 1_000_000_000 + Int64(monotonic.tv_nsec)
        return max(0, bootNanoseconds - monotonicNanoseconds)
    }

    /// Reads `CLOCK_REALTIME`.
    public func wallNow() -> Date {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Date(timeIntervalSince1970: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9)
    }
}
