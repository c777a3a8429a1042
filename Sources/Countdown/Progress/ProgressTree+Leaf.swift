import TimerModel

extension ProgressTree {
    /// 2^53: every integer up to it is exact as a `Double`.
    private static let exactInDouble: Int64 = 1 << 53

    /// The snapshot of a node without children, computed without building the node.
    ///
    /// The same values as `ProgressTree(totalUnitCount:)` with `completedUnitCount` set and then
    /// `cancel()` and `pause()` applied as asked, followed by ``snapshot``, with the same rules
    /// (Foundation's `Progress`) and the same arithmetic: the fraction is the exact quotient reduced
    /// by the greatest common divisor, then converted to `Double`. The engine uses it for a plain
    /// timer's reply, the common case, where a whole tree would only be built and thrown away.
    ///
    /// - Parameters:
    ///   - totalUnitCount: the size of the work, in the node's unit.
    ///   - completedUnitCount: the work done, in the node's unit.
    ///   - isCancelled: whether the work was cancelled.
    ///   - isPaused: whether the work is paused.
    /// - Returns: the node's snapshot.
    static func leafSnapshot(
        totalUnitCount: Int64, completedUnitCount: Int64, isCancelled: Bool, isPaused: Bool
    ) -> ProgressSnapshot {
        let total = totalUnitCount
        let completed = completedUnitCount
        let fraction: Double
        if total > 0, completed >= 0, total <= Self.exactInDouble, completed <= Self.exactInDouble {
            // Both counts are exact as Doubles and IEEE 754 division is correctly rounded, so this
            // is the reduced fraction's `Double` bit for bit (n/d = completed/total), without the
            // greatest common divisor (a dozen 64-bit divisions on every start's reply).
            fraction = Double(completed) / Double(total)
        } else if total > 0 {
            let overall = UnitFraction(completed).divided(by: total)
            fraction = overall.isNegative ? 0 : overall.doubleValue
        } else {
            fraction = total == 0 && completed > 0 ? 1 : 0
        }
        return ProgressSnapshot(
            totalUnitCount: total,
            completedUnitCount: completed,
            fractionCompleted: fraction,
            isIndeterminate: completed < 0 || total < 0 || (completed == 0 && total == 0),
            isFinished: (completed >= total && completed > 0 && total > 0) || (completed > 0 && total == 0),
            isCancelled: isCancelled,
            isPaused: isPaused)
    }
}
