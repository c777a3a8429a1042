/// When timerd writes its state to disk (`timerd --save`).
public enum SavePolicy: String, Sendable, Equatable {
    /// Every change is saved before its reply is sent (the default; the protocol's durability rule).
    case everyChange = "change"
    /// The state is saved only at a clean stop (SIGTERM, SIGINT, idle exit): a crash or `kill -9`
    /// loses every change since start-up. For benchmarks that load a million timers, where the
    /// whole-file state store would otherwise rewrite the file on every turn of the loop.
    case atExit = "exit"
}
