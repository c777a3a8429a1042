import TimerModel

/// A tree of work counts with the rules of Foundation's `Progress`, as a `Sendable` value.
///
/// A node counts its own work in `totalUnitCount` and `completedUnitCount` (the timer engine uses
/// milliseconds). Portions of a node's total are handed to children as a `pendingUnitCount`; while
/// a child runs, its fraction times its pending units counts towards the node's
/// `fractionCompleted`, and when the child finishes its pending units are added to the node's
/// `completedUnitCount`. This is the model of Apple's `Progress` documentation ("Portions of the
/// total are then handed out to children as a pending unit count … When those children become
/// finished, the pending unit count assigned to that child is added to the parent's
/// `completedUnitCount`"), with each detail measured against swift-corelibs-foundation's
/// `Progress` (`Sources/Foundation/Progress.swift`, Swift 6.3.1 on Linux) and pinned by
/// `ProgressTreeFoundationComparisonTests`.
///
/// Unlike `Foundation.Progress`, this type is a value: it is mutated in place (a child through
/// `updateChild(at:_:)`), it is safe to send between tasks, it can be encoded and walked, and it
/// never traps. Where Foundation traps or its bookkeeping goes wrong, the result is defined here
/// and documented on the member it affects:
/// - A total going from positive to 0 (Foundation traps in `_ProgressFraction` arithmetic): the
///   node reads exactly like a node created with total 0.
/// - A child updated after it was credited (Foundation credits it again and corrupts the parent's
///   fraction): the child no longer affects its parent.
/// - Children that progressed while their parent's total was 0 or negative (Foundation keeps stale
///   contributions): fractions are always computed from the current counts.
/// - A child with total 0 that becomes finished (Foundation never credits it): it is credited.
/// - `Int64` overflow (Foundation traps when crediting, and rounds fractions to multiples of
///   1/131072): counts saturate at `Int64.min`/`Int64.max`; fractions are exact while they fit
///   in `Int64` and finite `Double`s after that, never NaN.
///
/// ```swift
/// var group = ProgressTree(totalUnitCount: 90_000)  // two timers, 30 s and 60 s, in milliseconds
/// group.addChild(ProgressTree(totalUnitCount: 30_000), withPendingUnitCount: 30_000)
/// group.addChild(ProgressTree(totalUnitCount: 60_000), withPendingUnitCount: 60_000)
/// group.updateChild(at: 0) { $0.completedUnitCount = 30_000 }
/// // group.completedUnitCount == 30_000, group.fractionCompleted == 1.0 / 3.0
/// ```
public struct ProgressTree: Sendable, Codable, Hashable {
    private var storedTotalUnitCount: Int64
    private var storedCompletedUnitCount: Int64

    /// The fraction a parent sees: own completed units plus children, over the total; `nil` when
    /// indeterminate. Derived from the other stored properties after every mutation.
    private(set) var overallFraction: UnitFraction?

    /// Creates a node without children, like `Progress(totalUnitCount:)`.
    ///
    /// The node starts with `completedUnitCount == 0`, not cancelled and not paused. With the
    /// default total of 0 it is indeterminate until a count changes, as a new `Progress` is.
    ///
    /// - Parameters:
    ///   - totalUnitCount: The size of the work, in the caller's unit (milliseconds in the timer
    ///     engine). Any value is accepted; negative means indeterminate.
    public init(totalUnitCount: Int64 = 0) {
        storedTotalUnitCount = totalUnitCount
        storedCompletedUnitCount = 0
        children = []
        isCancelled = false
        isPaused = false
        overallFraction = nil
        refreshOverallFraction()
        checkInvariants()
    }

    /// The size of the work, in the caller's unit (milliseconds in the timer engine).
    ///
    /// Any value may be set. A negative total makes the node indeterminate. Changing the total
    /// rescales what running children contribute, as Foundation's setter does
    /// (`_childFraction * old/new`), so each child still counts `pendingUnitCount /
    /// totalUnitCount` of the whole.
    ///
    /// Going from a positive total to 0 traps in swift-corelibs-foundation (its fraction
    /// arithmetic hits `precondition(!(lhs.total == 0 && rhs.total == 0))`, measured on 6.3.1).
    /// Here the node then reads exactly like `ProgressTree(totalUnitCount: 0)` with the same
    /// counts: indeterminate while `completedUnitCount` is 0, finished with a
    /// `fractionCompleted` of 1.0 when it is positive.
    ///
    /// Foundation keeps children's contributions from while the total was 0 or negative stale
    /// when the total becomes positive again (it starts subtracting amounts it never added); here
    /// the fraction always follows the current counts.
    ///
    /// - Complexity: O(*c*) for *c* children.
    public var totalUnitCount: Int64 {
        get { storedTotalUnitCount }
        set {
            storedTotalUnitCount = newValue
            refreshOverallFraction()
            checkInvariants()
        }
    }

