import TimerModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One timer as the engine stores and persists it: the durations, the state and the bookkeeping
/// from which remaining and elapsed time are derived at any instant.
///
/// Counting: `elapsed(at:) = accumulatedNanoseconds + (now - runStart)` while running, and
/// `accumulatedNanoseconds` while paused or ended. The deadline of a running timer is
/// `runStart + totalNanoseconds - accumulatedNanoseconds` on the boot-time clock.
public struct TimerRecord: Sendable, Hashable {
    /// Unique for the life of the engine's state; never reused.
    public var id: UInt64
    /// The name, unique among live timers.
    public var name: String?
    /// The durations in seconds as given: one for a plain timer, several for a group.
    public var durations: [Double] {
        get { segments.durations }
        set { segments = Segments(durations: newValue, nanoseconds: segments.nanoseconds) }
    }
    /// The durations in nanoseconds (each ≥ 1).
    public var segmentNanoseconds: [Int64] {
        get { segments.nanoseconds }
        set { segments = Segments(durations: segments.durations, nanoseconds: newValue) }
    }
    /// `durations` and `segmentNanoseconds`, stored without any array for a plain timer (the common
    /// case): a million timers then cost two million fewer heap allocations (docs/performance.md).
    /// `package` so that TimerStorage's binary codec reads and writes it without building arrays.
    package var segments: Segments
    /// The state now (`running`, `paused`, `finished` or `stopped`).
    public var state: TimerState
    /// Whether the timer ended while no daemon ran and was finished at the next start.
    public var missed: Bool
    /// The uid that owns the timer (0 for root; the engine itself does not check it).
    public var owner: UInt32
    /// Nanoseconds counted before the current run began (all of them once paused or ended).
    public var accumulatedNanoseconds: Int64
    /// Wall-clock creation time.
    public var createdAt: Date
    /// Wall-clock start time.
    public var startedAt: Date
    /// What the timer carries beyond these fields (an on-finish ``action``), persisted in the
    /// store's extension trailer; empty for most timers (an empty array allocates nothing).
    public var extensions: [TimerExtension]
    // The optional instants are stored without Optional's tag byte, which would pad each to 16
    // bytes: `Int64.min` and `UInt64.max` (a NaN no date arithmetic produces) stand for nil.
    // With the fields ordered by size, a record takes 104 bytes instead of 136 (docs/performance.md);
    // `extensions` adds one array reference: 112 bytes.
    private var runStartNanoseconds: Int64
    private var runStartWallBits: UInt64
    private var endedAtBits: UInt64
    private var wallDeadlineBits: UInt64

    /// Where on the boot-time clock the current run began; set only while running.
    public var runStart: BootInstant? {
        get { runStartNanoseconds == .min ? nil : BootInstant(nanoseconds: runStartNanoseconds) }
        set { runStartNanoseconds = newValue?.nanoseconds ?? .min }
    }
    /// The wall-clock time of `runStart`, to carry a running timer across a reboot.
    public var runStartWall: Date? {
        get { Self.date(runStartWallBits) }
        set { runStartWallBits = Self.bits(newValue) }
    }
    /// Wall-clock end time, once finished or stopped.
    public var endedAt: Date? {
        get { Self.date(endedAtBits) }
        set { endedAtBits = Self.bits(newValue) }
    }
    /// For a timer started with an absolute deadline (`timerctl start --at`): the wall-clock instant
    /// it ends at. Its boot-time deadline is recomputed whenever the wall clock steps, so it fires at
    /// that instant. `nil` for countdowns, and cleared by `pause` (a paused timer counts its remaining time).
    public var wallDeadline: Date? {
        get { Self.date(wallDeadlineBits) }
        set { wallDeadlineBits = Self.bits(newValue) }
    }

    private static let absent = UInt64.max

    private static func date(_ bits: UInt64) -> Date? {
        bits == absent ? nil : Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
    }

