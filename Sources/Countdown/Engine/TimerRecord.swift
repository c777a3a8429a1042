// Over 450 lines on purpose: the 64-byte record, its shared box for what few timers
// have, and the accessors that hide which of the two holds a value belong together; the record's
// segment arithmetic and boundaries are already in TimerRecord+Segments.swift and +Boundaries.swift.
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
///
/// Layout (docs/performance.md, "Why each figure is what it is"): 64 bytes. What every timer has
/// is stored inline: the id, owner, state, the counts in nanoseconds, the creation instant and one
/// wall-clock slot that holds `runStartWall` while running and `endedAt` once ended (a timer is
/// never both in the common case). What few timers have (a name, a group's durations, durations in
/// seconds that do not follow from the nanoseconds, a `startedAt` other than `createdAt`, an
/// absolute deadline, extensions) lives in one shared, immutable `Spill` box, `nil` for a plain
/// timer, replaced (never mutated) when one of those values changes. The representation is
/// canonical (each logical value has exactly one stored form), so the synthesized `Hashable`
/// compares logical values.
public struct TimerRecord: Sendable, Hashable {
    /// Unique for the life of the engine's state; never reused.
    public var id: UInt64
    /// The uid that owns the timer (0 for root; the engine itself does not check it).
    public var owner: UInt32
    /// The state now (`running`, `paused`, `finished` or `stopped`).
    public var state: TimerState
    /// Whether the timer ended while no daemon ran and was finished at the next start.
    public var missed: Bool
    /// What ``wallBits`` holds: ``WallSlot``.
    private var wallSlot: WallSlot
    /// Nanoseconds counted before the current run began (all of them once paused or ended).
    public var accumulatedNanoseconds: Int64
    // The optional boot instant is stored without Optional's tag byte: `Int64.min` stands for nil.
    private var runStartNanoseconds: Int64
    /// The whole duration in nanoseconds (a group's: the sum of its children's, wrapping as before).
    private var totalNanosecondsStored: Int64
    private var createdAtStored: Date
    /// `runStartWall` or `endedAt` (bit pattern of `timeIntervalSinceReferenceDate`), per ``wallSlot``.
    private var wallBits: UInt64
    /// The rare values, or `nil` when they all have their default (see the type's comment).
    private(set) var spill: Spill?

    /// What the inline wall-clock slot holds.
    private enum WallSlot: UInt8, Sendable, Hashable {
        case none, runStartWall, endedAt
    }

    /// The values few timers have, kept out of line so that a plain timer's record is 64 bytes.
    /// The optional instants are kept as bit patterns with `UInt64.max` (a NaN no date arithmetic
    /// produces) for `nil`, 8 bytes each instead of 16: the box is then 88 bytes (a 96-byte heap
    /// block) instead of 112 (128).
    struct Rare: Sendable, Hashable {
        var name: String?
        /// The segments when they are a group, or a single duration whose seconds are not
        /// `Double(nanoseconds) / 1e9`; `nil` otherwise (the seconds then follow from the nanoseconds).
        var segments: Segments?
        private var startedAtBits = Rare.absent
        private var endedAtBits = Rare.absent
        private var wallDeadlineBits = Rare.absent
        var extensions: [TimerExtension] = []

        private static let absent = UInt64.max

        init(
            name: String? = nil, segments: Segments? = nil, startedAt: Date? = nil, endedAt: Date? = nil,
            wallDeadline: Date? = nil, extensions: [TimerExtension] = []
        ) {
            self.name = name
            self.segments = segments
            self.startedAt = startedAt
            self.endedAt = endedAt
            self.wallDeadline = wallDeadline
            self.extensions = extensions
        }

        /// `startedAt` when it differs (bit for bit) from `createdAt`.
        var startedAt: Date? {
            get { Self.date(startedAtBits) }
            set { startedAtBits = Self.bits(newValue) }
        }
        /// `endedAt` when the inline slot holds `runStartWall` (a record both running and ended:
        /// never made by the engine, but the stores may hold any combination).
        var endedAt: Date? {
            get { Self.date(endedAtBits) }
            set { endedAtBits = Self.bits(newValue) }
        }
        var wallDeadline: Date? {
            get { Self.date(wallDeadlineBits) }
            set { wallDeadlineBits = Self.bits(newValue) }
        }