    /// The amount of work done, in the same unit as `totalUnitCount`.
    ///
    /// Any value may be set; negative means indeterminate, and a value above the total is kept
    /// (the node is then finished with a `fractionCompleted` above 1, as Foundation reports).
    /// A finished child's `pendingUnitCount` is added here once by `updateChild(at:_:)` or
    /// `addChild(_:withPendingUnitCount:)`; the sum saturates at `Int64.min`/`Int64.max` where
    /// Foundation traps on overflow.
    ///
    /// When this node is itself a child, set it through the parent's `updateChild(at:_:)` so the
    /// parent can credit it when it becomes finished.
    ///
    /// - Complexity: O(*c*) for *c* children.
    public var completedUnitCount: Int64 {
        get { storedCompletedUnitCount }
        set {
            storedCompletedUnitCount = newValue
            refreshOverallFraction()
            checkInvariants()
        }
    }

    /// The children, in the order they were added, including those already credited.
    ///
    /// Foundation drops a child from its (private) set of children when it becomes finished; this
    /// tree keeps it, marked `isCredited`, so that the whole tree stays walkable. A credited child
    /// no longer counts towards this node's fraction and is no longer reached by `cancel()`,
    /// `pause()` or `resume()`.
    public private(set) var children: [Child]

    /// Whether the work was cancelled; once `true`, it stays `true`.
    ///
    /// Set by `cancel()` on this node or on any ancestor (while this node was an uncredited
    /// descendant), and on a child added to a cancelled parent, as in Foundation: "Instances of
    /// `Progress` that have parents are at least as cancelled as their parents."
    public private(set) var isCancelled: Bool

    /// Whether the work is paused.
    ///
    /// Set by `pause()` on this node or an ancestor, and on a child added to a paused parent;
    /// cleared by `resume()` on this node or an ancestor. A child may be resumed while its parent
    /// stays paused, as in Foundation.
    public private(set) var isPaused: Bool

    /// Adds a child that accounts for `pendingUnitCount` units of this node's total, like
    /// `Progress.addChild(_:withPendingUnitCount:)`.
    ///
    /// From then on the child's overall fraction times `pendingUnitCount` counts towards this
    /// node's `fractionCompleted`. A child added to a cancelled node is cancelled, and one added
    /// to a paused node is paused. A child that is already finished is credited at once: its
    /// pending units are added to `completedUnitCount` (Foundation does the same when it
    /// attaches a finished child). The pending count is not checked against the total; Foundation
    /// accepts any value, including 0 (the child then never moves this node) and negative values.
    ///
    /// - Parameters:
    ///   - child: The child's tree, with its own unit (it need not be this node's unit).
    ///   - pendingUnitCount: The portion of this node's `totalUnitCount` that the child stands
    ///     for, in this node's unit.
    /// - Complexity: O(*c*) for *c* children.
    public mutating func addChild(_ child: ProgressTree, withPendingUnitCount pendingUnitCount: Int64) {
        var child = child
        if isCancelled {
            child.cancel()
        }
        if isPaused {
            child.pause()
        }
        children.append(Child(pendingUnitCount: pendingUnitCount, node: child, isCredited: false))
        creditChildIfFinished(at: children.count - 1)
        refreshOverallFraction()
        checkInvariants()
    }

