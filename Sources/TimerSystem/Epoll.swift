import CLinux
import Glibc

/// An `epoll(7)` instance: registers descriptors with a 64-bit token and waits for readiness.
public final class Epoll {
    private let descriptor: FileDescriptor
    private var events: [epoll_event]

    /// Readiness bits, as in man epoll_ctl(2).
    public struct Events: OptionSet, Sendable {
        /// The raw `EPOLL*` bits.
        public let rawValue: UInt32
        /// Creates events from raw bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Readable (`EPOLLIN`).
        public static let readable = Events(rawValue: EPOLLIN.rawValue)
        /// Writable (`EPOLLOUT`).
        public static let writable = Events(rawValue: EPOLLOUT.rawValue)
        /// The peer closed its end or an error happened (`EPOLLHUP | EPOLLERR | EPOLLRDHUP`).
        public static let hangUp = Events(rawValue: EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue)
    }

    /// Creates an epoll instance (close-on-exec).
    ///
    /// - Parameter capacity: the most events one ``wait(timeoutMilliseconds:)`` returns.
    /// - Throws: ``SystemError`` from `epoll_create1`.
    public init(capacity: Int = 256) throws {
        descriptor = FileDescriptor(
            adopting: try Syscall.retrying("epoll_create1", { epoll_create1(Int32(EPOLL_CLOEXEC)) }))
        events = [epoll_event](repeating: epoll_event(), count: capacity)
    }

    /// Watches `watched` for `interest`, reporting `token`.
    ///
    /// - Parameters:
    ///   - watched: the descriptor; epoll forgets it when it is closed.
    ///   - interest: what to report.
    ///   - token: the value ``wait(timeoutMilliseconds:)`` reports for it.
    /// - Throws: ``SystemError`` from `epoll_ctl`.
    public func add(_ watched: borrowing FileDescriptor, interest: Events, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, watched.rawValue, interest, token)
    }

    /// Starts watching a descriptor by number, for one that sits in an optional (an owned
    /// descriptor that may be closed early, as ``ChildProcess/outputDescriptor`` is).
    ///
    /// - Parameters:
    ///   - rawDescriptor: an open descriptor that its owner keeps open while watched.
    ///   - interest: what to report.
    ///   - token: the value ``wait(timeoutMilliseconds:)`` reports for it.
    /// - Throws: ``SystemError`` from `epoll_ctl`.
    public func add(rawDescriptor: Int32, interest: Events, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_ADD, rawDescriptor, interest, token)
    }

    /// Changes what `watched` is watched for.
    ///
    /// - Parameters:
    ///   - watched: a descriptor added before.
    ///   - interest: what to report from now on.
    ///   - token: the value to report.
    /// - Throws: ``SystemError`` from `epoll_ctl`.
    public func modify(_ watched: borrowing FileDescriptor, interest: Events, token: UInt64) throws(SystemError) {
        try control(EPOLL_CTL_MOD, watched.rawValue, interest, token)
    }

    /// Stops watching `watched` (errors are ignored: closing it does the same).
    ///
    /// - Parameter watched: a descriptor added before.
    public func remove(_ watched: borrowing FileDescriptor) {
        var event = epoll_event()
        _ = epoll_ctl(descriptor.rawValue, EPOLL_CTL_DEL, watched.rawValue, &event)
    }

    /// Waits for readiness.
    ///
    /// - Parameter timeoutMilliseconds: how long to wait; -1 for ever.
    /// - Returns: the tokens and events that are ready (empty on time-out or `EINTR`).
    /// - Throws: ``SystemError`` from `epoll_wait` for anything but `EINTR`.
    public func wait(timeoutMilliseconds: Int32) throws(SystemError) -> [(token: UInt64, events: Events)] {
        var ready: [(token: UInt64, events: Events)] = []
        try wait(timeoutMilliseconds: timeoutMilliseconds, into: &ready)
        return ready
    }

    /// Waits for readiness, into an array the caller keeps from one wait to the next (its storage
    /// is reused, so a wait allocates nothing once it has grown; an event loop's turn).
    ///
    /// - Parameters:
    ///   - timeoutMilliseconds: how long to wait; -1 for ever.
    ///   - ready: replaced by the tokens and events that are ready (empty on time-out or `EINTR`),
    ///     at most `capacity` (``init(capacity:)``) of them.
    /// - Throws: ``SystemError`` from `epoll_wait` for anything but `EINTR`; `ready` is then empty.
    public func wait(timeoutMilliseconds: Int32, into ready: inout [(token: UInt64, events: Events)])
        throws(SystemError)
    {
        ready.removeAll(keepingCapacity: true)
        let count = epoll_wait(descriptor.rawValue, &events, Int32(events.count), timeoutMilliseconds)
        if count < 0 {
            let code = Errno.current
            if code == .interrupted { return }
            throw SystemError("epoll_wait", errno: code)
        }
        for index in 0..<Int(count) {
            ready.append((events[index].data.u64, Events(rawValue: events[index].events)))
        }
    }

    private func control(_ operation: Int32, _ watched: Int32, _ interest: Events, _ token: UInt64)
        throws(SystemError)
    {
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = token
        let fd = descriptor.rawValue
        try Syscall.retrying("epoll_ctl", { epoll_ctl(fd, operation, watched, &event) })
    }
}

