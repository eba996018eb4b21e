import Foundation
import Logging
import PostgresNIO

@testable import SubRecon

/// A database of its own per test, in the throwaway PostgreSQL cluster `scripts/test.sh` starts
/// (`scripts/postgres-test-cluster.sh`): SUBRECON_TEST_POSTGRES_URL names it, with the password in
/// SUBRECON_TEST_POSTGRES_PASSWORD_FILE. Without it the PostgreSQL tests fail, saying so: they are
/// never skipped.
struct TestPostgres: Sendable {
    /// The new database's location (with the password, for the library).
    let location: PostgresLocation
    /// Its URL without a password (for the binary, with `environment`).
    let url: String
    /// SUBRECON_DB_PASSWORD_FILE, when the cluster has a password.
    let environment: [String: String]

    static func createDatabase() async throws -> TestPostgres {
        let environment = ProcessInfo.processInfo.environment
        guard let adminURL = environment["SUBRECON_TEST_POSTGRES_URL"] else {
            throw TestPostgresError(
                "SUBRECON_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a throwaway PostgreSQL")
        }
        let passwordFile = environment["SUBRECON_TEST_POSTGRES_PASSWORD_FILE"]
        var warnings: [String] = []
        guard case .postgres(let admin) = try DatabaseLocation.resolve(adminURL, passwordFile: passwordFile, warnings: &warnings)
        else { throw TestPostgresError("SUBRECON_TEST_POSTGRES_URL is not a PostgreSQL URL") }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let client = PostgresClient(configuration: try StoreOpener.clientConfiguration(admin))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        }
        let location = PostgresLocation(
            host: admin.host, port: admin.port, user: admin.user, password: admin.password, database: String(name),
            tls: admin.tls)
        let host = admin.host.contains(":") ? "[\(admin.host)]" : admin.host
        return TestPostgres(
            location: location, url: "postgres://\(admin.user)@\(host):\(admin.port)/\(name)",
            environment: passwordFile.map { ["SUBRECON_DB_PASSWORD_FILE": $0] } ?? [:])
    }

    /// Opens the store (migrating it), as a command would.
    func open(claimTimeoutSeconds: Int? = nil, retrySeconds: Int = 10) async throws -> PostgresStore {
        let store = try await StoreOpener.open(
            .postgres(location), environment: ["SUBRECON_DB_RETRY_SECONDS": String(retrySeconds)],
            claimTimeoutSeconds: claimTimeoutSeconds, logger: Logger(label: "test"))
        guard let postgres = store as? PostgresStore else { throw TestPostgresError("not a PostgreSQL store") }
        return postgres
    }
}

struct TestPostgresError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
