import Foundation
import Glibc
import Synchronization

/// The PostgreSQL server tests that need one use.
///
/// `TIMERD_TEST_PG` names it (a libpq connection string; `.ci/run` starts a throw-away cluster
/// with `scripts/pg-cluster` and sets it). Without it, the first test that asks starts its own
/// throw-away cluster with `scripts/pg-cluster start` (Unix socket only, in a temporary directory)
/// and stops it once the test process is gone (`PG_CLUSTER_OWNER_PID`). When neither works the tests that need it fail,
/// loudly, with the reason; outside CI (`CI` not `true`) they are disabled instead, with that
/// reason in the test report.
public enum PostgresTestCluster {
    private static let state = Mutex<Result<String, ClusterError>?>(nil)

    /// Why no server could be had.
    public struct ClusterError: Error, CustomStringConvertible, Sendable {
        /// The reason.
        public var description: String
    }

    /// The server's connection string, starting a cluster on first use when none is given.
    ///
    /// - Returns: the connection string (`host=/tmp/timerd-pg.X user=postgres dbname=postgres`).
    /// - Throws: ``ClusterError`` naming why no server is available.
    public static func connectionString() throws(ClusterError) -> String {
        let result = state.withLock { state -> Result<String, ClusterError> in
            if let state { return state }
            let result = start()
            state = result
            return result
        }
        return try result.get()
    }

    /// Whether tests needing PostgreSQL run: always in CI or when `TIMERD_TEST_PG` is set
    /// (`scripts/test` sets it), where they then fail with the reason, so a missing server or a
    /// build without the trait cannot pass as skipped tests; otherwise when the build has the
    /// package trait `PostgreSQL` (libpq) and a server is available.
    public static var isEnabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        if environment["CI"] == "true" || !(environment["TIMERD_TEST_PG"] ?? "").isEmpty { return true }
        #if PostgreSQL
            return (try? connectionString()) != nil
        #else
            return false
        #endif
    }

    /// The package's root directory (two levels above this file's folder).
    public static var packageRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// Runs `scripts/pg-cluster ARGUMENTS` through ``SpawnedProgram`` (Foundation's
    /// `Process.waitUntilExit` hung inside the test runner while the child sat unreaped), with its
    /// output in a temporary file. The script and the server it starts inherit no descriptor of
    /// the test process beyond stdin, stdout and stderr.
    ///
    /// - Parameters:
    ///   - arguments: the script's arguments (`start DIR`, `down DIR`, …).
    ///   - extra: variables added to the environment.
    /// - Returns: the exit status and the output (stdout and stderr together).
    public static func runScript(_ arguments: [String], environment extra: [String: String] = [:]) -> (Int32, String) {
        let output = "/tmp/timerd-pg-cluster-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out"
        defer { unlink(output) }
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in extra { environment[key] = value }
        let run = SpawnedProgram.run(
            packageRoot + "/scripts/pg-cluster", arguments, environment: environment, standardOutput: output,
            standardError: output)
        if let failure = run.failure { return (-1, failure) }
        return (run.status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    private static func start() -> Result<String, ClusterError> {
        if let given = ProcessInfo.processInfo.environment["TIMERD_TEST_PG"], !given.isEmpty { return .success(given) }
        let (status, text) = runScript(
            ["start"], environment: ["PG_CLUSTER_FSYNC": "off", "PG_CLUSTER_OWNER_PID": String(getpid())])
        guard status == 0, let line = text.split(separator: "\n").last.map(String.init), line.hasPrefix("host=") else {
            return .failure(
                ClusterError(
                    description: "no PostgreSQL for the tests: set TIMERD_TEST_PG, or install postgresql "
                        + "(scripts/pg-cluster start exited \(status): \(text))"))
        }
        return .success(line)
    }
}