/// A `timerfd` (man timerfd_create(2)) on `CLOCK_BOOTTIME`, armed at absolute deadlines: the one OS
/// timer the daemon arms for its earliest deadline. The boot-time clock counts suspend, unlike
/// `CLOCK_MONOTONIC`, which `DispatchTime` uses.
public final class BootTimer {
    /// The timer descriptor (non-blocking, close-on-exec); readable once the deadline passed.
    public let descriptor: FileDescriptor

    /// Creates a disarmed timer.
    ///
    /// - Throws: ``SystemError`` from `timerfd_create`.
    public init() throws(SystemError) {
        descriptor = FileDescriptor(
            adopting: try Syscall.retrying(
                "timerfd_create", { timerfd_create(CLOCK_BOOTTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC)) }))
    }

    /// Arms the timer to expire at `nanoseconds` on `CLOCK_BOOTTIME` (absolute), or disarms it for `nil`.
    ///
    /// A deadline already past expires at once.
    /// - Throws: ``SystemError`` from `timerfd_settime`.
    public func arm(atNanoseconds nanoseconds: Int64?) throws(SystemError) {
        var spec = itimerspec()
        if let nanoseconds {
            let clamped = max(1, nanoseconds)
            spec.it_value = timespec(tv_sec: Int(clamped / 1_000_000_000), tv_nsec: Int(clamped % 1_000_000_000))
        }
        let fd = descriptor.rawValue
        try Syscall.retrying("timerfd_settime", { timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil) })
    }

    /// Reads and discards the expiry count, so the descriptor stops being readable.
    public func drain() {
        var count: UInt64 = 0
        _ = try? withUnsafeMutableBytes(of: &count) { raw throws(SystemError) in try descriptor.read(into: raw) }
    }
}

/// A `timerfd` on an alarm clock (man timerfd_create(2)): `CLOCK_BOOTTIME_ALARM` or
/// `CLOCK_REALTIME_ALARM`, which count like `CLOCK_BOOTTIME` and `CLOCK_REALTIME` and, armed, also
/// program the real-time clock so that the machine resumes from suspend at the deadline (what
/// systemd's `WakeSystem=` uses). The kernel refuses to create one with `EPERM` unless the process
/// has `CAP_WAKE_ALARM` (man capabilities(7)). On a machine whose RTC cannot wake it the timer still
/// arms and expires, but nothing resumes the machine.
public final class AlarmTimer {
    /// Which alarm clock.
    public enum Clock: Sendable, Hashable {
        /// `CLOCK_BOOTTIME_ALARM` (9 in linux/time.h): deadlines in nanoseconds of the boot-time clock.
        case bootTime
        /// `CLOCK_REALTIME_ALARM` (8 in linux/time.h): deadlines in nanoseconds since 1970 on the wall clock.
        case wallClock