        var isEmpty: Bool {
            name == nil && segments == nil && startedAtBits == Self.absent && endedAtBits == Self.absent
                && wallDeadlineBits == Self.absent && extensions.isEmpty
        }

        private static func date(_ bits: UInt64) -> Date? {
            bits == absent ? nil : Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
        }

        private static func bits(_ date: Date?) -> UInt64 {
            date.map { $0.timeIntervalSinceReferenceDate.bitPattern } ?? absent
        }
    }

    /// An immutable box for ``Rare``, shared between copies of a record; compared by value.
    final class Spill: Sendable, Hashable {
        let rare: Rare

        init(_ rare: Rare) { self.rare = rare }

        static func == (lhs: Spill, rhs: Spill) -> Bool { lhs === rhs || lhs.rare == rhs.rare }

        func hash(into hasher: inout Hasher) { hasher.combine(rare) }
    }

    private var rare: Rare {
        get { spill?.rare ?? Rare() }
        set { spill = newValue.isEmpty ? nil : Spill(newValue) }
    }

    /// The name, unique among live timers.
    public var name: String? {
        get { spill?.rare.name }
        set {
            guard spill != nil || newValue != nil else { return }
            rare.name = newValue
        }
    }
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
    package var segments: Segments {
        get {
            if let segments = spill?.rare.segments { return segments }
            return .single(seconds: Double(totalNanosecondsStored) / 1e9, nanoseconds: totalNanosecondsStored)
        }
        set {
            switch newValue {
            case .single(let seconds, let nanoseconds):
                totalNanosecondsStored = nanoseconds
                let follows = seconds.bitPattern == (Double(nanoseconds) / 1e9).bitPattern
                if follows, spill?.rare.segments == nil { return }
                rare.segments = follows ? nil : newValue
            case .group(_, let nanoseconds):
                totalNanosecondsStored = nanoseconds.reduce(0, { $0.addingReportingOverflow($1).partialValue })
                rare.segments = newValue
            }
        }
    }
    /// A group's durations in nanoseconds (two or more), or `nil` for a plain timer: no array built.
    var groupNanoseconds: [Int64]? {
        guard case .group(_, let nanoseconds)? = spill?.rare.segments, nanoseconds.count > 1 else { return nil }
        return nanoseconds
    }
    /// Wall-clock creation time.
    public var createdAt: Date {
        get { createdAtStored }
        set {
            let started = startedAt
            createdAtStored = newValue
            startedAt = started
        }
    }
    /// Wall-clock start time.
    public var startedAt: Date {
        get { spill?.rare.startedAt ?? createdAtStored }
        set {
            let same =
                newValue.timeIntervalSinceReferenceDate.bitPattern
                == createdAtStored.timeIntervalSinceReferenceDate.bitPattern
            if same, spill?.rare.startedAt == nil { return }
            rare.startedAt = same ? nil : newValue
        }
    }
    /// What the timer carries beyond these fields (an on-finish ``action``), persisted in the
    /// store's extension trailer; empty for most timers (an empty array allocates nothing).
    public var extensions: [TimerExtension] {
        get { spill?.rare.extensions ?? [] }
        set {
            guard spill != nil || !newValue.isEmpty else { return }
            rare.extensions = newValue
        }
    }

    /// Where on the boot-time clock the current run began; set only while running.
    public var runStart: BootInstant? {
        get { runStartNanoseconds == .min ? nil : BootInstant(nanoseconds: runStartNanoseconds) }
        set { runStartNanoseconds = newValue?.nanoseconds ?? .min }
    }
    /// The wall-clock time of `runStart`, to carry a running timer across a reboot.
    public var runStartWall: Date? {
        get { wallSlot == .runStartWall ? Self.date(wallBits) : nil }
        set { placeWall(runStartWall: newValue, endedAt: endedAt) }
    }
    /// Wall-clock end time, once finished or stopped.
    public var endedAt: Date? {
        get {
            switch wallSlot {
            case .endedAt: return Self.date(wallBits)
            case .runStartWall: return spill?.rare.endedAt
            case .none: return nil
            }
        }
        set { placeWall(runStartWall: runStartWall, endedAt: newValue) }
    }
    /// For a timer started with an absolute deadline (`timerctl start --at`): the wall-clock instant
    /// it ends at. Its boot-time deadline is recomputed whenever the wall clock steps, so it fires at
    /// that instant. `nil` for countdowns, and cleared by `pause` (a paused timer counts its remaining time).
    public var wallDeadline: Date? {
        get { spill?.rare.wallDeadline }
        set {
            guard spill != nil || newValue != nil else { return }
            rare.wallDeadline = newValue
        }
    }

