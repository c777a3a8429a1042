/// The size limits every part agrees on: the engine enforces them, `timerctl` checks them before it
/// sends anything, and the error messages quote them.
public enum TimerLimits {
    /// The most durations one timer (group) may have: 100.
    public static let maximumGroupSize = 100
}
