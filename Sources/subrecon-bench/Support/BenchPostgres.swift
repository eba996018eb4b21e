import Foundation
import Logging
import PostgresNIO
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// The PostgreSQL server a benchmark uses: `--postgres-url`, else `SUBRECON_BENCH_POSTGRES_URL`,
/// else `SUBRECON_TEST_POSTGRES_URL` (the throwaway cluster that scripts/bench.sh and scripts/test.sh
/// start with scripts/postgres-test-cluster.sh), each with its password file
/// (`SUBRECON_BENCH_POSTGRES_PASSWORD_FILE`, `SUBRECON_TEST_POSTGRES_PASSWORD_FILE`). A measurement
/// makes a database of its own there (the role needs CREATEDB) and drops it afterwards.
struct BenchPostgres: Sendable {
    /// The server, through the database the URL names (the one `CREATE DATABASE` is sent to).
    let admin: PostgresLocation

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The server the option or the environment names; nil when neither names one.
    static func find(url: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> BenchPostgres?
    {
        let candidates: [(url: String?, passwordFile: String?)] = [
            (url, environment["SUBRECON_BENCH_POSTGRES_PASSWORD_FILE"]),
            (environment["SUBRECON_BENCH_POSTGRES_URL"], environment["SUBRECON_BENCH_POSTGRES_PASSWORD_FILE"]),
            (environment["SUBRECON_TEST_POSTGRES_URL"], environment["SUBRECON_TEST_POSTGRES_PASSWORD_FILE"]),
        ]
        guard let chosen = candidates.first(where: { $0.url?.isEmpty == false }), let text = chosen.url else { return nil }
        var warnings: [String] = []
        let location: DatabaseLocation
        do {
            location = try DatabaseLocation.resolve(text, passwordFile: chosen.passwordFile, warnings: &warnings)
        } catch {
            throw Failure(description: "the benchmark's PostgreSQL: \(error)")
        }
        guard case .postgres(let admin) = location else {
            throw Failure(description: "the benchmark's PostgreSQL: \(location) is not a postgres:// URL")
        }
        return BenchPostgres(admin: admin)
    }

    /// A new, empty database on the server (`subrecon_bench_` and a random suffix).
    func createDatabase() async throws -> PostgresLocation {
        let name = "subrecon_bench_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        try await execute(BenchmarkSQL.createDatabase(name))
        return PostgresLocation(
            host: admin.host, port: admin.port, user: admin.user, password: admin.password, database: name,
            tls: admin.tls)
    }

    /// Drops a database `createDatabase` made (its connections closed first).
    func dropDatabase(_ location: PostgresLocation) async throws {
        try await execute(BenchmarkSQL.dropDatabase(location.database))
    }

    /// `location`'s URL without its password (which goes in a file, as for any worker).
    static func url(_ location: PostgresLocation) -> String {
        PostgresLocation(
            host: location.host, port: location.port, user: location.user, password: nil, database: location.database,
            tls: location.tls
        ).masked
    }

    /// SUBRECON_DB for a process on `location`, and SUBRECON_DB_PASSWORD_FILE: its password in a
    /// file in `folder` (mode 0600), as in production.
    static func processEnvironment(_ location: PostgresLocation, folder: String) throws -> [String: String] {
        var environment = ["SUBRECON_DB": url(location)]
        if let password = location.password {
            let file = folder + "/db-password"
            guard FileManager.default.createFile(
                atPath: file, contents: Data((password + "\n").utf8), attributes: [.posixPermissions: 0o600])
            else { throw ChildProcess.SpawnError(description: "cannot write \(file)") }
            environment["SUBRECON_DB_PASSWORD_FILE"] = file
        }
        return environment
    }

    /// `VACUUM ANALYZE` in `location`, as autovacuum keeps a production database: fresh statistics
    /// and a visibility map (an index-only scan needs it), which a database just filled has not.
    func vacuumAnalyze(_ location: PostgresLocation) async throws {
        try await execute(BenchmarkSQL.vacuumAnalyze, on: location)
    }

    private func execute(_ sql: String, on location: PostgresLocation? = nil) async throws {
        let admin = location ?? self.admin
        let client = PostgresClient(configuration: try StoreOpener.clientConfiguration(admin))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            do {
                try await client.query(PostgresQuery(unsafeSQL: sql))
            } catch {
                throw Failure(description: "\(sql) on \(admin.masked): \(String(reflecting: error))")
            }
        }
    }
}