    /// Changes the child at `index` in place, then applies Foundation's rules to the result.
    ///
    /// After `body` returns:
    /// - If this node is cancelled and the child was not yet credited, the child is cancelled
    ///   (a child is at least as cancelled as its parent), even if `body` replaced it.
    /// - If the child was not yet credited and is now finished, that is its overall fraction (own
    ///   completed units plus its children, over its total) is at least 1, its `pendingUnitCount`
    ///   is added to this node's `completedUnitCount` and it stops counting towards this node's
    ///   fraction. This is Foundation's `_updateChild` rule; it uses the overall fraction, so a
    ///   child can be credited while its own `isFinished` is still `false`.
    /// - A credited child no longer affects this node, whatever `body` does to it. Foundation
    ///   still forwards updates of a removed child, which credits it a second time and subtracts
    ///   its old fraction again (measured: a child at 4/4 of 5 pending units, then set to 5/4,
    ///   leaves its parent at completed 10 of 10 with fraction 0.5); here it is credited once.
    /// - A finished child with `totalUnitCount` 0 (its `isFinished` is `true`) is credited too.
    ///   Foundation never credits it, since its parent sees such a child's fraction as 0.
    ///
    /// - Parameters:
    ///   - index: A valid index into `children`.
    ///   - body: Changes the child's tree; nested `updateChild(at:_:)` calls reach grandchildren.
    /// - Complexity: O(*c*) for *c* children, plus the work of `body`.
    public mutating func updateChild(at index: Int, _ body: (inout ProgressTree) -> Void) {
        precondition(children.indices.contains(index), "ProgressTree.updateChild(at:): index out of range")
        body(&children[index].node)
        if isCancelled && !children[index].isCredited {
            children[index].node.cancel()
        }
        creditChildIfFinished(at: index)
        refreshOverallFraction()
        checkInvariants()
    }

    /// The fraction of the whole work done, including running children; 0 when indeterminate.
    ///
    /// With a positive `totalUnitCount` it is `(completedUnitCount + Σ pendingUnitCount ×
    /// child's overall fraction) / totalUnitCount` over the uncredited children whose overall
    /// fraction is determinate; credited children are already in `completedUnitCount`. It may
    /// exceed 1 (completed above total). If the sum is negative it is 0, but it may be positive
    /// while `isIndeterminate` is `true` (measured: completed −1 of 10 with a child at 3/6 of 5
    /// pending units gives 0.15).
    ///
    /// With a total of 0 or less, children are ignored, as in Foundation ("if
    /// `_selfFraction.total == 0` then we do not add any children"): 1.0 when the total is 0 and
    /// `completedUnitCount` is positive, otherwise 0.0.
    ///
    /// Always finite, never NaN.
    public var fractionCompleted: Double {
        guard storedTotalUnitCount > 0 else {
            return storedTotalUnitCount == 0 && storedCompletedUnitCount > 0 ? 1 : 0
        }
        return overallFraction?.doubleValue ?? 0
    }

    /// Whether the amount of work is unknown.
    ///
    /// `true` when `totalUnitCount` or `completedUnitCount` is negative, or both are 0. This is
    /// what swift-corelibs-foundation computes (`_ProgressFraction.isIndeterminate`), measured on
    /// 6.3.1: a new `Progress()` is indeterminate. Apple's documentation says instead that zero
    /// values for both mean there was no work to do and that `isIndeterminate` is then `false`;
    /// this type follows the Linux implementation. Children do not affect it.
    public var isIndeterminate: Bool {
        storedCompletedUnitCount < 0 || storedTotalUnitCount < 0
            || (storedCompletedUnitCount == 0 && storedTotalUnitCount == 0)
    }

    /// Whether this node's own work is done.
    ///
    /// `true` when `completedUnitCount >= totalUnitCount` with both positive, or when the total is
    /// 0 and `completedUnitCount` is positive (swift-corelibs-foundation's
    /// `_ProgressFraction.isFinished`, measured on 6.3.1). Only this node's own counts matter:
    /// running children do not make it finished, although they can make its overall fraction
    /// reach 1, which is what gets it credited to its parent (see `updateChild(at:_:)`).
    public var isFinished: Bool {
        (storedCompletedUnitCount >= storedTotalUnitCount && storedCompletedUnitCount > 0
            && storedTotalUnitCount > 0) || (storedCompletedUnitCount > 0 && storedTotalUnitCount == 0)
    }

    /// Cancels this node and every uncredited descendant, like `Progress.cancel()`.
    ///
    /// Foundation's `cancel()` sets `isCancelled` and calls `cancel()` on each child it still
    /// holds; finished children were removed, so credited children here keep their state.
    /// Cancelling does not change any count or fraction, and cannot be undone.
    ///
    /// - Complexity: O(*n*) for *n* nodes in the tree.
    public mutating func cancel() {
        isCancelled = true
        for index in children.indices where !children[index].isCredited {
            children[index].node.cancel()
        }
        checkInvariants()
    }

    /// Pauses this node and every uncredited descendant, like `Progress.pause()`.
    ///
    /// - Complexity: O(*n*) for *n* nodes in the tree.
    public mutating func pause() {
        isPaused = true
        for index in children.indices where !children[index].isCredited {
            children[index].node.pause()
        }
        checkInvariants()
    }

