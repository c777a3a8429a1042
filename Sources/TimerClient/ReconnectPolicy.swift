/// How ``TimerClient/events(timer:kinds:afterSeq:reconnect:)`` connects again after losing its
/// connection: after a delay that starts at ``firstDelayMilliseconds`` and doubles up to
/// ``longestDelayMilliseconds``, until it has been without a connection for ``giveUpAfterSeconds``.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The first wait before connecting again, in milliseconds (≥ 0).
    public var firstDelayMilliseconds: Int
    /// The longest wait between two tries, in milliseconds (≥ the first).
    public var longestDelayMilliseconds: Int
    /// How long the stream keeps trying before it ends with the connection error, in seconds; 0
    /// never reconnects.
    public var giveUpAfterSeconds: Double

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - firstDelayMilliseconds: the first wait, in milliseconds.
    ///   - longestDelayMilliseconds: the longest wait, in milliseconds.
    ///   - giveUpAfterSeconds: how long to keep trying, in seconds; 0 for never.
    public init(firstDelayMilliseconds: Int, longestDelayMilliseconds: Int, giveUpAfterSeconds: Double) {
        self.firstDelayMilliseconds = max(0, firstDelayMilliseconds)
        self.longestDelayMilliseconds = max(self.firstDelayMilliseconds, longestDelayMilliseconds)
        self.giveUpAfterSeconds = max(0, giveUpAfterSeconds)
    }

    /// 50 ms doubling to 2 s, for 30 s: long enough for a service manager to restart timerd.
    public static let standard = ReconnectPolicy(
        firstDelayMilliseconds: 50, longestDelayMilliseconds: 2_000, giveUpAfterSeconds: 30)

    /// The stream ends with the first lost connection.
    public static let never = ReconnectPolicy(
        firstDelayMilliseconds: 0, longestDelayMilliseconds: 0, giveUpAfterSeconds: 0)
}
