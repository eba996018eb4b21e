import Foundation
import GRDB
import Logging
import PostgresNIO
import SubReconModel
import SubReconStore

/// Where a webhook measurement's events live: a fresh SQLite file, or a fresh database on the
/// benchmark's PostgreSQL (dropped at the end). Events go in through the store's own event writer,
/// inside one transaction per batch, exactly as a run's changes write them.
enum WebhookBenchStoreKind: Sendable {
    case sqlite(folder: String)
    case postgres(BenchPostgres)

    var name: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }

    /// A fresh database for one measurement.
    func make(_ label: String) async throws -> WebhookBenchDatabase {
        switch self {
        case .sqlite(let folder): .sqlite(path: folder + "/webhooks-\(label).sqlite")
        case .postgres(let server): .postgres(server, try await server.createDatabase())
        }
    }
}

/// One measurement's database; `open()` may be called more than once (a writer and a deliverer
/// with connections of their own, as two processes would have).
enum WebhookBenchDatabase: Sendable {
    case sqlite(path: String)
    case postgres(BenchPostgres, PostgresLocation)

    func open() async throws -> WebhookBenchHandle {
        switch self {
        case .sqlite(let path):
            let database = try AppDatabase.open(path: path)
            var handle = WebhookBenchHandle(store: database, leaseMs: 120_000, close: {}) { batch in
                try await database.write("writing benchmark events") { db in try SQLiteEventWriter.write(batch, db: db) }
            }
            handle.markDelivered = {
                try await database.write("marking benchmark events delivered") { db in
                    try db.execute(sql: BenchmarkSQL.markEventsDelivered)
                }
            }
            return handle
        case .postgres(_, let location):
            let logger = Logger(label: "subrecon-bench.webhooks", factory: { _ in SwiftLogNoOpLogHandler() })
            let opened = try await StoreOpener.open(.postgres(location), environment: [:], logger: logger)
            guard let store = opened as? PostgresStore else {
                await opened.close()
                throw BenchPostgres.Failure(description: "\(location.masked) did not open as a PostgreSQL store")
            }
            let delivering: any EventStore = store
            var handle = WebhookBenchHandle(store: delivering, leaseMs: store.claimTimeoutMs, close: { await store.close() }) { batch in
                try await store.withTransaction("writing benchmark events") { connection in
                    try await PostgresEventWriter.write(batch, connection)
                }
            }
            handle.markDelivered = {
                try await store.withConnection("marking benchmark events delivered") { connection in
                    _ = try await connection.run(BenchmarkSQL.markEventsDelivered)
                }
            }
            handle.serverCPU = {
                // The server shares the host: its processes for this database are readable in /proc.
                let pids = try await store.withConnection("listing the benchmark's server processes") { connection in
                    try await connection.all(BenchmarkSQL.databaseBackends) { row in try row["pid"].decode(Int32.self) }
                }
                var seconds: [Int32: Double] = [:]
                for pid in pids { seconds[pid] = ChildProcess(pid: pid, executable: "postgres").cpuSecondsSoFar() }
                return seconds
            }
            return handle
        }
    }

    /// Removes it (the PostgreSQL database; a SQLite file goes with the benchmark's folder).
    func drop() async throws {
        if case .postgres(let server, let location) = self { try await server.dropDatabase(location) }
    }
}

/// An open store: the deliverer's `EventStore`, and a writer committing one batch per transaction.
struct WebhookBenchHandle: Sendable {
    let store: any EventStore
    let leaseMs: Int64
    let close: @Sendable () async -> Void
    let write: @Sendable (EventBatch) async throws -> Void
    /// Marks every event delivered (the `--history` of a deployment).
    var markDelivered: @Sendable () async throws -> Void = {}
    /// CPU seconds so far of each server process serving this database (PostgreSQL), by pid.
    var serverCPU: (@Sendable () async throws -> [Int32: Double])? = nil

    init(
        store: any EventStore, leaseMs: Int64, close: @escaping @Sendable () async -> Void,
        write: @escaping @Sendable (EventBatch) async throws -> Void
    ) {
        self.store = store
        self.leaseMs = leaseMs
        self.close = close
        self.write = write
    }
}
