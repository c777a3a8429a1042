import Foundation
import TestSupport

/// The backend a parametrized end-to-end test runs timerd with: the same test, the same
/// expected replies, on each (docs/architecture.md, `TimerBackend`).
enum TestBackend: String, CaseIterable, CustomStringConvertible, Sendable {
    /// The file store in the harness's state directory (timerd's default).
    case file
    /// `--store` with `--shared` on a fresh schema of the PostgreSQL test cluster.
    case shared

    var description: String { rawValue }

    /// The backends this machine can run: `shared` needs the PostgreSQL test cluster
    /// (`TIMERD_TEST_PG`, or one `scripts/pg-cluster` starts), which CI always has.
    static var available: [TestBackend] { PostgresTestCluster.isEnabled ? allCases : [.file] }

    /// timerd's arguments for this backend: none for the file store; for `shared`, a new empty
    /// schema made with psql, so that tests never see each other's timers.
    ///
    /// - Throws: when the cluster is not available or the schema cannot be made.
    func daemonArguments() throws -> [String] {
        switch self {
        case .file:
            return []
        case .shared:
            let base = try PostgresTestCluster.connectionString()
            let schema = "e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let created = Harness.run("/usr/bin/env", ["psql", base, "-qc", "CREATE SCHEMA \(schema)"])
            guard created.status == 0 else { throw SystemFailure("psql could not create \(schema): \(created)") }
            return ["--store", base + " options='-csearch_path=\(schema)'", "--shared", "--host-id", "e2e"]
        }
    }
}
