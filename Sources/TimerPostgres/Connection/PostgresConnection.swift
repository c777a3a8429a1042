#if PostgreSQL
    import CLibPQ
    import Glibc

    /// One connection to a PostgreSQL server through libpq: parameterized statements in text format,
    /// transactions, reconnection, and `LISTEN`/`NOTIFY` through a descriptor an epoll loop can watch.
    ///
    /// ```swift
    /// let connection = try PostgresConnection(connectionString: "host=/tmp/pg dbname=timers")
    /// let rows = try connection.query("SELECT $1::int + 1", ["41"])
    /// rows.int64(0, 0)  // 42
    /// ```
    ///
    /// Every call blocks until the server answers (libpq's synchronous API); the caller owns the
    /// connection alone (it is not `Sendable`). A call that finds the connection broken throws
    /// ``PostgresError/unavailable(_:)``; ``reconnectIfNeeded()`` then tries again, as libpq's
    /// `PQreset` does, and the caller decides how often (timerd: at the next commit, with back-off).
    ///
    /// Passwords: a connection string that carries one is refused
    /// (``PostgresError/invalidConnectionString(_:)``). libpq reads the password from `PGPASSFILE`,
    /// `~/.pgpass` or `PGPASSWORD` itself (PostgreSQL documentation 34.16, "The Password File").
    public final class PostgresConnection {
        /// The libpq connection; never nil after `init`.
        private let handle: OpaquePointer
        /// The connection string as given, for messages (it holds no password).
        public let connectionString: String

        /// Seconds libpq waits to connect when the connection string does not say (`connect_timeout`).
        public static let defaultConnectTimeout = 5

        /// The server-side timeouts this connection sets on its session, at connect and again after
        /// every reconnect (a `PQreset` starts a new session, which forgets `SET`).
        public let timeouts: PostgresSessionTimeouts

        /// Connects to the server `connectionString` names.
        ///
        /// - Parameters:
        ///   - connectionString: a libpq connection string (`host=/run/pg dbname=timers`) or URI
        ///     (`postgresql://db1,db2/timers?target_session_attrs=read-write`), without a password.
        ///     Without `connect_timeout` it gets ``defaultConnectTimeout`` seconds, so that an
        ///     unreachable server fails a call instead of hanging it; TCP keepalives (5 s idle, 2 s
        ///     apart, 3 probes) and `tcp_user_timeout=10000` unless it says otherwise.
        ///   - applicationName: shown in `pg_stat_activity` (`timerd`).
        ///   - timeouts: the session's `lock_timeout`, `statement_timeout` and
        ///     `idle_in_transaction_session_timeout` (``PostgresSessionTimeouts/standard`` unless given).
        /// - Throws: ``PostgresError/invalidConnectionString(_:)`` when the string is malformed or holds
        ///   a password; ``PostgresError/unavailable(_:)`` when connecting fails.
        public init(
            connectionString: String, applicationName: String = "timerd",
            timeouts: PostgresSessionTimeouts = .standard
        ) throws(PostgresError) {
            try Self.checkConnectionString(connectionString)
            // Earlier keywords are defaults; the expanded connection string (`dbname`, expand_dbname = 1)
            // overrides them (libpq's PQconnectdbParams).
            // Over TCP, a server that vanished without closing (a dead host, a cut network) is found by
            // keepalives within about 11 s and a send that is not acknowledged within 10 s fails
            // (`tcp_user_timeout`), instead of blocking timerd's loop for the kernel's 15 minutes.
            // Unix sockets ignore both.
            let keywords = [
                "connect_timeout", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
                "application_name", "dbname",
            ]
            let values = [
                String(Self.defaultConnectTimeout), "5", "2", "3", "10000", applicationName, connectionString,
            ]
            let connection = Self.withCStrings(keywords) { keywordPointers in
                Self.withCStrings(values) { valuePointers in
                    PQconnectdbParams(keywordPointers, valuePointers, 1)
                }
            }
            guard let connection else { throw .unavailable("out of memory creating a libpq connection") }
            handle = connection
            self.connectionString = connectionString
            self.timeouts = timeouts
            // The server's NOTICE lines (`relation … already exists, skipping`) would go to stderr,
            // between timerd's log lines; they are not errors, so they are dropped.
            PQsetNoticeProcessor(handle, { _, _ in }, nil)
            if PQstatus(handle) != CONNECTION_OK {
                // Every stored property is set, so `deinit` runs on this throw and calls PQfinish.
                throw .unavailable(Self.trimmed(String(cString: PQerrorMessage(handle))))
            }
            try applyTimeouts()
        }

        /// Sets ``timeouts`` on the session (`set_config(…, false)`: for the session, not a transaction).
        private func applyTimeouts() throws(PostgresError) {
            try query(
                """
                SELECT set_config('lock_timeout', $1, false), set_config('statement_timeout', $2, false),
                    set_config('idle_in_transaction_session_timeout', $3, false)
                """,
                [
                    String(timeouts.lockMilliseconds), String(timeouts.statementMilliseconds),
                    String(timeouts.idleInTransactionMilliseconds),
                ])
        }

        deinit { PQfinish(handle) }

        /// Refuses a connection string libpq cannot parse or that carries a password.
        ///
        /// - Parameter connectionString: the string.
        /// - Throws: ``PostgresError/invalidConnectionString(_:)``.
        public static func checkConnectionString(_ connectionString: String) throws(PostgresError) {
            var errorMessage: UnsafeMutablePointer<CChar>?
            guard let options = PQconninfoParse(connectionString, &errorMessage) else {
                let message = errorMessage.map { trimmed(String(cString: $0)) } ?? "cannot be parsed"
                if let errorMessage { PQfreemem(errorMessage) }
                throw .invalidConnectionString(message)
            }
            defer { PQconninfoFree(options) }
            var option = options
            while let keyword = option.pointee.keyword {
                if String(cString: keyword) == "password", option.pointee.val != nil {
                    throw .invalidConnectionString(
                        "it holds a password; put the password in PGPASSFILE or ~/.pgpass (or PGPASSWORD) instead")
                }
                option += 1
            }
        }

        /// Set when a call failed as ``PostgresError/unavailable(_:)`` (libpq may still report the
        /// connection as up: a break found while sending) or ``PostgresError/readOnly(_:)`` (a
        /// standby), so that the next ``reconnectIfNeeded()`` resets it.
        private var isBroken = false
        /// The statements this connection prepared (``queryPrepared(_:_:)``), by their SQL text.
        private var prepared: [String: String] = [:]

        /// Whether the connection is up as far as libpq knows (it learns of a break at the next call)
        /// and no call since the last reconnect found it broken.
        public var isConnected: Bool { !isBroken && PQstatus(handle) == CONNECTION_OK }

        /// The server's process id for this connection (`pg_backend_pid()`), 0 when not connected.
        public var backendPID: Int32 { PQbackendPID(handle) }

        /// The connection's socket, for `epoll` (readable when a notification or data arrives), or -1
        /// when not connected. It changes after a reconnect.
        public var socket: Int32 { PQsocket(handle) }

        /// Reconnects when the connection is broken (libpq's `PQreset`, with the same parameters, so
        /// that a multi-host string with `target_session_attrs=read-write` finds the new primary).
        ///
        /// - Returns: whether it reconnected (false when the connection was up).
        /// - Throws: ``PostgresError/unavailable(_:)`` when the server still cannot be reached.
        @discardableResult
        public func reconnectIfNeeded() throws(PostgresError) -> Bool {
            guard !isConnected else { return false }
            PQreset(handle)
            isBroken = false
            guard isConnected else { throw .unavailable(Self.trimmed(String(cString: PQerrorMessage(handle)))) }
            try applyTimeouts()
            return true
        }

        /// Runs one statement with `$1`, `$2`, … bound to `parameters` (text format, `nil` for NULL),
        /// through `PQexecParams`: values never become part of the SQL text.
        ///
        /// - Parameters:
        ///   - sql: one statement.
        ///   - parameters: the values of `$1`…, in PostgreSQL's text input format.
        /// - Returns: the rows (text format) and the count of rows touched.
        /// - Throws: ``PostgresError`` by the server's SQLSTATE; a broken connection is
        ///   ``PostgresError/unavailable(_:)``.
        /// - Complexity: one round trip; O(r·c) to copy r rows of c columns.
        @discardableResult
        public func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
            let result = Self.withOptionalCStrings(parameters) { pointers in
                PQexecParams(handle, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
            }
            return try take(result)
        }

        /// Runs one statement as ``query(_:_:)`` does, through a statement this connection prepared
        /// the first time it ran `sql` (`PQprepare`, then `PQexecPrepared`): the server parses it
        /// once per session and may keep its plan. For the few statements a host runs on every
        /// request or turn; `sql` must be one of a fixed set of texts (each is kept for the session).
        ///
        /// - Parameters:
        ///   - sql: one statement, a constant text.
        ///   - parameters: the values of `$1`…, in PostgreSQL's text input format.
        /// - Returns: the rows (text format) and the count of rows touched.
        /// - Throws: ``PostgresError`` as for ``query(_:_:)``.
        /// - Complexity: one round trip (two the first time).
        @discardableResult
        public func queryPrepared(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
            let name: String
            if let known = prepared[sql] {
                name = known
            } else {
                name = "timerd_\(prepared.count + 1)"
                // A protocol-level prepared statement outlives a rolled-back transaction.
                _ = try take(PQprepare(handle, name, sql, Int32(parameters.count), nil))
                prepared[sql] = name
            }
            let result = Self.withOptionalCStrings(parameters) { pointers in
                PQexecPrepared(handle, name, Int32(parameters.count), pointers, nil, nil, 0)
            }
            return try take(result)
        }

        /// Runs SQL text without parameters, which may hold several statements (`PQexec`): for schema
        /// changes and `BEGIN`/`COMMIT`.
        ///
        /// - Parameter sql: the statements.
        /// - Returns: the last statement's rows.
        /// - Throws: ``PostgresError`` as for ``query(_:_:)``.
        @discardableResult
        public func execute(_ sql: String) throws(PostgresError) -> PostgresRows {
            try take(PQexec(handle, sql))
        }

        /// Runs `body` in one transaction: `BEGIN`, then `COMMIT` when it returns, `ROLLBACK` when it
        /// throws (so nothing of it is applied), and rethrows.
        ///
        /// - Parameters:
        ///   - isolation: the `BEGIN` options (`ISOLATION LEVEL …`), empty for the server's default
        ///     (read committed).
        ///   - body: the statements; it gets this connection.
        /// - Returns: what `body` returns.
        /// - Throws: `body`'s error, or ``PostgresError`` from `BEGIN`/`COMMIT`. A `COMMIT` that
        ///   fails because the connection broke leaves it unknown whether the server committed
        ///   (PostgreSQL cannot say either); the caller must treat the change as not acknowledged.
        @discardableResult
        public func transaction<T>(isolation: String = "", _ body: (PostgresConnection) throws(PostgresError) -> T)
            throws(PostgresError) -> T
        {
            try execute(isolation.isEmpty ? "BEGIN" : "BEGIN " + isolation)
            let value: T
            do {
                value = try body(self)
            } catch {
                if isConnected { _ = try? execute("ROLLBACK") }
                throw error
            }
            try execute("COMMIT")
            return value
        }

        /// Refuses a connection that does not keep one server session: a pooler in transaction or
        /// statement mode (pgbouncer's `pool_mode=transaction`) hands each transaction to whichever
        /// server connection is free, so `LISTEN`, session advisory locks and the session timeouts
        /// timerd relies on do not hold.
        ///
        /// The check: this connection's server process (`pg_backend_pid()`) must stay the same across
        /// statements, and a second connection opened meanwhile must get another one (behind
        /// transaction pooling it is handed the server connection this one just released).
        ///
        /// - Throws: ``PostgresError/server(sqlState:message:)`` with SQLSTATE `TD005` when the session
        ///   is not kept; ``PostgresError`` when a statement or the second connection fails.
        public func checkSessionIsKept() throws(PostgresError) {
            let first = try query("SELECT pg_backend_pid()").value(0, 0)
            let probe = try PostgresConnection(
                connectionString: connectionString, applicationName: "timerd-session-check", timeouts: timeouts)
            let other = try probe.query("SELECT pg_backend_pid()").value(0, 0)
            let again = try query("SELECT pg_backend_pid()").value(0, 0)
            guard first != again || first == other else { return }
            throw .server(
                sqlState: "TD005",
                message:
                    "the connection does not keep one database session (server process \(first ?? "?"), then "
                    + "\(again ?? "?"); another connection got \(other ?? "?")): a pooler in transaction or statement "
                    + "mode (pgbouncer pool_mode=transaction) loses LISTEN, advisory locks and session settings; "
                    + "connect timerd to PostgreSQL directly or through a pool in session mode")
        }

        /// Reads what the server sent without being asked and returns the notifications among it
        /// (`LISTEN channel` first). Call it when ``socket`` is readable; it never blocks.
        ///
        /// - Returns: each notification's channel and payload, in order of arrival.
        /// - Throws: ``PostgresError/unavailable(_:)`` when the connection broke.
        public func takeNotifications() throws(PostgresError) -> [(channel: String, payload: String)] {
            guard PQconsumeInput(handle) == 1 else {
                isBroken = true
                throw .unavailable(Self.trimmed(String(cString: PQerrorMessage(handle))))
            }
            var notifications: [(channel: String, payload: String)] = []
            while let notify = PQnotifies(handle) {
                notifications.append(
                    (String(cString: notify.pointee.relname), notify.pointee.extra.map { String(cString: $0) } ?? ""))
                PQfreemem(notify)
            }
            return notifications
        }

        /// Turns a libpq result into rows or the matching error, and frees it.
        private func take(_ result: OpaquePointer?) throws(PostgresError) -> PostgresRows {
            guard let result else {
                isBroken = true
                throw .unavailable(Self.trimmed(String(cString: PQerrorMessage(handle))))
            }
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK || status == PGRES_EMPTY_QUERY else {
                let field = { (code: Int32) -> String? in
                    PQresultErrorField(result, code).map { String(cString: $0) }
                }
                let sqlState = field(Int32(UInt8(ascii: "C"))) ?? ""
                let message =
                    field(Int32(UInt8(ascii: "M"))) ?? Self.trimmed(String(cString: PQresultErrorMessage(result)))
                let constraint = field(Int32(UInt8(ascii: "n")))
                // libpq's own errors (the server went away) have no SQLSTATE; the connection says more.
                let text = message.isEmpty ? Self.trimmed(String(cString: PQerrorMessage(handle))) : message
                let error = PostgresError.classify(sqlState: sqlState, constraint: constraint, message: text)
                switch error {
                // A standby refuses writes (after a failover this connection may be on the old
                // primary's replica): reconnecting lets `target_session_attrs=read-write` find the new one.
                case .unavailable, .readOnly: isBroken = true
                case .constraint, .server, .invalidConnectionString: break
                }
                throw error
            }
            let rowCount = Int(PQntuples(result))
            let columnCount = Int(PQnfields(result))
            var columns: [String] = []
            columns.reserveCapacity(columnCount)
            for column in 0..<columnCount { columns.append(String(cString: PQfname(result, Int32(column)))) }
            var rows: [[String?]] = []
            rows.reserveCapacity(rowCount)
            for row in 0..<rowCount {
                var values: [String?] = []
                values.reserveCapacity(columnCount)
                for column in 0..<columnCount {
                    if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                        values.append(nil)
                    } else {
                        values.append(String(cString: PQgetvalue(result, Int32(row), Int32(column))))
                    }
                }
                rows.append(values)
            }
            let affected = Int(String(cString: PQcmdTuples(result))) ?? 0
            return PostgresRows(columns: columns, rows: rows, affected: affected)
        }

        /// libpq's messages end in a newline (and sometimes carry several lines); one line for logs.
        static func trimmed(_ message: String) -> String {
            message.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }
                .joined(separator: "; ")
        }

        /// Calls `body` with a C array of the strings (valid only during the call).
        private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R)
            -> R
        {
            withOptionalCStrings(strings.map { Optional($0) }, body)
        }

        /// Calls `body` with a C array of the strings, NULL for `nil` (valid only during the call),
        /// plus a terminating NULL (as PQconnectdbParams needs).
        private static func withOptionalCStrings<R>(
            _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R
        ) -> R {
            let copies: [UnsafeMutablePointer<CChar>?] = strings.map { $0.flatMap { strdup($0) } }
            defer { for copy in copies { free(copy) } }
            let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
            return pointers.withUnsafeBufferPointer { buffer in
                // Never nil: the array holds at least the terminator.
                body(buffer.baseAddress)
            }
        }
    }
