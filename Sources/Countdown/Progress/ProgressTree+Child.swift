extension ProgressTree {
    /// A child of a `ProgressTree` node and the portion of the node's total it stands for.
    public struct Child: Sendable, Codable, Hashable {
        /// The portion of the parent's `totalUnitCount` this child accounts for, in the parent's
        /// unit (Foundation's `pendingUnitCount` argument of `addChild(_:withPendingUnitCount:)`).
        public var pendingUnitCount: Int64

        /// The child's own tree, counted in its own unit.
        public var node: ProgressTree

        /// Whether `pendingUnitCount` has been added to the parent's `completedUnitCount`.
        ///
        /// Set once, when the child's overall fraction first reaches 1. From then on the child no
        /// longer counts towards the parent's fraction and is not reached by the parent's
        /// `cancel()`, `pause()` or `resume()`; Foundation removes such a child from its parent.
        public internal(set) var isCredited: Bool
    }
}
