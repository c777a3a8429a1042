import CLinux
import Glibc

/// An `epoll(7)` instance: registers descriptors with a 64-bit token and waits for readiness.
public final class Epoll {
    /// The epoll descriptor.
    public let fd: Int32
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
        fd = try Syscall.retrying("epoll_create1", { epoll_create1(Int32(EPOLL_CLOEXEC)) })
        events = [epoll_event](repeating: epoll_event(), count: capacity)
    }

    deinit { Syscall.close(fd) }

    /// Watches `descriptor` for `interest`, reporting `token`.
    ///
    /// - Throws: ``SystemError`` from `epoll_ctl`.
    public func add(_ descriptor: Int32, interest: Events, token: UInt64) throws {
        try control(EPOLL_CTL_ADD, descriptor, interest, token)
    }

    /// Changes what `descriptor` is watched for.
    ///
    /// - Throws: ``SystemError`` from `epoll_ctl`.
    public func modify(_ descriptor: Int32, interest: Events, token: UInt64) throws {
        try control(EPOLL_CTL_MOD, descriptor, interest, token)
    }

    /// Stops watching `descriptor` (errors are ignored: closing it does the same).
    public func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, descriptor, &event)
    }

    /// Waits for readiness.
    ///
    /// - Parameter timeoutMilliseconds: how long to wait; -1 for ever.
    /// - Returns: the tokens and events that are ready (empty on time-out or `EINTR`).
    /// - Throws: ``SystemError`` from `epoll_wait` for anything but `EINTR`.
    public func wait(timeoutMilliseconds: Int32) throws -> [(token: UInt64, events: Events)] {
        let count = epoll_wait(fd, &events, Int32(events.count), timeoutMilliseconds)
        if count < 0 {
            if errno == EINTR { return [] }
            throw SystemError("epoll_wait", errno: errno)
        }
        return (0..<Int(count)).map { (events[$0].data.u64, Events(rawValue: events[$0].events)) }
    }

    private func control(_ operation: Int32, _ descriptor: Int32, _ interest: Events, _ token: UInt64) throws {
        var event = epoll_event()
        event.events = interest.rawValue
        event.data.u64 = token
        try Syscall.retrying("epoll_ctl", { epoll_ctl(fd, operation, descriptor, &event) })
    }
}

/// A `timerfd` (man timerfd_create(2)) on `CLOCK_BOOTTIME`, armed at absolute deadlines: the one OS
/// timer the daemon arms for its earliest deadline. The boot-time clock counts suspend, unlike
/// `CLOCK_MONOTONIC`, which `DispatchTime` uses.
public final class BootTimer {
    /// The timer descriptor (non-blocking, close-on-exec).
    public let fd: Int32

    /// Creates a disarmed timer.
    ///
    /// - Throws: ``SystemError`` from `timerfd_create`.
    public init() throws {
        fd = try Syscall.retrying(
            "timerfd_create",
            {
                timerfd_create(CLOCK_BOOTTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
            })
    }

    deinit { Syscall.close(fd) }

    /// Arms the timer to expire at `nanoseconds` on `CLOCK_BOOTTIME` (absolute), or disarms it for `nil`.
    ///
    /// A deadline already past expires at once.
    /// - Throws: ``SystemError`` from `timerfd_settime`.
    public func arm(atNanoseconds nanoseconds: Int64?) throws {
        var spec = itimerspec()
        if let nanoseconds {
            let clamped = max(1, nanoseconds)
            spec.it_value = timespec(tv_sec: Int(clamped / 1_000_000_000), tv_nsec: Int(clamped % 1_000_000_000))
        }
        try Syscall.retrying("timerfd_settime", { timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil) })
    }

    /// Reads and discards the expiry count, so the descriptor stops being readable.
    public func drain() {
        var count: UInt64 = 0
        _ = Glibc.read(fd, &count, 8)
    }
}
