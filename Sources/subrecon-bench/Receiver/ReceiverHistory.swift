import Foundation
import GRDB
import PostgresNIO
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// What a receiver that has been running a while has stored before the timed load: `count`
/// earlier notifications (applied, one delivery each, uuids `history-N`, source `backfill`,
/// received over the days before), written straight into `notifications`. On PostgreSQL the tables are then analyzed, as
/// autovacuum keeps them in production: a fresh database that grows by a thousand rows a second
/// otherwise keeps, until autovacuum's first pass, the plans PostgreSQL made for empty tables
/// (sequential scans of `notifications` that grow with it).
enum ReceiverHistory {
    static let uuidPrefix = "history-"

    static func insert(count: Int, into store: DatabaseLocation, nowMs: Int64) async throws {
        guard count > 0 else { return }
        // One every 10 s of the days before, so `received_at` ranges over the past as in production.
        switch store {
        case .sqlite(let path):
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(
                    sql: BenchmarkSQL.notificationHistory(count: count, nowMs: nowMs, prefix: uuidPrefix, postgres: false))
            }
            try queue.close()
        case .postgres(let location):
            let client = PostgresClient(configuration: try StoreOpener.clientConfiguration(location))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                try await client.query(
                    PostgresQuery(
                        unsafeSQL: BenchmarkSQL.notificationHistory(count: count, nowMs: nowMs, prefix: uuidPrefix, postgres: true)))
                try await client.query(PostgresQuery(unsafeSQL: BenchmarkSQL.analyze))
            }
        }
    }
}
