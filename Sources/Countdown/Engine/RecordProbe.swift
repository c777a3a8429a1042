import Synchronization

/// Counts the records the engine reads or writes, for tests that prove an operation's cost by
/// counting instead of timing (a start by one user and the `STATUS=` line must not
/// visit another user's 100,000 timers).
///
/// Injected with ``TimerEngine/recordProbe``; without one (the default, and always in production)
/// the engine pays a single `nil` check per record access. Every subscript read or write of the
/// engine's record table counts one visit, and a scan over the table counts every slot it passes.
/// An atomic counter, so that an engine copied to another thread with the probe stays `Sendable`.
package final class RecordProbe: Sendable {
    private let visits = Atomic<Int>(0)

    /// A probe at zero.
    package init() {}

    /// The records visited since creation or the last ``reset()``.
    package var count: Int { visits.load(ordering: .relaxed) }

    /// Sets the count back to zero.
    package func reset() { visits.store(0, ordering: .relaxed) }

    /// Counts `records` visits.
    ///
    /// - Parameter records: how many records were read or written (≥ 0).
    func visit(_ records: Int = 1) { visits.add(records, ordering: .relaxed) }
}
