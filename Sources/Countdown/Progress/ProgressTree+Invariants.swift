extension ProgressTree {
    /// Traps if this node breaks one of the tree's rules; does nothing in release builds.
    ///
    /// Checks this node and its direct children (each child checked itself when it changed):
    /// the stored overall fraction matches the counts, no uncredited child is finished, and a
    /// cancelled node has only cancelled uncredited children.
    ///
    /// - Complexity: O(*c*) for *c* children.
    func checkInvariants() {
        #if DEBUG
            if let violation = firstInvariantViolation() {
                preconditionFailure("ProgressTree invariant broken: \(violation)")
            }
        #endif
    }

    /// A description of the first broken rule of this node and its direct children, or `nil`.
    func firstInvariantViolation() -> String? {
        if overallFraction != computedOverallFraction() {
            return "stored overall fraction does not match the counts"
        }
        for (index, child) in children.enumerated() where !child.isCredited {
            if child.node.isOverallFinished {
                return "child \(index) is finished but was not credited"
            }
            if isCancelled && !child.node.isCancelled {
                return "child \(index) of a cancelled node is not cancelled"
            }
        }
        return nil
    }
}