    private static func bits(_ date: Date?) -> UInt64 {
        date.map { $0.timeIntervalSinceReferenceDate.bitPattern } ?? absent
    }

    /// Creates a record; the durations in seconds and in nanoseconds must have the same count;
    /// `extensions` are the data of ``extensions`` (none by default).
    public init(
        id: UInt64, name: String?, durations: [Double], segmentNanoseconds: [Int64], state: TimerState,
        accumulatedNanoseconds: Int64, runStart: BootInstant?, runStartWall: Date?, createdAt: Date, startedAt: Date,
        endedAt: Date?, missed: Bool, owner: UInt32, wallDeadline: Date?, extensions: [TimerExtension] = []
    ) {
        self.id = id
        self.name = name
        self.segments = Segments(durations: durations, nanoseconds: segmentNanoseconds)
        self.state = state
        self.missed = missed
        self.owner = owner
        self.accumulatedNanoseconds = accumulatedNanoseconds
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.extensions = extensions
        self.runStartNanoseconds = runStart?.nanoseconds ?? .min
        self.runStartWallBits = Self.bits(runStartWall)
        self.endedAtBits = Self.bits(endedAt)
        self.wallDeadlineBits = Self.bits(wallDeadline)
    }

    /// Re-times a running timer with an absolute end: `elapsed` nanoseconds counted so far and
    /// `remaining` left from `now`. The duration becomes `elapsed + remaining`, so that after a wall-clock
    /// step backward the timer shows the real time left instead of firing early.
    mutating func rebase(now: BootInstant, elapsed: Int64, remaining: Int64) {
        let elapsed = max(0, elapsed)
        let total = max(1, elapsed.addingReportingOverflow(max(0, remaining)).partialValue)
        segments = .single(seconds: Double(total) / 1e9, nanoseconds: total)
        accumulatedNanoseconds = min(elapsed, total)
        runStart = now
    }

    /// The whole duration in nanoseconds.
    public var totalNanoseconds: Int64 {
        switch segments {
        case .single(_, let nanoseconds): return nanoseconds
        case .group(_, let nanoseconds): return nanoseconds.reduce(0, { $0.addingReportingOverflow($1).partialValue })
        }
    }

    /// Nanoseconds counted by `now`, at most the whole duration.
    public func elapsedNanoseconds(at now: BootInstant) -> Int64 {
        var elapsed = accumulatedNanoseconds
        if state == .running, let runStart {
            elapsed = elapsed.addingReportingOverflow(max(0, now.nanoseconds(since: runStart))).partialValue
        }
        return min(max(0, elapsed), totalNanoseconds)
    }

    /// The instant a running timer reaches zero; `nil` unless running.
    public var deadline: BootInstant? {
        guard state == .running, let runStart else { return nil }
        return runStart.advanced(byNanoseconds: totalNanoseconds - accumulatedNanoseconds)
    }
}

extension TimerRecord {
    /// The wall-clock instant a running timer ends: its absolute deadline, or `wallNow` plus what is left.
    func endsAt(now: BootInstant, wallNow: Date) -> Date? {
        guard state == .running, let deadline else { return nil }
        return wallDeadline ?? wallNow.addingTimeInterval(Double(deadline.nanoseconds(since: now)) / 1e9)
    }

