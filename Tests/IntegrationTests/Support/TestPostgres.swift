import Foundation
import Logging
import PostgresNIO

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

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

    static func createDatabase(in cluster: [String: String] = ProcessInfo.processInfo.environment) async throws
        -> TestPostgres
    {
        let environment = cluster
        guard let adminURL = environment["SUBRECON_TEST_POSTGRES_URL"] else {
            throw TestPostgresError(
                "SUBRECON_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a throwaway PostgreSQL")
        }
        let passwordFile = environment["SUBRECON_TEST_POSTGRES_PASSWORD_FILE"]
        var warnings: [String] = []
        guard case .postgres(let admin) = try DatabaseLocation.resolve(adminURL, passwordFile: passwordFile, warnings: &warnings)
        else { throw TestPostgresError("SUBRECON_TEST_POSTGRES_URL is not a PostgreSQL URL") }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try await execute("CREATE DATABASE \(name)", on: admin)
        let location = PostgresLocation(
            host: admin.host, port: admin.port, user: admin.user, password: admin.password, database: String(name),
            tls: admin.tls)
        let host = admin.host.contains(":") ? "[\(admin.host)]" : admin.host
        return TestPostgres(
            location: location, url: "postgres://\(admin.user)@\(host):\(admin.port)/\(name)",
            environment: passwordFile.map { ["SUBRECON_DB_PASSWORD_FILE": $0] } ?? [:])
    }

    /// Runs one statement in this database, outside any store (a test's own change to it).
    func execute(_ sql: String) async throws { try await Self.execute(sql, on: location) }

    static func execute(_ sql: String, on location: PostgresLocation) async throws {
        let client = PostgresClient(configuration: try StoreOpener.clientConfiguration(location))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
        }
    }

    /// Opens the store (migrating it), as a command would.
    func open(claimTimeoutSeconds: Int? = nil, retrySeconds: Int = 60) async throws -> PostgresStore {
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

/// A PostgreSQL cluster of a test's own (for stopping the server mid-run without disturbing the
/// tests that share the suite's cluster): `scripts/postgres-test-cluster.sh start`, stopped and
/// removed by `remove()`.
struct OwnPostgresCluster: Sendable {
    /// SUBRECON_TEST_POSTGRES_URL, _PASSWORD_FILE, _CTL and _DIR of this cluster.
    let environment: [String: String]

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/postgres-test-cluster.sh").path

    static func start() async throws -> OwnPostgresCluster {
        let output = try await shell([script, "start"])
        var environment: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let assignment = line.dropFirst("export ".count)
            guard let equals = assignment.firstIndex(of: "=") else { continue }
            environment[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
                .trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
        }
        guard environment["SUBRECON_TEST_POSTGRES_URL"] != nil, environment["SUBRECON_TEST_POSTGRES_CTL"] != nil else {
            throw TestPostgresError("postgres-test-cluster.sh start printed no URL: \(output)")
        }
        return OwnPostgresCluster(environment: environment)
    }

    /// `stop` (immediate: as if the server crashed) or `start`, on the same port.
    func server(_ command: String) async throws {
        _ = try await Self.shell([environment["SUBRECON_TEST_POSTGRES_CTL"]!, command])
    }

    func remove() async {
        if let folder = environment["SUBRECON_TEST_POSTGRES_DIR"] { _ = try? await Self.shell([Self.script, "stop", folder]) }
    }

    /// Runs a script off the cooperative pool and returns its stdout; a non-zero exit throws.
    /// Spawned like the binary (stdout into a file, no descriptor of ours inherited): the server
    /// the script leaves running must not hold a pipe or socket of ours open.
    static func shell(_ arguments: [String]) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let output = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)").path
                defer { unlink(output) }
                let status: Int32
                do {
                    let child = try SubreconBinary.spawn(
                        arguments, executable: "/bin/bash", environment: ProcessInfo.processInfo.environment,
                        stdin: "/dev/null", stdout: output, stderr: "/dev/null")
                    status = SubreconBinary.waitBlocking(child)
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if status & 0x7f == 0 && (status >> 8) & 0xff == 0 {
                    continuation.resume(returning: text)
                } else {
                    continuation.resume(throwing: TestPostgresError("\(arguments) ended with status \(status)"))
                }
            }
        }
    }
}

extension PostgresStore {
    /// The same database as another worker: a worker is `HOST:PID`, and tests run several in one process.
    func asWorker(_ name: String) -> PostgresStore {
        PostgresStore(
            connection: connection, location: location,
            claimTimeoutMs: claimTimeoutMs, worker: name, retryWindow: retryWindow)
    }
}
