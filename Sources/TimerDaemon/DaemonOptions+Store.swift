import Glibc
import TimerPostgres
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

extension DaemonOptions {
    /// The PostgreSQL store over `connectionString`, as this host.
    ///
    /// - Parameters:
    ///   - connectionString: a libpq connection string or URI, without a password.
    ///   - hostID: this host's name in the database.
    /// - Returns: a store not yet loaded (nothing is contacted before `load()`).
    func makePostgresStore(connectionString: String, hostID: String, timeouts: PostgresSessionTimeouts)
        -> any TimerStore
    {
        let store = PostgresStore(
            connectionString: connectionString, hostID: hostID, bootID: BootID.current() ?? "unknown-boot")
        store.timeouts = timeouts
        return store
    }

    /// The default `--host-id`: the host name and the first 8 characters of the boot id
    /// (`web1-3f2a9c1d`), so that a rebooted host is told from its earlier boot in claims and logs.
    ///
    /// - Returns: the name; `localhost` stands in for a host name that cannot be read.
    static func defaultHostID() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let boot = BootID.current().map { String($0.prefix(8)) } ?? "noboot"
        return (host.isEmpty ? "localhost" : host) + "-" + boot
    }
}

extension DaemonConfig {
    /// The PostgreSQL session timeouts of `pg_lock_timeout`, `pg_statement_timeout` and
    /// `pg_idle_in_transaction_timeout` (with their command-line flags applied), in milliseconds.
    var postgresTimeouts: PostgresSessionTimeouts {
        func milliseconds(_ seconds: Double) -> Int { Int(min(Double(Int32.max), (seconds * 1_000).rounded(.up))) }
        return PostgresSessionTimeouts(
            lockMilliseconds: milliseconds(postgresLockTimeoutSeconds),
            statementMilliseconds: milliseconds(postgresStatementTimeoutSeconds),
            idleInTransactionMilliseconds: milliseconds(postgresIdleInTransactionTimeoutSeconds))
    }
}
