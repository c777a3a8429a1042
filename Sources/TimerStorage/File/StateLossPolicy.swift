/// What ``FileStore/load()`` does when the snapshot or the journal it expects is missing, damaged
/// beyond repair, or of a generation that does not pair with its partner: changes would be lost.
public enum StateLossPolicy: Sendable, Equatable {
    /// Refuse with ``StoreError/stateLost(_:)`` and change nothing that matters (the default): an
    /// operator restores the missing file, or starts again with `timerd --accept-state-loss`.
    case refuse
    /// Go on with what is intact, logging a `WARNING:` line per loss (`timerd --accept-state-loss`).
    /// Ids still never go back: the highest id high-water mark of every intact file is kept.
    case accept
}