    /// Resumes this node and every uncredited descendant, like `Progress.resume()`.
    ///
    /// Resuming does not undo `cancel()`.
    ///
    /// - Complexity: O(*n*) for *n* nodes in the tree.
    public mutating func resume() {
        isPaused = false
        for index in children.indices where !children[index].isCredited {
            children[index].node.resume()
        }
        checkInvariants()
    }

    /// This node's state as it goes on the wire.
    public var snapshot: ProgressSnapshot {
        ProgressSnapshot(
            totalUnitCount: storedTotalUnitCount,
            completedUnitCount: storedCompletedUnitCount,
            fractionCompleted: fractionCompleted,
            isIndeterminate: isIndeterminate,
            isFinished: isFinished,
            isCancelled: isCancelled,
            isPaused: isPaused
        )
    }

    private enum CodingKeys: String, CodingKey {
        case totalUnitCount
        case completedUnitCount
        case children
        case isCancelled
        case isPaused
    }

    /// Decodes a tree written by `encode(to:)` and checks that it obeys the tree's rules.
    ///
    /// The derived fractions are recomputed, not read.
    ///
    /// - Parameters:
    ///   - decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` if an uncredited child is finished (it should have
    ///   been credited) or a cancelled node has an uncredited child that is not cancelled; any
    ///   error of the decoder for missing keys or mistyped values.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storedTotalUnitCount = try container.decode(Int64.self, forKey: .totalUnitCount)
        storedCompletedUnitCount = try container.decode(Int64.self, forKey: .completedUnitCount)
        children = try container.decode([Child].self, forKey: .children)
        isCancelled = try container.decode(Bool.self, forKey: .isCancelled)
        isPaused = try container.decode(Bool.self, forKey: .isPaused)
        overallFraction = nil
        refreshOverallFraction()
        if let violation = firstInvariantViolation() {
            throw DecodingError.dataCorruptedError(
                forKey: .children, in: container, debugDescription: "Invalid progress tree: \(violation)")
        }
    }

    /// Encodes the counts, the flags and the children; derived values are not written.
    ///
    /// - Parameters:
    ///   - encoder: The encoder to write to.
    /// - Throws: Any error of the encoder.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(storedTotalUnitCount, forKey: .totalUnitCount)
        try container.encode(storedCompletedUnitCount, forKey: .completedUnitCount)
        try container.encode(children, forKey: .children)
        try container.encode(isCancelled, forKey: .isCancelled)
        try container.encode(isPaused, forKey: .isPaused)
    }

    /// Whether this node's overall fraction is at least 1, which gets it credited to its parent.
    var isOverallFinished: Bool {
        overallFraction?.isAtLeastOne ?? false
    }

    /// Credits the child at `index` to `completedUnitCount` if it is uncredited and finished.
    private mutating func creditChildIfFinished(at index: Int) {
        guard !children[index].isCredited, children[index].node.isOverallFinished else { return }
        children[index].isCredited = true
        let (sum, overflow) = storedCompletedUnitCount.addingReportingOverflow(children[index].pendingUnitCount)
        if overflow {
            storedCompletedUnitCount = children[index].pendingUnitCount > 0 ? .max : .min
        } else {
            storedCompletedUnitCount = sum
        }
    }

    /// Recomputes `overallFraction` from the counts and the children's overall fractions.
    mutating func refreshOverallFraction() {
        overallFraction = computedOverallFraction()
    }

    /// The fraction a parent sees, computed from scratch one level deep.
    ///
    /// With a positive total: own completed units plus each uncredited, determinate child's
    /// fraction times its pending units, over the total; `nil` (indeterminate, counting as 0)
    /// when that is negative. With a total of 0: 1 when `completedUnitCount` is positive (finished),
    /// else `nil`. With a negative total: `nil`.
    func computedOverallFraction() -> UnitFraction? {
        guard storedTotalUnitCount > 0 else {
            return storedTotalUnitCount == 0 && storedCompletedUnitCount > 0 ? UnitFraction(1) : nil
        }
        var sum = UnitFraction(storedCompletedUnitCount)
        for child in children where !child.isCredited {
            if let fraction = child.node.overallFraction {
                sum = sum + fraction.multiplied(by: child.pendingUnitCount)
            }
        }
        let fraction = sum.divided(by: storedTotalUnitCount)
        return fraction.isNegative ? nil : fraction
    }
}
