/// The state of one `ProgressTree` node as it goes on the wire.
///
/// Encoded with exactly these keys, each a plain JSON number or Boolean: `totalUnitCount`,
/// `completedUnitCount` (milliseconds in the timer engine), `fractionCompleted`,
/// `isIndeterminate`, `isFinished`, `isCancelled` and `isPaused`. The meaning of each value is
/// that of the `ProgressTree` member of the same name, which follows Foundation's `Progress`.
/// `fractionCompleted` is always finite, so `JSONEncoder` can always encode it.
public struct ProgressSnapshot: Sendable, Codable, Hashable {
    /// The size of the work, in the node's unit (milliseconds for timers).
    public var totalUnitCount: Int64

    /// The work done, in the node's unit (milliseconds for timers).
    public var completedUnitCount: Int64

    /// The fraction done including running children, from 0 (also when indeterminate) upwards;
    /// may exceed 1.
    public var fractionCompleted: Double

    /// Whether the amount of work is unknown (a negative count, or both counts 0).
    public var isIndeterminate: Bool

    /// Whether the node's own completed units reached its total.
    public var isFinished: Bool

    /// Whether the work was cancelled.
    public var isCancelled: Bool

    /// Whether the work is paused.
    public var isPaused: Bool

    /// Creates a snapshot from its values, for example to build the expected value in a test.
    ///
    /// - Parameters:
    ///   - totalUnitCount: The size of the work, in the node's unit.
    ///   - completedUnitCount: The work done, in the node's unit.
    ///   - fractionCompleted: The fraction done; finite.
    ///   - isIndeterminate: Whether the amount of work is unknown.
    ///   - isFinished: Whether the node's own work is done.
    ///   - isCancelled: Whether the work was cancelled.
    ///   - isPaused: Whether the work is paused.
    public init(
        totalUnitCount: Int64,
        completedUnitCount: Int64,
        fractionCompleted: Double,
        isIndeterminate: Bool,
        isFinished: Bool,
        isCancelled: Bool,
        isPaused: Bool
    ) {
        self.totalUnitCount = totalUnitCount
        self.completedUnitCount = completedUnitCount
        self.fractionCompleted = fractionCompleted
        self.isIndeterminate = isIndeterminate
        self.isFinished = isFinished
        self.isCancelled = isCancelled
        self.isPaused = isPaused
    }
}