#endif

/// The server-side timeouts of a timerd session (PostgreSQL documentation 20.11.1, "Statement
/// Behavior"), so that a host stopped inside a transaction (SIGSTOP, a paused VM) cannot hold the
/// others: the server ends its session, its row locks go, and its leases run out to be rescued.
/// 0 turns one off (the server's default).
public struct PostgresSessionTimeouts: Sendable, Equatable {
    /// `lock_timeout`: the longest wait for a lock (a row another session holds), in milliseconds.
    public var lockMilliseconds: Int
    /// `statement_timeout`: the longest statement, in milliseconds.
    public var statementMilliseconds: Int
    /// `idle_in_transaction_session_timeout`: how long a session may sit idle inside a transaction
    /// before the server ends it (rolling the transaction back), in milliseconds.
    public var idleInTransactionMilliseconds: Int

    /// timerd's defaults: locks 2 s, statements 30 s, idle in a transaction 3 s. timerd's own
    /// transactions send their statements back to back, so 3 s idle means a stopped host; it is
    /// shorter than shared mode's 5 s lease, so a stopped host's claims are free to rescue when
    /// their lease runs out.
    public static let standard = PostgresSessionTimeouts(
        lockMilliseconds: 2_000, statementMilliseconds: 30_000, idleInTransactionMilliseconds: 3_000)

    /// Timeouts from their values in milliseconds (each 0 … `Int32.max`; 0 turns it off).
    ///
    /// - Parameters:
    ///   - lockMilliseconds: `lock_timeout`.
    ///   - statementMilliseconds: `statement_timeout`.
    ///   - idleInTransactionMilliseconds: `idle_in_transaction_session_timeout`.
    public init(lockMilliseconds: Int, statementMilliseconds: Int, idleInTransactionMilliseconds: Int) {
        self.lockMilliseconds = max(0, min(Int(Int32.max), lockMilliseconds))
        self.statementMilliseconds = max(0, min(Int(Int32.max), statementMilliseconds))
        self.idleInTransactionMilliseconds = max(0, min(Int(Int32.max), idleInTransactionMilliseconds))
    }
}
