/// Why a call to PostgreSQL failed, sorted by what the caller does about it.
///
/// The cases follow the server's SQLSTATE classes (PostgreSQL documentation, Appendix A "PostgreSQL
/// Error Codes"): class `08` (connection exception), `57P01`…`57P03` (shutdown, cannot connect
/// now) and `53` (insufficient resources) mean the database cannot be used now and a retry later
/// may succeed; `25006` (read-only SQL transaction) means the server is a standby; class `23`
/// (integrity constraint violation) means the statement broke a rule of the schema.
public enum PostgresError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server cannot be reached or used now: connecting failed, the connection broke, or the
    /// server is shutting down or starting. The text is libpq's message. Retrying later may work.
    case unavailable(String)
    /// The server accepts only reads (a hot standby, for example after a failover that left this
    /// connection on the old primary's replica). Connect with `target_session_attrs=read-write`.
    case readOnly(String)
    /// A statement broke a constraint of the schema: `sqlState` (`23505` unique violation, …),
    /// the constraint's name when the server gave it, and the server's message.
    case constraint(sqlState: String, constraint: String?, message: String)
    /// Any other refusal: the SQLSTATE and the server's message (a syntax error, a serialization
    /// failure, …).
    case server(sqlState: String, message: String)
    /// The connection string itself is refused before connecting: malformed, or carrying a
    /// password (passwords come from `PGPASSFILE`, `~/.pgpass` or `PGPASSWORD`, never from a
    /// command line or a configuration file that others may read).
    case invalidConnectionString(String)

    /// What went wrong, for a log line or an error reply.
    public var description: String {
        switch self {
        case .unavailable(let message): return "database unavailable (\(message))"
        case .readOnly(let message): return "database is read-only (\(message))"
        case .constraint(let sqlState, let constraint, let message):
            return "constraint \(constraint ?? "?") violated (SQLSTATE \(sqlState)): \(message)"
        case .server(let sqlState, let message): return "database refused (SQLSTATE \(sqlState)): \(message)"
        case .invalidConnectionString(let message): return "invalid PostgreSQL connection string: \(message)"
        }
    }

    /// The error a server's SQLSTATE stands for.
    ///
    /// - Parameters:
    ///   - sqlState: the five-character code (`PG_DIAG_SQLSTATE`); empty when libpq made the error
    ///     itself (a broken connection), which counts as unavailable.
    ///   - constraint: the constraint's name (`PG_DIAG_CONSTRAINT_NAME`), if any.
    ///   - message: the primary message.
    /// - Returns: the case for the code's class.
    static func classify(sqlState: String, constraint: String?, message: String) -> PostgresError {
        // 25P03: the server ended this session for idling in a transaction (a stopped host):
        // the session is gone, so it counts as a broken connection.
        if sqlState.isEmpty || sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || sqlState.hasPrefix("57P")
            || sqlState == "25P03"
        {
            return .unavailable(message)
        }
        if sqlState == "25006" { return .readOnly(message) }
        if sqlState.hasPrefix("23") { return .constraint(sqlState: sqlState, constraint: constraint, message: message) }
        return .server(sqlState: sqlState, message: message)
    }
}