    /// Stores the two wall-clock instants in their canonical place: `runStartWall` inline when set,
    /// else `endedAt` inline; `endedAt` goes to the spill only when both are set.
    private mutating func placeWall(runStartWall: Date?, endedAt: Date?) {
        let spilledEnded: Date?
        if let runStartWall {
            wallSlot = .runStartWall
            wallBits = Self.bits(runStartWall)
            spilledEnded = endedAt
        } else if let endedAt {
            wallSlot = .endedAt
            wallBits = Self.bits(endedAt)
            spilledEnded = nil
        } else {
            wallSlot = .none
            wallBits = 0
            spilledEnded = nil
        }
        if spilledEnded == nil, spill?.rare.endedAt == nil { return }
        rare.endedAt = spilledEnded
    }

    private static func date(_ bits: UInt64) -> Date { Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)) }

    private static func bits(_ date: Date) -> UInt64 { date.timeIntervalSinceReferenceDate.bitPattern }

    /// Creates a record; the durations in seconds and in nanoseconds must have the same count;
    /// `extensions` are the data of ``extensions`` (none by default).
    public init(
        id: UInt64, name: String?, durations: [Double], segmentNanoseconds: [Int64], state: TimerState,
        accumulatedNanoseconds: Int64, runStart: BootInstant?, runStartWall: Date?, createdAt: Date, startedAt: Date,
        endedAt: Date?, missed: Bool, owner: UInt32, wallDeadline: Date?, extensions: [TimerExtension] = []
    ) {
        self.init(
            id: id, name: name, segments: Segments(durations: durations, nanoseconds: segmentNanoseconds),
            state: state, accumulatedNanoseconds: accumulatedNanoseconds, runStart: runStart,
            runStartWall: runStartWall, createdAt: createdAt, startedAt: startedAt, endedAt: endedAt, missed: missed,
            owner: owner, wallDeadline: wallDeadline, extensions: extensions)
    }

    /// Creates a record from its segments (no arrays for a plain timer): what the engine's start
    /// and the store's binary codec use; otherwise as ``init(id:name:durations:segmentNanoseconds:state:accumulatedNanoseconds:runStart:runStartWall:createdAt:startedAt:endedAt:missed:owner:wallDeadline:extensions:)``.
    package init(
        id: UInt64, name: String?, segments: Segments, state: TimerState, accumulatedNanoseconds: Int64,
        runStart: BootInstant?, runStartWall: Date?, createdAt: Date, startedAt: Date, endedAt: Date?, missed: Bool,
        owner: UInt32, wallDeadline: Date?, extensions: [TimerExtension] = []
    ) {
        self.id = id
        self.owner = owner
        self.state = state
        self.missed = missed
        self.wallSlot = .none
        self.accumulatedNanoseconds = accumulatedNanoseconds
        self.runStartNanoseconds = runStart?.nanoseconds ?? .min
        self.totalNanosecondsStored = 0
        self.createdAtStored = createdAt
        self.wallBits = 0
        self.spill = nil
        var spilledSegments: Segments?
        switch segments {
        case .single(let seconds, let nanoseconds):
            totalNanosecondsStored = nanoseconds
            if seconds.bitPattern != (Double(nanoseconds) / 1e9).bitPattern { spilledSegments = segments }
        case .group(_, let nanoseconds):
            totalNanosecondsStored = nanoseconds.reduce(0, { $0.addingReportingOverflow($1).partialValue })
            spilledSegments = segments
        }
        let startedDiffers =
            startedAt.timeIntervalSinceReferenceDate.bitPattern != createdAt.timeIntervalSinceReferenceDate.bitPattern
        if let runStartWall {
            wallSlot = .runStartWall
            wallBits = Self.bits(runStartWall)
        } else if let endedAt {
            wallSlot = .endedAt
            wallBits = Self.bits(endedAt)
        }
        let spilledEnded = runStartWall == nil ? nil : endedAt
        // A plain timer (the common case) builds no `Rare` at all.
        if name != nil || spilledSegments != nil || startedDiffers || spilledEnded != nil || wallDeadline != nil
            || !extensions.isEmpty
        {
            spill = Spill(
                Rare(
                    name: name, segments: spilledSegments, startedAt: startedDiffers ? startedAt : nil,
                    endedAt: spilledEnded, wallDeadline: wallDeadline, extensions: extensions))
        }
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
    public var totalNanoseconds: Int64 { totalNanosecondsStored }

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
        // A plain record (no spill: the common case, every start's reply) takes the short path.
        spill == nil ? plainSnapshot(at: now, wallNow: wallNow) : generalSnapshot(at: now, wallNow: wallNow)
    }

    /// ``snapshot(at:wallNow:)`` for any record (with or without a spill).
    func generalSnapshot(at now: BootInstant, wallNow: Date) -> TimerSnapshot {
        let elapsed = elapsedNanoseconds(at: now)
        let total = totalNanoseconds
        let groupSegments: [Int64]
        let totalSeconds: Double
        switch spill?.rare.segments {
        case nil:
            groupSegments = []
            totalSeconds = Double(total) / 1e9
        case .single(let seconds, _)?:
            groupSegments = []
            totalSeconds = seconds
        case .group(let seconds, let nanoseconds)?:
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
                completedUnitCount: state == .finished || state == .ringing ? totalUnits : elapsed / 1_000_000,
                isCancelled: state == .stopped, isPaused: state == .paused)
        }
        let endsAt = state == .running ? endsAt(now: now, wallNow: wallNow) : nil
        // A group's and a series' values only when the record has any (a plain record has no
        // spill: nothing to scan, box or copy).
        var extras: TimerSnapshot.Extras?
        if spill != nil || isGroup {
            let series = recurrence.map {
                RecurrenceSnapshot(
                    recurrence: $0, nextElapse: state == .running ? endsAt : nil,
                    lastResult: action?.runs.last?.outcome, group: seriesGroup)
            }
            extras = TimerSnapshot.extras(
                currentChild: isGroup ? currentChild : nil, children: children, recurrence: series,
                heartbeat: heartbeat, wake: isWake, alarm: alarm)
        }
        return TimerSnapshot(
            id: id, name: name, state: state, duration: totalSeconds,
            remaining: state == .finished || state == .ringing ? 0 : Double(total - elapsed) / 1e9,
            elapsed: Double(elapsed) / 1e9, progress: progress, createdAt: createdAt, startedAt: startedAt,
            endedAt: endedAt, endsAt: endsAt, missed: missed, extras: extras)
    }

    /// ``snapshot(at:wallNow:)`` of a record without a spill, read from the inline fields only: the
    /// same values (no name, seconds `Double(total) / 1e9`, `startedAt` = `createdAt`, no absolute
    /// deadline, no group or series), without the record copies and the switch over the spilled
    /// segments that the general path pays (every start's reply is built here).
    /// `TimerRecordSnapshotTests.plainPathMatchesGeneral` compares both paths.
    ///
    /// - Precondition: `spill == nil`.
    func plainSnapshot(at now: BootInstant, wallNow: Date) -> TimerSnapshot {
        let total = totalNanosecondsStored
        let elapsed = elapsedNanoseconds(at: now)
        let totalUnits = Self.unitCount(ofNanoseconds: total)
        let progress = ProgressTree.leafSnapshot(
            totalUnitCount: totalUnits,
            completedUnitCount: state == .finished || state == .ringing ? totalUnits : elapsed / 1_000_000,
            isCancelled: state == .stopped, isPaused: state == .paused)
        var endsAt: Date?
        if state == .running, runStartNanoseconds != .min {
            let deadline = BootInstant(nanoseconds: runStartNanoseconds)
                .advanced(byNanoseconds: total - accumulatedNanoseconds)
            endsAt = wallNow.addingTimeInterval(Double(deadline.nanoseconds(since: now)) / 1e9)
        }
        return TimerSnapshot(
            id: id, name: nil, state: state, duration: Double(total) / 1e9,
            remaining: state == .finished || state == .ringing ? 0 : Double(total - elapsed) / 1e9,
            elapsed: Double(elapsed) / 1e9, progress: progress, createdAt: createdAtStored,
            startedAt: createdAtStored, endedAt: wallSlot == .endedAt ? Self.date(wallBits) : nil, endsAt: endsAt,
            missed: missed, extras: nil)
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
            let childDone = state == .finished || state == .ringing || childElapsed == segment
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