        /// The clock id as linux/time.h numbers it.
        public var clockID: Int32 { self == .bootTime ? Int32(CLOCK_BOOTTIME_ALARM) : Int32(CLOCK_REALTIME_ALARM) }
        /// The clock's name in man clock_gettime(2).
        public var name: String { self == .bootTime ? "CLOCK_BOOTTIME_ALARM" : "CLOCK_REALTIME_ALARM" }
    }

    /// The clock it counts on.
    public let clock: Clock
    /// The timer descriptor (non-blocking, close-on-exec); readable once the deadline passed.
    public let descriptor: FileDescriptor

    /// Creates a disarmed alarm timer.
    ///
    /// - Parameter clock: the alarm clock.
    /// - Throws: ``SystemError`` from `timerfd_create`: `EPERM` (``Errno/notPermitted``) without
    ///   `CAP_WAKE_ALARM`, `EINVAL` on a kernel without alarm timers.
    public init(_ clock: Clock) throws(SystemError) {
        self.clock = clock
        let id = clock.clockID
        descriptor = FileDescriptor(
            adopting: try Syscall.retrying(
                "timerfd_create(\(clock.name))", { timerfd_create(id, Int32(TFD_NONBLOCK | TFD_CLOEXEC)) }))
    }

    /// Arms the timer to expire at `nanoseconds` on its clock (absolute, `TFD_TIMER_ABSTIME`), or
    /// disarms it for `nil`. A deadline already past expires at once.
    ///
    /// - Parameter nanoseconds: the deadline: boot-time nanoseconds for ``Clock/bootTime``,
    ///   nanoseconds since 1970-01-01T00:00:00Z for ``Clock/wallClock``.
    /// - Throws: ``SystemError`` from `timerfd_settime`.
    public func arm(atNanoseconds nanoseconds: Int64?) throws(SystemError) {
        var spec = itimerspec()
        if let nanoseconds {
            let clamped = max(1, nanoseconds)
            spec.it_value = timespec(tv_sec: Int(clamped / 1_000_000_000), tv_nsec: Int(clamped % 1_000_000_000))
        }
        let fd = descriptor.rawValue
        try Syscall.retrying(
            "timerfd_settime(\(clock.name))", { timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil) })
    }

    /// Reads and discards the expiry count, so the descriptor stops being readable.
    public func drain() {
        var count: UInt64 = 0
        _ = try? withUnsafeMutableBytes(of: &count) { raw throws(SystemError) in try descriptor.read(into: raw) }
    }
}

/// Notices wall-clock steps: a `CLOCK_REALTIME` timerfd armed far in the future with
/// `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET` becomes readable, and its `read` fails with
/// `ECANCELED`, whenever the wall clock is set discontinuously (settimeofday, an NTP step) and on
/// resume from suspend (man timerfd_create(2); systemd watches the clock the same way).
public final class WallClockWatch {
    /// The timer descriptor (non-blocking, close-on-exec); readable after a step.
    public let descriptor: FileDescriptor

    /// Creates and arms the watch.
    ///
    /// - Throws: ``SystemError`` from `timerfd_create` or `timerfd_settime`.
    public init() throws(SystemError) {
        descriptor = FileDescriptor(
            adopting: try Syscall.retrying(
                "timerfd_create(CLOCK_REALTIME)", { timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC)) })
        )
        try arm()
    }

    /// Consumes the notification and re-arms.
    ///
    /// - Returns: whether the wall clock was stepped (`ECANCELED`), as opposed to a spurious wake-up.
    public func acknowledge() -> Bool {
        var count: UInt64 = 0
        var stepped = false
        do {
            _ = try withUnsafeMutableBytes(of: &count) { raw throws(SystemError) in try descriptor.read(into: raw) }
        } catch {
            stepped = error.errno == .canceled
        }
        try? arm()
        return stepped
    }

    private func arm() throws(SystemError) {
        var spec = itimerspec()
        // Far in the future (year 2262 in seconds since 1970); it should never expire, only be cancelled.
        spec.it_value = timespec(tv_sec: 9_200_000_000, tv_nsec: 0)
        let flags = Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET)
        let fd = descriptor.rawValue
        try Syscall.retrying("timerfd_settime(CLOCK_REALTIME)", { timerfd_settime(fd, flags, &spec, nil) })
    }
}
