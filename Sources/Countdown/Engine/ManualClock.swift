import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A clock that moves only when told to: for tests and simulations of a ``TimerEngine``.
///
/// Both readings start where the initialiser puts them. ``advance(byNanoseconds:)`` moves the
/// boot-time clock and the wall clock together, as real time passing does; ``suspend(forNanoseconds:)``
/// does the same (the boot-time clock counts suspend); ``stepWallClock(bySeconds:)`` moves only
/// the wall clock, as `settimeofday` or an NTP step does.
public final class ManualClock: CountdownClock {
    private struct Readings {
        var boot: BootInstant
        var wall: Date
        var suspended: Int64 = 0
    }

    private let readings: Mutex<Readings>

    /// Creates a clock at the given readings.
    ///
    /// - Parameters:
    ///   - boot: the initial boot-time reading.
    ///   - wall: the initial wall-clock reading.
    public init(boot: BootInstant = BootInstant(nanoseconds: 1_000_000_000), wall: Date) {
        readings = Mutex(Readings(boot: boot, wall: wall))
    }

    /// The current boot-time reading.
    public func now() -> BootInstant {
        readings.withLock { $0.boot }
    }

    /// The current wall-clock reading.
    public func wallNow() -> Date {
        readings.withLock { $0.wall }
    }

    /// Lets `nanoseconds` of real time pass: both clocks move forward.
    ///
    /// - Parameter nanoseconds: how far to move, in nanoseconds (≥ 0).
    public func advance(byNanoseconds nanoseconds: Int64) {
        readings.withLock {
            $0.boot = $0.boot.advanced(byNanoseconds: nanoseconds)
            $0.wall = $0.wall.addingTimeInterval(Double(nanoseconds) / 1e9)
        }
    }

    /// Lets `seconds` of real time pass: both clocks move forward.
    ///
    /// - Parameter seconds: how far to move, in seconds.
    public func advance(bySeconds seconds: Double) {
        advance(byNanoseconds: Int64((seconds * 1e9).rounded()))
    }

    /// Simulates a suspend of `nanoseconds`: the boot-time clock counts it, as `CLOCK_BOOTTIME` does.
    ///
    /// - Parameter nanoseconds: the length of the suspend, in nanoseconds.
    public func suspend(forNanoseconds nanoseconds: Int64) {
        advance(byNanoseconds: nanoseconds)
        readings.withLock { $0.suspended += max(0, nanoseconds) }
    }

    /// Nanoseconds spent in ``suspend(forNanoseconds:)`` since the clock was made.
    public func suspendedNanoseconds() -> Int64? {
        readings.withLock { $0.suspended }
    }

    /// Steps the wall clock alone, as `settimeofday(2)` or an NTP step does; the boot-time clock stays.
    ///
    /// - Parameter seconds: the step in seconds; negative sets the clock back.
    public func stepWallClock(bySeconds seconds: Double) {
        readings.withLock { $0.wall = $0.wall.addingTimeInterval(seconds) }
    }
}