    /// Milliseconds of a duration in nanoseconds, rounded up so that any positive duration has ≥ 1 unit.
    static func unitCount(ofNanoseconds nanoseconds: Int64) -> Int64 {
        nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1)
    }

    /// The snapshot at `now`: derived remaining, elapsed and progress; children for a group.
    ///
    /// - Parameters:
    ///   - now: the boot-time instant of the snapshot.
    ///   - wallNow: the wall-clock instant of `now` (for ``TimerSnapshot/endsAt``).
    /// - Returns: the timer's values at `now`.
    /// - Complexity: O(k) for a group of k children.
    func snapshot(at now: BootInstant, wallNow: Date) -> TimerSnapshot {
        let elapsed = elapsedNanoseconds(at: now)
        let total = totalNanoseconds
        let groupSegments: [Int64]
        let totalSeconds: Double
        switch segments {
        case .single(let seconds, _):
            groupSegments = []
            totalSeconds = seconds
        case .group(let seconds, let nanoseconds):
            groupSegments = nanoseconds.count > 1 ? nanoseconds : []
            totalSeconds = seconds.reduce(0, +)
        }
        let isGroup = !groupSegments.isEmpty

        let progress: ProgressSnapshot
        var children: [TimerSnapshot.Child] = []
        var currentChild: Int?
        if isGroup {
            (progress, children, currentChild) = groupProgress(segments: groupSegments, elapsed: elapsed)
        } else {
            // A plain timer's tree would have no children: its snapshot follows from the counts alone.
            let totalUnits = Self.unitCount(ofNanoseconds: total)
            progress = ProgressTree.leafSnapshot(
                totalUnitCount: totalUnits,
                completedUnitCount: state == .finished ? totalUnits : elapsed / 1_000_000,
                isCancelled: state == .stopped, isPaused: state == .paused)
        }
        var result = TimerSnapshot(
            id: id, name: name, state: state, duration: totalSeconds,
            remaining: state == .finished ? 0 : Double(total - elapsed) / 1e9,
            elapsed: Double(elapsed) / 1e9, progress: progress, createdAt: createdAt, startedAt: startedAt,
            endedAt: endedAt, endsAt: state == .running ? endsAt(now: now, wallNow: wallNow) : nil, missed: missed,
            currentChild: isGroup ? currentChild : nil, children: children)
        if let recurrence {
            result.recurrence = RecurrenceSnapshot(
                recurrence: recurrence, nextElapse: state == .running ? result.endsAt : nil,
                lastResult: action?.runs.last?.outcome)
        }
        return result
    }

    /// A group's progress tree, built child by child, and its children's snapshots.
    private func groupProgress(
        segments groupSegments: [Int64], elapsed: Int64
    ) -> (progress: ProgressSnapshot, children: [TimerSnapshot.Child], currentChild: Int?) {
        // A group's total is the sum of its children's units (each rounded up on its own), so that
        // crediting every child brings the parent exactly to its total.
        let totalUnits = groupSegments.reduce(Int64(0)) { $0 + Self.unitCount(ofNanoseconds: $1) }
        var tree = ProgressTree(totalUnitCount: totalUnits)
        var children: [TimerSnapshot.Child] = []
        var currentChild: Int?
        var offset: Int64 = 0
        for (index, segment) in groupSegments.enumerated() {
            let childElapsed = min(max(0, elapsed - offset), segment)
            let childUnits = Self.unitCount(ofNanoseconds: segment)
            let childDone = state == .finished || childElapsed == segment
            let childState: TimerState
            if childDone {
                childState = .finished
            } else if state == .stopped {
                childState = .stopped
            } else if currentChild == nil {
                childState = state
                currentChild = index
            } else {
                childState = .pending
            }
            tree.addChild(ProgressTree(totalUnitCount: childUnits), withPendingUnitCount: childUnits)
            tree.updateChild(at: index) { child in
                child.completedUnitCount = childDone ? childUnits : childElapsed / 1_000_000
            }
            children.append(
                TimerSnapshot.Child(
                    index: index, state: childState, duration: Double(segment) / 1e9,
                    remaining: Double(segment - childElapsed) / 1e9, elapsed: Double(childElapsed) / 1e9,
                    progress: tree.children[index].node.snapshot))
            offset += segment
        }
        if state == .stopped { tree.cancel() }
        if state == .paused { tree.pause() }
        for index in children.indices {
            children[index].progress = tree.children[index].node.snapshot
        }
        return (tree.snapshot, children, currentChild)
    }
}
