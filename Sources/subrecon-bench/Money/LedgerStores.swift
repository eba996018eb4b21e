import Foundation
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// The stores a ledger benchmark measures: the generated SQLite file, and a copy of it on
/// PostgreSQL (made with the real binary's `subrecon db copy`, then vacuumed) when a server is
/// named (--postgres-url, SUBRECON_BENCH_POSTGRES_URL or SUBRECON_TEST_POSTGRES_URL).
struct LedgerStores {
    struct Store {
        var name: String
        /// SUBRECON_DB (and its password file) for a process on this store.
        var environment: [String: String]
    }

    var stores: [Store]
    private var postgres: (server: BenchPostgres, location: PostgresLocation)?

    /// SQLite at `path`, plus PostgreSQL unless `sqliteOnly` or no server is named.
    static func prepare(
        sqlitePath path: String, binary: String, folder: String, postgresURL: String?, sqliteOnly: Bool
    ) async throws -> LedgerStores {
        var made = LedgerStores(stores: [Store(name: "SQLite", environment: ["SUBRECON_DB": path])])
        guard !sqliteOnly, let server = try BenchPostgres.find(url: postgresURL) else { return made }
        let location = try await server.createDatabase()
        made.postgres = (server, location)
        let environment = try BenchPostgres.processEnvironment(location, folder: folder)
        let watch = Stopwatch()
        let copy = try await ReportRuns.run(binary, ["db", "copy", path, BenchPostgres.url(location)], environment, folder)
        guard copy.exit.code == 0 else { throw ChildProcess.SpawnError(description: "db copy failed: \(copy.stderr)") }
        try await server.vacuumAnalyze(location)
        print("  copied to PostgreSQL and vacuumed in \(BenchFormat.fixed(watch.seconds, 1)) s")
        made.stores.append(Store(name: "PostgreSQL", environment: environment))
        return made
    }

    /// Drops the PostgreSQL database (or, with `keep`, says where it is).
    func finish(keep: Bool) async {
        guard let (server, location) = postgres else { return }
        if keep {
            print("kept PostgreSQL database \(location.database) (SUBRECON_DB=\(BenchPostgres.url(location)))")
        } else {
            try? await server.dropDatabase(location)
        }
    }
}
