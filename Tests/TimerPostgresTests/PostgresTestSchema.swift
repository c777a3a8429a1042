import Foundation
import TestSupport
import TimerPostgres

/// A fresh, empty schema on the test cluster for one test, so that tests running in parallel never
/// see each other's tables, and the connection string that selects it (`search_path`).
///
/// - Returns: the connection string (key=value form) and the schema's name.
/// - Throws: when no cluster is available or the schema cannot be created.
func freshSchema() throws -> (connectionString: String, schema: String) {
    let base = try PostgresTestCluster.connectionString()
    let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let connection = try PostgresConnection(connectionString: base)
    try connection.execute("CREATE SCHEMA \(schema)")
    return (base + " options='-csearch_path=\(schema)'", schema)
}
