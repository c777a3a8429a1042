/// When timerd writes its state to disk (`timerd --save`): the state directory's store is created
/// with the matching `FileStore.WritePolicy` (`DaemonOptions+Store.swift`).
public enum SavePolicy: String, Sendable, Equatable {
    /// Every change is saved before its reply is sent (the default; the protocol's durability rule).
    case everyChange = "change"
    /// The state is saved only at a clean stop (SIGTERM, SIGINT, idle exit): a crash or `kill -9`
    /// loses every change since start-up. For benchmarks that load a million timers, so that the
    /// figures measure the engine and the loop, not the disk.
    case atExit = "exit"
}
