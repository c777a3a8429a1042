extension PostgresConnection {
    /// What a build without the package trait `PostgreSQL` says when asked for the PostgreSQL
    /// store: how to build with it.
    public static let notBuiltMessage =
        "this build has no PostgreSQL store: build with the package trait PostgreSQL"
        + " (swift build -c release --traits PostgreSQL; needs libpq-dev and pkg-config),"
        + " or use the Debian package, which has it"

    #if PostgreSQL
        /// Whether this build links libpq (the package trait `PostgreSQL`).
        public static let isBuilt = true
    #else
        /// Whether this build links libpq (the package trait `PostgreSQL`).
        public static let isBuilt = false
    #endif
}

#if !PostgreSQL
    /// A build without the package trait `PostgreSQL` has no libpq: this stands in for the connection
    /// with the same interface, and every call throws ``PostgresError/unavailable(_:)`` with
    /// ``notBuiltMessage`` (making one throws first, so no instance exists), so that `timerd --store`
    /// says how to get the PostgreSQL store instead of failing to link.
    public final class PostgresConnection {
        /// Empty: no connection was made.
        public let connectionString = ""

        /// Seconds libpq would wait to connect, as in the build with the trait.
        public static let defaultConnectTimeout = 5

        /// The session timeouts it was asked for (never applied: no session exists).
        public let timeouts = PostgresSessionTimeouts.standard

        /// Always throws: there is no libpq in this build.
        ///
        /// - Parameters:
        ///   - connectionString: ignored.
        ///   - applicationName: ignored.
        ///   - timeouts: ignored.
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        public init(
            connectionString: String, applicationName: String = "timerd",
            timeouts: PostgresSessionTimeouts = .standard
        ) throws(PostgresError) {
            throw .unavailable(Self.notBuiltMessage)
        }

        /// Always throws: without libpq a connection string cannot be parsed.
        ///
        /// - Parameter connectionString: ignored.
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        public static func checkConnectionString(_ connectionString: String) throws(PostgresError) {
            throw .unavailable(notBuiltMessage)
        }

        /// Always throws: there is no session to check.
        ///
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        public func checkSessionIsKept() throws(PostgresError) {
            throw .unavailable(Self.notBuiltMessage)
        }

        /// False: there is no connection.
        public var isConnected: Bool { false }
        /// 0: there is no server process.
        public var backendPID: Int32 { 0 }
        /// -1: there is no socket.
        public var socket: Int32 { -1 }

        /// Always throws: there is no libpq in this build.
        ///
        /// - Returns: nothing.
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        @discardableResult
        public func reconnectIfNeeded() throws(PostgresError) -> Bool {
            throw .unavailable(Self.notBuiltMessage)
        }

        /// Always throws: there is no libpq in this build.
        ///
        /// - Parameters:
        ///   - sql: ignored.
        ///   - parameters: ignored.
        /// - Returns: nothing.
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        @discardableResult
        public func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
            throw .unavailable(Self.notBuiltMessage)
        }

        /// Always throws: there is no libpq in this build.
        ///
        /// - Parameters:
        ///   - sql: ignored.
        ///   - parameters: ignored.
        /// - Returns: nothing.
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        @discardableResult
        public func queryPrepared(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
            throw .unavailable(Self.notBuiltMessage)
        }

        /// Always throws: there is no libpq in this build.
        ///
        /// - Parameter sql: ignored.
        /// - Returns: nothing.
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        @discardableResult
        public func execute(_ sql: String) throws(PostgresError) -> PostgresRows {
            throw .unavailable(Self.notBuiltMessage)
        }

        /// Always throws: there is no libpq in this build.
        ///
        /// - Parameters:
        ///   - isolation: ignored.
        ///   - body: not called.
        /// - Returns: nothing.
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        @discardableResult
        public func transaction<T>(isolation: String = "", _ body: (PostgresConnection) throws(PostgresError) -> T)
            throws(PostgresError) -> T
        {
            throw .unavailable(Self.notBuiltMessage)
        }

        /// Always throws: there is no libpq in this build.
        ///
        /// - Returns: nothing.
        /// - Throws: ``PostgresError/unavailable(_:)`` with ``notBuiltMessage``.
        public func takeNotifications() throws(PostgresError) -> [(channel: String, payload: String)] {
            throw .unavailable(Self.notBuiltMessage)
        }
    }
#endif
