import TimerStorage

extension DaemonOptions {
    /// The store these options choose: the state directory's files, journaled at every change
    /// (`--save change`, the default) or written only at a clean stop (`--save exit`), refusing a
    /// state with missing changes unless `--accept-state-loss`.
    ///
    /// - Parameter stateDirectory: the directory, which must exist.
    /// - Returns: a store not yet loaded.
    func makeStore(stateDirectory: String) -> any TimerStore {
        let writePolicy: FileStore.WritePolicy
        switch savePolicy {
        case .everyChange: writePolicy = .everyCommit
        case .atExit: writePolicy = .atClose
        }
        return FileStore(
            directory: stateDirectory, journalMaximumRecords: journalMaximumRecords, writePolicy: writePolicy,
            lossPolicy: stateLossPolicy)
    }
}
