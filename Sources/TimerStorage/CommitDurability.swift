/// How durable a ``TimerStore/commit(_:durability:snapshot:)`` must be when it returns.
public enum CommitDurability: Sendable, Equatable {
    /// Durable before the call returns (the file store: one `fsync`). For every turn that answers a
    /// request: a change is durable before it is acknowledged (docs/protocol.md).
    case synchronous
    /// May be batched with the next synchronous commit, compaction or close. For turns whose only
    /// changes are timers finishing on their own: nothing was acknowledged, and a finish lost to a
    /// crash is derived again from the deadline at the next start.
    case mayBatch
}
