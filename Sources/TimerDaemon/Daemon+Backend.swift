import Countdown
import Foundation
import TimerService
import TimerStorage
import TimerSystem

/// Which ``TimerBackend`` serves the timers (chosen once, at start) and the descriptor it asks
/// the loop to watch.
extension Daemon {
    /// Opens the backend the options and configuration ask for: ``SharedBackend`` for `--store`
    /// with `--shared` (`store=`, `shared=yes`), else ``LocalBackend`` over a PostgreSQL store
    /// (`--store`) or the state directory's file store.
    ///
    /// - Parameters:
    ///   - options: the command line.
    ///   - config: the configuration as the file and options give it.
    ///   - systemZone: the zone calendar timers follow when they name none.
    ///   - log: where log lines go.
    ///   - configure: sets the request router's resolvers and uids.
    /// - Returns: the backend and the timers that ended while no timerd ran.
    /// - Throws: ``DaemonOptions/UsageError`` for `--shared` without `--store`; the store's or the
    ///   database's error when it cannot be opened.
    static func openBackend(
        options: DaemonOptions, config: DaemonConfig, systemZone: TimeZone, log: @escaping (String) -> Void,
        configure: (inout TimerService) -> Void
    ) throws -> (backend: any TimerBackend, missed: [TimerEnding]) {
        let isShared = options.shared || config.shared
        let connection = options.storeConnection ?? config.storeConnection
        let hostID = connection.map { _ in options.hostID ?? DaemonOptions.defaultHostID() }
        let store: any TimerStore
        let description: String
        switch (connection, isShared) {
        case (let connection?, true):
            // The database is the only copy; the router's engine stays empty (docs/multihost.md).
            let host = try SharedHost(
                connectionString: connection, hostID: hostID ?? DaemonOptions.defaultHostID(),
                environment: ProcessInfo.processInfo.environment, timeouts: config.postgresTimeouts, log: log)
            var service = TimerService(
                engine: TimerEngine(clock: SystemClock()), quota: config.maximumTimersPerUser, pid: getpid())
            service.engine.systemTimeZone = systemZone
            configure(&service)
            service.storeDescription = "postgresql \(connection) (shared)"
            service.hostID = hostID
            return (SharedBackend(host: host, service: service), [])
        case (let connection?, false):
            store = options.makePostgresStore(
                connectionString: connection, hostID: hostID ?? DaemonOptions.defaultHostID(),
                timeouts: config.postgresTimeouts)
            description = "postgresql \(connection)"
        case (nil, true):
            throw DaemonOptions.UsageError(message: "--shared (shared=yes) needs --store (store=)")
        case (nil, false):
            let directory = try options.stateDirectory ?? RuntimePaths.defaultStateDirectory()
            try RuntimePaths.ensurePrivateDirectory(directory)
            store = options.makeStore(stateDirectory: directory)
            description = "file \(directory)"
        }
        let isPostgresStore = connection != nil
        let (backend, missed) = try LocalBackend.open(
            store: store, config: config, systemZone: systemZone, log: log,
            configureService: { service in
                configure(&service)
                if isPostgresStore {
                    // The schema's state column has no "ringing" (a ringing timer could not be saved).
                    service.ringRefusal =
                        "ringing timers (\"ring\" of timer.start, timerctl start … --ring) are not available with "
                        + "the PostgreSQL store (timerd --store): its schema has no ringing state; start them on a "
                        + "timerd with the file store (the default, --state-dir)"
                }
                service.storeDescription = description
                service.hostID = hostID
            })
        return (backend, missed)
    }

    /// Keeps epoll watching the backend's current descriptor, which changes at each reconnection
    /// to the database.
    func watchBackendDescriptor() {
        guard let (socket, generation) = backend.watchedDescriptor, generation != watchedGeneration else { return }
        watchedGeneration = generation
        guard socket >= 0 else { return }
        do {
            try epoll.add(rawDescriptor: socket, interest: .readable, token: Self.backendToken)
        } catch {
            log("warning: cannot watch the database connection: \(error); polling every second instead")
        }
    }
}
