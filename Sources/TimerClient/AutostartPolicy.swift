/// Whether connecting may start timerd when nothing answers on the default socket.
public enum AutostartPolicy: Sendable, Hashable {
    /// Never start timerd: connecting fails with ``TimerClientError/notRunning(path:reason:)``.
    case never
    /// Start `timerd --exit-when-idle 300` (beside this executable, else on `PATH`) when nothing
    /// answers on the default socket, the way tmux starts its server. An explicit socket path is
    /// never autostarted.
    case whenNotRunning
}
